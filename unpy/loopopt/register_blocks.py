"""register_blocks: an outermost prange nest whose inner loop sums into per-iteration values
(the dot-product order users write matrix products, Gram and covariance matrices, syrk,
distance matrices in) gets a register-blocked alternative for the C++ path: BI x BJ blocks of
the two outer levels' iterations, their sums in local tiles, the inner loop's body vectorised
across a block's columns (the CPU counterpart of jitgpu/loopopt/register_tiles). BI x BJ is
the register tile both back ends choose alike (unpy/loopopt/register_tiles.py), with the C++
path's cost model (cost.py's CpuModel); this module is its lowering.

    for i in prange(..):              for ic in prange(.., .., MC):      (panels of MC rows)
        for j in range(..):               for j0 in range(jlo, jmid, BJ):  (whole column blocks)
            s = init                          for i0 in range(ic, .., BI):   (the panel's blocks)
            for k in range(..):      ->           acc[ii, jj] = init                  (ii < BI, jj < BJ)
                s = s + a[i, k] * b[k, j]         for k in range(..):
            c[i, j] = s                               acc[ii, jj] = acc[ii, jj] + a[i0 + ii, k] * b[k, j0 + jj]
                                                  c[i0 + ii, j0 + jj] = acc[ii, jj]
                                          then each block's last columns (a partial block where
                                          all its rows have them, the rest as written) and the
                                          panel's last rows (a block of fewer rows).

Each output's sum keeps its order (k ascending, one operation at a time): the result equals
the original's bit for bit. A block's BI x BJ independent chains replace one dependent chain;
each loaded a[i, k] serves BJ of them, each b[k, j] BI, and a panel's blocks of rows read the
same columns of b one after the other, from the core's cache. Where the columns start with
the row (`range(i, n)`) there are no panels: each block of rows takes its columns in turn.
The sums may also live in the element itself (`c[i, j] += a[i, k] * b[k, j]`, maybe scaled
before the loop): such an element becomes a scalar, loaded before and stored after.
Operands read along rows by the middle variable (`a[j, k]`) are read from a transposed copy.

Blocks in panels (columns not starting with the row) are also cache-tiled: 12 rows x one
vector register, k in blocks of the CpuModel's `blocking.k_block` (from the building
machine's L1 and L2), the sums' largest sub-expressions reading k and only one of i and j
(`a[i, k]`, `b[k, j]`, `data[k, i] - mean[i]`) packed per k block, each computed once; a
block's sums between k blocks wait in arrays of partial sums, so each sum still adds its
terms one at a time in k's order and the result is unchanged. Panels are cut at run time for
the threads (unpy_runtime.hpp's panel_rows; triangles in several turns).

Legal when (checked here): the outer level is a prange of step 1 with no reductions whose
body is the middle loop, of step 1 (range or prange, its bounds reading at most the outer
variable), which is a level of the nest (unpy/loopopt/nest.py's cpu_nest: a prange, or a
range loop whose iterations typeinfer/independent_loops proved independent, `For.independent`:
no value flows from one iteration to another through a scalar or an element, so computing a
block's sums before its stores changes nothing; or, `_sums_apart`, one whose sums read no
array the nest writes and no other name it assigns, while the statements after the sums may
carry a value from column to column, as they still run in the columns' order in each row);
the middle loop's body is assignments of
scalars (the accumulators), one inner loop, and statements after it (assignments and ifs);
the inner loop's bounds are invariant in the nest and its body assigns accumulators and
temporaries (each assigned before it is read), with no call that can raise. The proof
compares names: arrays the nest writes must not overlap the others it reads, `disjoint` names
the pairs that cpp_emit checks at run time before it takes the blocked code (the original
runs otherwise, and always under --boundscheck). The middle level's iterations of one row
still run their stores in order; the rows of a block are iterations of the prange, which
SPEC's semantics make independent.
"""
from __future__ import annotations

import dataclasses

from unpy import ir
from unpy.ir import Array, Scalar
from unpy.loopopt.cost import CpuModel
from unpy.loopopt.effects import CPP, cannot_raise, private_scalars, stored_arrays
from unpy.loopopt.nest import address_of, cpu_nest
from unpy.loopopt.register_tiles import Refusal, register_tile
from unpy.loopopt.rewrite import (assign, binop, const, fresh, has_stmt, name, transform,
                                  with_alternatives)
from unpy.typeinfer.independent_loops import with_independent_levels
from unpy.typeinfer.reductions import assigned_names, reads_of, walk_exprs, walk_stmts


# The rows of a nest's panels, computed before it runs (unpy_runtime.hpp's panel_rows: equal
# shares for the threads, in turns of at most `panel_blocks` blocks; TRIANGLE_ROUNDS turns at
# least where later rows have more columns, so that the threads share the long ones).
PANEL_ROWS = "unpy.panel_rows"
TRIANGLE_ROUNDS = 4
BLOCKED_DTYPES = ("float64", "float32", "int64", "int32")


def register_blocks(fn: ir.Function, model: CpuModel) -> ir.Function:
    """`fn` with a `blocked` alternative on each outermost prange nest of the legal form, its
    blocks as `model` says."""
    def blocked(outer, fn, taken, new_locals):
        return _blocked(outer, fn, taken, new_locals, model)
    return with_alternatives(fn, blocked)


def _blocked(outer: ir.For, fn, taken, new_locals, model: CpuModel):
    """(the blocked nest, its disjoint pairs, the transform's name), or None where the nest is
    not of the form."""
    form, order = _contraction(outer, fn, taken), ""
    exchanged = _dot_order(outer)
    if form is None and exchanged is not outer:
        # A new nest: its middle loop's independence is its own (the exchange's condition).
        form = _contraction(with_independent_levels(exchanged, sink=False), fn, taken)
        order = ", in the dot-product order"
    if form is None:
        return None
    middle, pre, inner, post, accumulators = form
    for s in pre:
        new_locals.setdefault(s.target.id, s.value.type)
    dtypes = {new_locals[a].dtype for a in accumulators}
    if len(dtypes) != 1 or not dtypes <= set(BLOCKED_DTYPES):
        return None
    dtype = dtypes.pop()
    # Blocks in panels (columns not starting with the row) read their rows packed.
    panelled = outer.var not in reads_of(middle.start)
    contraction = dataclasses.replace(
        outer, body=[dataclasses.replace(middle, body=pre + [inner] + post)])
    choice = register_tile(cpu_nest(contraction, middle_proved=True),   # (_contraction's)
                           dataclasses.replace(model, packed_rows=panelled))
    if isinstance(choice, Refusal):
        return None
    rows, cols = choice.rows, choice.cols
    applied = f"register_blocks({choice}{', panels' if panelled else ''}{order})"

    i, j = outer.var, middle.var
    int64 = Scalar("int64")
    i0, j0, ii, jj, jhi, jmid, ic, iend = (
        fresh(f"unpy_{x}", taken) for x in ("i0", "j0", "ii", "jj", "jhi", "jmid", "ic", "iend"))
    for v in (i0, j0, ii, jj, jhi, jmid, ic, iend):
        new_locals[v] = int64
    tiles = {a: fresh(f"unpy_tile_{a}", taken) for a in accumulators}
    copies, inner = _transposed_operands(inner, j, taken, new_locals)

    def element(tile):
        return ir.Subscript(ir.Name(tile, type=Array(dtype, 2)), [name(ii), name(jj)],
                            type=Scalar(dtype), in_range=[0, 1])

    def in_block(node):
        """`node` for the block's iteration (i0 + ii, j0 + jj), accumulators in their tiles."""
        def fn_(n):
            if isinstance(n, ir.Name) and n.id == i:
                return binop("+", name(i0), name(ii))
            if isinstance(n, ir.Name) and n.id == j:
                return binop("+", name(j0), name(jj))
            if isinstance(n, ir.Name) and n.id in tiles:
                return element(tiles[n.id])
            return n
        return transform(node, fn_)

    def row_bound(e, pick):
        """`pick` (max or min) of `e` over the block's rows (e itself if it reads no i)."""
        if i not in reads_of(e):
            return e
        values = [substitute(e, i, binop("+", name(i0), const(r))) for r in range(rows)]
        folded = values[0]
        for v in values[1:]:
            folded = ir.Call(pick, [folded, v], type=int64)
        return folded

    def over_block(stmts, simd, nrows=None, ncols=None):
        """`stmts` for each element of the block (`nrows` x `ncols` of them where given):
        whole blocks' rows unrolled (so that C++ keeps the tiles in registers), columns
        vectorised where `simd`."""
        return [ir.For(ii, const(0), nrows or const(rows), const(1), [
            ir.For(jj, const(0), ncols or const(cols), const(1), in_block(stmts), simd=simd)],
            unroll=nrows is None)]

    def tile(nrows=None, ncols=None, sums=inner.body):
        """The block at (i0, j0): its sums in tiles, then its stores."""
        k_loop = dataclasses.replace(inner, body=over_block(sums, True, nrows, ncols))
        return ([ir.LocalTile(t, dtype, [rows, cols]) for t in tiles.values()]
                + over_block(pre, True, nrows, ncols) + [k_loop]
                + over_block(post, False, nrows, ncols))

    # The first column all rows of the block share: an expression, not a variable, so that
    # cpp_emit sees its lower bound (indices it proves non-negative are not wrapped); the
    # bounds below start from it for the same reason.
    start_j, stop_j = middle.start, middle.stop
    jlo = row_bound(start_j, "max")

    def at_least_jlo(v):
        return ir.Call("max", [jlo, name(v)], type=int64)

    common_columns = [      # [jlo, jmid): whole blocks of columns every row of the block has
        assign(jhi, ir.Call("max", [jlo, row_bound(stop_j, "min")], type=int64)),
        assign(jmid, binop("+", jlo, binop("*", binop("//", binop("-", name(jhi), jlo),
                                                         const(cols)), const(cols)))),
    ]

    def row_part(lo, hi, nrows):
        """Each of the block's rows runs the middle loop's original body over [lo, hi)."""
        return [ir.For(i, name(i0), binop("+", name(i0), nrows), const(1), [
            dataclasses.replace(middle, start=lo, stop=hi, parallel=False, body=middle.body)])]

    nrows, ncols = (fresh(f"unpy_{x}", taken) for x in ("nrows", "ncols"))
    new_locals[nrows] = new_locals[ncols] = int64

    def rest_of_block(block_stop):
        """Block i0's rows (`nrows` of them: fewer in a last block ending at `block_stop`)
        beyond what its whole unrolled blocks compute: partial blocks of columns (all of
        them in a block of fewer rows, else the last, narrower one) in one code with run-time
        extents, then each row's columns beyond the common ones, as written."""
        first = ir.IfExp(_compare(name(nrows), "==", const(rows)), name(jmid), jlo, type=int64)
        return [
            assign(nrows, ir.Call("min", [const(rows), binop("-", block_stop, name(i0))],
                                  type=int64)),
            ir.For(j0, ir.Call("max", [jlo, first], type=int64), name(jhi), const(cols), [
                assign(ncols, ir.Call("min", [const(cols), binop("-", name(jhi), name(j0))],
                                      type=int64))] + tile(name(nrows), name(ncols))),
        ] + row_part(at_least_jlo(jhi), stop_j, name(nrows))

    column_blocks = ir.For(j0, jlo, name(jmid), const(cols), tile())
    if panelled:
        temps = _temporaries(inner.body, accumulators)
        k_blocks = _KBlocks(inner, model.blocking.k_block, taken, new_locals)
        packed, packed_sums = _packed_operands(inner, i, j, set(accumulators) | temps,
                                               taken, new_locals)

        def typed(operand):
            return ir.Name(operand.buffer, type=Array(operand.expr.type.dtype,
                                                      1 if operand.rows else 2))

        def packed_element(operand):
            """The packed value of `operand` for element (ii, jj) of block (i0, j0), k."""
            offset = binop("-", name(inner.var), name(k_blocks.kb))
            if operand.rows:       # [block of rows][k][ii]
                index = binop("+", binop("+", binop("*", binop("-", name(i0), name(ic)),
                                                    const(k_blocks.span)),
                                         binop("*", offset, const(rows))), name(ii))
                return ir.Subscript(typed(operand), [index], type=operand.expr.type,
                                    in_range=[0])
            return ir.Subscript(typed(operand), [offset, name(jj)], type=operand.expr.type,
                                in_range=[0, 1])

        # The sums read each packed operand's marker (a name of its buffer) as its element.
        sums = transform(packed_sums, lambda n: packed_element(packed[n.id])
                         if isinstance(n, ir.Name) and n.id in packed else n)
        panel_rows = fresh("unpy_panel_rows", taken)
        new_locals[panel_rows] = int64
        accs = {a: fresh(f"unpy_acc_{a}", taken) for a in accumulators}
        for a, buffer in accs.items():
            new_locals[buffer] = Array(dtype, 2)

        def acc_element(a):
            return ir.Subscript(ir.Name(accs[a], type=Array(dtype, 2)),
                                [binop("-", name(i), name(ic)), binop("-", name(j), jlo)],
                                type=Scalar(dtype), in_range=[0, 1])

        def k_tile():
            """A block's sums over one k block: started (`pre`) in the first, else carried
            over from the panel's partial sums; finished (`post`) in the last, else kept."""
            first = _compare(name(k_blocks.index), "==", const(0))
            last = _compare(name(k_blocks.index), "==", binop("-", name(k_blocks.count),
                                                                 const(1)))
            load = [ir.Assign(ir.Name(a, type=Scalar(dtype)), acc_element(a)) for a in accs]
            keep = [ir.Assign(acc_element(a), ir.Name(a, type=Scalar(dtype))) for a in accs]
            k_loop = dataclasses.replace(inner, start=name(k_blocks.kb),
                                         stop=name(k_blocks.kend),
                                         body=over_block(sums, True))
            return ([ir.LocalTile(t, dtype, [rows, cols]) for t in tiles.values()]
                    + [ir.If(first, over_block(pre, True), over_block(load, True)), k_loop,
                       ir.If(last, over_block(post, False), over_block(keep, True))])

        def pack(operand, block_start):
            """Statements packing `operand` for the k block: a panel's whole blocks of rows
            (`block_start` the first row of each), or the block of columns at j0."""
            value = operand.expr
            if operand.rows:
                value = substitute(value, i, binop("+", name(i0), name(ii)))
                loop = ir.For(ii, const(0), const(rows), const(1), [ir.Assign(
                    packed_element(operand), value)], unroll=True)
                return [ir.For(i0, name(ic), block_start, const(rows), [
                    dataclasses.replace(inner, start=name(k_blocks.kb), stop=name(k_blocks.kend),
                                        body=[loop])])]
            value = substitute(value, j, binop("+", name(j0), name(jj)))
            return [dataclasses.replace(inner, start=name(k_blocks.kb), stop=name(k_blocks.kend),
                                        body=[ir.For(jj, const(0), const(cols), const(1), [
                                            ir.Assign(packed_element(operand), value)],
                                            simd=True)])]

        def buffers(panel):
            made = []
            for operand in packed.values():
                shape = ([binop("*", panel, const(k_blocks.span))] if operand.rows
                         else [const(k_blocks.span), const(cols)])
                buffer = typed(operand)
                new_locals[operand.buffer] = buffer.type
                made.append(ir.Assign(buffer, ir.AllocArray("empty", shape, buffer.type.dtype,
                                                            type=buffer.type)))
            return made

        code = _PanelCode(k_blocks, buffers, pack, [o for o in packed.values() if o.rows],
                          [o for o in packed.values() if not o.rows], k_tile(), accs, dtype,
                          jlo, panel_rows)
        return copies + _panels(outer, common_columns, column_blocks, code, rest_of_block,
                                rows, model.blocking.panel_blocks,
                                *(name(v) for v in (i0, ic, iend))), \
            _disjoint_pairs(outer), applied
    # Columns start with the row (`range(i, n)`): blocks of rows one at a time, each with the
    # columns left of the common range row by row.
    whole = _compare(binop("+", name(i0), const(rows)), "<=", outer.stop)
    rest = rest_of_block(outer.stop)
    blocked = ir.For(i0, outer.start, outer.stop, const(rows), rest[:1] + common_columns
                     + row_part(start_j, ir.Call("min", [jlo, stop_j], type=int64), name(nrows))
                     + [ir.If(whole, [column_blocks], [])] + rest[1:],
                     parallel=True, loc=outer.loc)
    return copies + [blocked], _disjoint_pairs(outer), applied


@dataclasses.dataclass
class _KBlocks:
    """The inner loop in blocks of `k_block` iterations (all of them in one block where its
    step is negative): block `index` of `count` runs k over [kb, kend). `span`: the values of
    k a block spans (the packed buffers' extent along k)."""
    inner: ir.For
    k_block: int
    taken: set
    new_locals: dict

    def __post_init__(self):
        self.index, self.count, self.kb, self.kend = (
            fresh(f"unpy_{x}", self.taken) for x in ("kbi", "kbn", "kb", "kend"))
        for v in (self.index, self.count, self.kb, self.kend):
            self.new_locals[v] = Scalar("int64")
        self.step = self.inner.step.value
        self.tiled = self.step > 0
        self.span = self.k_block * self.step

    def count_stmt(self) -> ir.Assign:
        if not self.tiled:
            return assign(self.count, const(1))
        start, stop, step = self.inner.start, self.inner.stop, const(self.step)
        trips = ir.Call("max", [const(0), binop("//", binop("+", binop("-", stop, start),
                                                           binop("-", step, const(1))), step)],
                        type=Scalar("int64"))
        return assign(self.count, ir.Call("max", [const(1), binop("//", binop(
            "+", trips, const(self.k_block - 1)), const(self.k_block))], type=Scalar("int64")))

    def bounds(self) -> list:
        if not self.tiled:
            return [assign(self.kb, self.inner.start), assign(self.kend, self.inner.stop)]
        return [assign(self.kb, binop("+", self.inner.start, binop("*", name(self.index),
                                                                   const(self.span)))),
                assign(self.kend, ir.Call("min", [binop("+", name(self.kb), const(self.span)),
                                                  self.inner.stop], type=Scalar("int64")))]


@dataclasses.dataclass
class _PanelCode:
    """The parts of a panel's packed, k-blocked code that `_blocked` makes for `_panels`:
    `buffers(panel rows)` allocates the packed operands, `pack(operand, stop of the first
    rows of whole blocks)` packs one for a k block, `tile` is a block's code for a k block,
    `accs` the accumulators' arrays of partial sums (accumulator -> name)."""
    k_blocks: _KBlocks
    buffers: object
    pack: object
    row_operands: list
    column_operands: list
    tile: list
    accs: dict
    dtype: str
    jlo: object
    panel_rows: str


def _panels(outer, common_columns, column_blocks, code: _PanelCode, rest_of_block, rows,
            panel_blocks, i0, ic, iend):
    """The blocks in row panels: each parallel iteration takes up to `panel_blocks` blocks of
    rows and runs, for each k block (`code.k_blocks`' iterations of the inner loop), its
    operands packed (the rows' operands of all its blocks, then each block of columns' in
    turn), and for each block of columns its blocks of rows one after the other, so that the
    columns' packed operand (k block x BJ) comes from L1 and the rows' (panel x k block) from
    L2 (going through all columns for one block of rows at a time reads the whole of `b` from
    memory again for every block). A block's sums between k blocks are kept in the panel's
    arrays of partial sums (`acc[i - ic, j - jlo]`): each sum still adds its terms in k's
    order. Then each block's rest (a last block of fewer rows included), as before. Panels
    are cut for the threads at run time (PANEL_ROWS)."""
    int64 = Scalar("int64")
    triangle = i0.id in reads_of(common_columns[0].value)
    panel = name(code.panel_rows)
    jhi, jmid = (a.target for a in common_columns)
    j0 = column_blocks.var

    def jmid_of_block(first_row):
        """jmid of the block starting at `first_row`, as an expression."""
        hi = substitute(common_columns[0].value, i0.id, first_row)
        return substitute(substitute(common_columns[1].value, jhi.id, hi), i0.id, first_row)

    k_blocks = code.k_blocks
    whole_blocks = binop("*", binop("//", binop("-", iend, ic), const(rows)), const(rows))
    last_block = binop("+", ic, binop("-", whole_blocks, const(rows)))
    blocks_stop = binop("+", binop("-", iend, const(rows)), const(1))
    fits = _compare(binop("+", name(j0), column_blocks.step), "<=", jmid)
    columns_stop = ir.Call("max", [jmid_of_block(ic), jmid_of_block(last_block)], type=int64)
    by_columns = dataclasses.replace(column_blocks, stop=columns_stop, body=[
        s for operand in code.column_operands for s in code.pack(operand, blocks_stop)] + [
        ir.For(i0.id, ic, blocks_stop, const(rows),
               common_columns + [ir.If(fits, code.tile, [])])])
    partial_rows = ir.IfExp(_compare(name(k_blocks.count), ">", const(1)),
                            binop("-", iend, ic), const(0), type=int64)
    accs = [ir.Assign(ir.Name(buffer, type=Array(code.dtype, 2)), ir.AllocArray(
        "empty", [partial_rows, binop("-", columns_stop, code.jlo)], code.dtype,
        type=Array(code.dtype, 2))) for buffer in code.accs.values()]
    by_k = ir.For(k_blocks.index, const(0), name(k_blocks.count), const(1), k_blocks.bounds() + [
        s for operand in code.row_operands for s in code.pack(operand, blocks_stop)]
        + [by_columns])
    rest = rest_of_block(iend)
    # Once, before the nest (omp_get_max_threads() differs inside it).
    rows_of_panel = assign(code.panel_rows, ir.Call(PANEL_ROWS, [
        binop("-", outer.stop, outer.start), const(rows), const(panel_blocks),
        const(TRIANGLE_ROUNDS if triangle else 1)], type=int64))
    return [rows_of_panel, ir.For(ic.id, outer.start, outer.stop, panel, [
        assign(iend.id, ir.Call("min", [binop("+", ic, panel), outer.stop], type=int64)),
        ir.If(_compare(binop("-", iend, ic), ">=", const(rows)),
              code.buffers(binop("-", iend, ic)) + [k_blocks.count_stmt()] + accs + [by_k], []),
        ir.For(i0.id, ic, iend, const(rows), rest[:1] + common_columns + rest[1:])],
        parallel=True, loc=outer.loc)]


@dataclasses.dataclass
class _Packed:
    """An operand of the sums that reads the rows' variable and k (`rows`) or the columns'
    and k, packed into `buffer` for each k block."""
    expr: object
    rows: bool
    buffer: str


def _packed_operands(inner: ir.For, i: str, j: str, varying: set, taken, new_locals):
    """({marker: _Packed}, the inner loop's body reading the markers) for the largest
    expressions of the sums that read k and one of i and j (not the other, nor an
    accumulator or temporary, `varying`): `a[i, k]`, `b[k, j]`, covariance's
    `data[k, i] - mean[i]`. Each is computed once per element it is for, in the packing
    loops, instead of once per output element: the same operations on the same values, the
    same result. The packing runs the inner loop's own range, so it reads exactly the
    elements the sums read, and only where every one of them is read whatever the values (no
    conditional expression in the sums; nothing packed otherwise, nor where k steps down)."""
    k = inner.var
    if inner.step.value <= 0 or any(isinstance(e, (ir.IfExp, ir.BoolOp))
                                    for e in walk_exprs(inner.body)):
        return {}, inner.body
    found, markers = {}, {}

    def side(e):
        """True: a rows' operand, False: a columns', None: neither."""
        if not (isinstance(e, (ir.Subscript, ir.BinOp, ir.UnaryOp, ir.Cast, ir.Call))
                and isinstance(e.type, Scalar)) or not any(
                    isinstance(x, ir.Subscript) for x in walk_exprs(e)):
            return None
        names = set(reads_of(e))
        if k not in names or names & varying or (i in names) == (j in names):
            return None
        return i in names

    def visit(e):
        rows = side(e) if dataclasses.is_dataclass(e) else None
        if rows is not None:
            key = (ir.format_expr(e), rows)
            if key not in found:
                marker = fresh(f"unpy_{'a' if rows else 'b'}_p", taken)
                found[key] = markers[marker] = _Packed(e, rows, marker)
            return ir.Name(found[key].buffer, type=e.type)
        if isinstance(e, list):
            return [visit(x) for x in e]
        if not dataclasses.is_dataclass(e) or isinstance(e, (type, Scalar, Array)):
            return e
        return dataclasses.replace(e, **{f.name: visit(getattr(e, f.name))
                                         for f in dataclasses.fields(e)
                                         if f.name not in ("type", "loc", "reductions",
                                                           "target")})
    body = [dataclasses.replace(s, value=visit(s.value)) for s in inner.body]
    return markers, body


def _transposed_operands(inner: ir.For, j: str, taken, new_locals):
    """(statements making transposed copies, the inner loop reading them) for the matrices
    the sums read along their rows by the middle variable (`a[j, k]`): in the blocked code
    a block's columns then read neighbouring elements `at[k, j0 + jj]`, which vectorise,
    instead of BJ rows. A copy costs one pass over the matrix; the nest reads it BI times."""
    k = inner.var
    names, copies = {}, []

    def along_rows(e):
        return (isinstance(e, ir.Subscript) and e.array.type.ndim == 2
                and address_of(e).oriented(j, k))

    def swap(e):
        if not along_rows(e):
            return e
        array = e.array.id
        if array not in names:
            names[array] = fresh(f"unpy_{array}_t", taken)
            copies.extend(_transposed_copy(e.array, names[array], taken, new_locals))
        t = ir.Name(names[array], type=e.array.type)
        return dataclasses.replace(e, array=t, indices=e.indices[::-1],
                                   in_range=[1 - d for d in e.in_range])

    return copies, dataclasses.replace(inner, body=transform(inner.body, swap))


def _transposed_copy(array: ir.Name, copy: str, taken, new_locals) -> list:
    """`copy = array.T` as a new C-ordered matrix, a row of the copy per parallel iteration."""
    dtype = array.type.dtype
    new_locals[copy] = array.type
    r, c = fresh("unpy_r", taken), fresh("unpy_c", taken)
    new_locals[r] = new_locals[c] = Scalar("int64")

    def extent(d):
        return ir.ArrayAttr(array, "shape", d, type=Scalar("int64"))

    def element(a, first, second):
        return ir.Subscript(a, [name(first), name(second)], type=Scalar(dtype),
                            in_range=[0, 1])
    copy_name = ir.Name(copy, type=array.type)
    return [ir.Assign(copy_name, ir.AllocArray("empty", [extent(1), extent(0)], dtype,
                                               type=array.type)),
            ir.For(r, const(0), extent(1), const(1), [
                ir.For(c, const(0), extent(0), const(1), [
                    ir.Assign(element(copy_name, r, c), element(array, c, r))])],
                parallel=True)]


def _dot_order(outer: ir.For) -> ir.For:
    """The nest in the dot-product order where it is written in the i-k-j order of tuned
    loops (and of PolyBench's gemm), else `outer` itself:

        for i in prange(m):                          for i in prange(m):
            for j in range(n):                           for j in range(n):
                c[i, j] *= beta                              c[i, j] *= beta
            for k in range(p):                  ->           for k in range(p):
                aik = alpha * a[i, k]                            aik = alpha * a[i, k]
                for j in range(n):                               c[i, j] += aik * b[k, j]
                    c[i, j] += aik * b[k, j]

    Each element sees the same operations in the same order, provided that the iterations
    over j are independent and the values computed per k (`aik`) do not depend on j: the
    second is checked here, the first is the exchanged middle loop's independence
    (typeinfer/independent_loops), which the caller asks of the result."""
    body = outer.body
    if not (1 <= len(body) <= 2 and all(isinstance(s, ir.For) for s in body)):
        return outer
    *first, k_loop = body
    if not k_loop.body or not isinstance(k_loop.body[-1], ir.For):
        return outer
    *per_k, j_loop = k_loop.body
    if first and not (first[0].var == j_loop.var and
                      _same_range(first[0], j_loop)) or has_stmt(per_k + j_loop.body, (ir.For, ir.While)):
        return outer
    if j_loop.var in reads_of(per_k) or not all(isinstance(s, ir.Assign)
                                                and isinstance(s.target, ir.Name)
                                                for s in per_k):
        return outer
    swapped = dataclasses.replace(k_loop, body=per_k + j_loop.body)
    middle = dataclasses.replace(j_loop, body=(first[0].body if first else []) + [swapped],
                                 parallel=False)
    return dataclasses.replace(outer, body=[middle])


def _monotone_in(e, i: str) -> bool:
    """Whether `e` is a sum of terms that are `i`, constants or values of names other than
    `i` (so it grows or shrinks with `i` and its extremes over rows are at the end rows)."""
    if isinstance(e, ir.BinOp) and e.op in ("+", "-"):
        return _monotone_in(e.left, i) and _monotone_in(e.right, i)
    if isinstance(e, ir.Cast):
        return _monotone_in(e.value, i)
    return (isinstance(e, ir.Name) or i not in reads_of(e)) and not any(
        isinstance(x, ir.Subscript) for x in walk_exprs(e))


def _same_range(a: ir.For, b: ir.For) -> bool:
    return all(ir.format_expr(x) == ir.format_expr(y) for x, y in
               ((a.start, b.start), (a.stop, b.stop), (a.step, b.step)))


def _contraction(outer: ir.For, fn, taken):
    """(middle, pre, inner, post, accumulators) of a nest of the legal form, else None."""
    if not (unit_step(outer) and not outer.reductions and len(outer.body) == 1):
        return None
    middle = outer.body[0]
    if not (isinstance(middle, ir.For) and unit_step(middle) and not middle.reductions):
        return None
    loops = [k for k, s in enumerate(middle.body) if isinstance(s, ir.For)]
    if len(loops) != 1:
        return None
    pre, inner, post = (middle.body[:loops[0]], middle.body[loops[0]],
                        middle.body[loops[0] + 1:])
    if inner.parallel or not isinstance(inner.step, ir.Const):
        return None
    replaced = _element_accumulators(pre, inner, post, outer, middle, taken)
    if replaced is None:
        return None
    loads, pre, inner, post, stores = replaced
    if not all(isinstance(s, ir.Assign) and isinstance(s.target, ir.Name) and not s.atomic
               for s in pre + inner.body):
        return None
    accumulators = list(dict.fromkeys(s.target.id for s in loads + pre))
    temps = _temporaries(inner.body, accumulators)
    if not accumulators or temps is None or set(reads_of(pre + post)) & temps:
        return None
    if any(isinstance(fn.locals.get(a), Array) for a in accumulators):
        return None
    if not all(isinstance(s, (ir.Assign, ir.If)) for s in post) or any(
            isinstance(s, (ir.For, ir.While, ir.Break, ir.Continue, ir.Return, ir.Raise))
            for s in walk_stmts(post)):
        return None
    nest_assigned = set(assigned_names(outer.body)) | {outer.var}
    i, j, k = outer.var, middle.var, inner.var
    # The loop variables stay what their loops make them.
    if {i, j, k} & {s.target.id for s in walk_stmts(outer.body)
                    if isinstance(s, ir.Assign) and isinstance(s.target, ir.Name)}:
        return None
    if set(reads_of([middle.start, middle.stop])) & (nest_assigned - {i}):
        return None
    if not all(_monotone_in(e, i) for e in (middle.start, middle.stop)):
        return None         # the blocks' common columns come from their first and last rows
    if set(reads_of([inner.start, inner.stop])) & nest_assigned:
        return None
    if set(reads_of(post)) & {k}:
        return None
    if not plain_expressions(pre + inner.body) or not plain_expressions(post, calls=True):
        return None
    if not (middle.parallel or middle.independent
            or _sums_apart(outer, pre + inner.body, nest_assigned - {i, j, k, *accumulators,
                                                                     *temps})):
        return None
    return middle, loads + pre, inner, post + stores, accumulators


def _sums_apart(outer: ir.For, sums: list, assigned: set) -> bool:
    """Whether the sums read no array the nest writes and no other name it assigns: computed
    for a block before its stores, they are the same, while the statements after them still
    run in the columns' order in each row. So a middle loop whose iterations are not
    independent may be blocked all the same (a running `best[i] = max(best[i], s)` over the
    columns of row i)."""
    written = stored_arrays(outer.body)
    return not (set(reads_of(sums)) & assigned) and not (
        {e.array.id for e in walk_exprs(sums) if isinstance(e, ir.Subscript)} & written)


def _element_accumulators(pre, inner: ir.For, post, outer: ir.For, middle: ir.For, taken):
    """(loads, pre, inner, post, stores): the elements the middle loop's body keeps its sums in
    (the textbook `c[i, j] = c[i, j] + a[i, k] * b[k, j]`, maybe scaled before the inner loop:
    an element of each iteration, indexed by the outer and middle variables themselves and
    otherwise by values the nest does not assign) become scalars, loaded before and stored
    after, where the body touches those arrays at no other element. None where the inner loop
    or the statements before it write another kind of element."""
    i, j = outer.var, middle.var
    assigned = set(assigned_names(outer.body))
    body = pre + [inner] + post
    found = {}
    for s in walk_stmts(pre + [inner]):
        if isinstance(s, (ir.Assign, ir.AugAssign)) and isinstance(s.target, ir.Subscript):
            index_names = [x.id for x in s.target.indices if isinstance(x, ir.Name)]
            if s.atomic or i not in index_names or j not in index_names or (
                    set(reads_of(s.target.indices)) & assigned - {i, j}):
                return None
            found.setdefault(ir.format_expr(s.target), s.target)
    arrays = {t.array.id for t in found.values()}
    if any(isinstance(e, ir.Subscript) and e.array.id in arrays and ir.format_expr(e) not in found
           for e in walk_exprs(body)):
        return None
    scalars = {text: fresh("unpy_acc", taken) for text in found}

    def scalar(text):
        return ir.Name(scalars[text], type=found[text].type)

    def replace(n):
        if isinstance(n, ir.Subscript) and ir.format_expr(n) in scalars:
            return scalar(ir.format_expr(n))
        return n
    loads = [ir.Assign(scalar(text), element) for text, element in found.items()]
    stores = [ir.Assign(element, scalar(text)) for text, element in found.items()]
    pre, inner, post = transform([pre, inner, post], replace)
    return loads, pre, inner, post, stores


def _temporaries(body, accumulators):
    """The other names the inner loop's body assigns, each assigned before it is read in an
    iteration (so that each element of a block has its own), or None if one is not."""
    temps = {s.target.id for s in body} - set(accumulators)
    return temps if private_scalars(body, temps) else None


def plain_expressions(stmts, calls=False) -> bool:
    """No node that has effects beyond its value or that C++ cannot vectorise: no compiled
    call, walrus, array-valued node; nothing that can raise in the C++ path's code (effects.CPP:
    calls only of functions that cannot raise, no integer division), but where `calls` (the
    statements after the sums run unvectorised and keep their checks)."""
    for e in walk_exprs(stmts):
        if isinstance(e, (ir.CallCompiled, ir.NamedExpr, ir.StridedView, ir.Reshape,
                          ir.AllocArray, ir.TupleValue, ir.TupleItem)):
            return False
        if isinstance(e, ir.Subscript) and not all(isinstance(x.type, Scalar) for x in e.indices):
            return False
    return calls or cannot_raise(stmts, CPP)


def _disjoint_pairs(outer: ir.For) -> list:
    """[written, read] pairs of the arrays the nest writes and the others it reads: the
    blocked code reorders the accesses of different elements, which is the same only where
    different names are different memory."""
    read = {e.array.id for e in walk_exprs(outer.body) if isinstance(e, ir.Subscript)}
    written = stored_arrays(outer.body)
    return [[w, r] for w in sorted(written) for r in sorted(read - {w})]


def _compare(left, op: str, right) -> ir.Compare:
    """`left op right` of two int64 values."""
    return ir.Compare(left, [op], [right], type=Scalar("bool"),
                      operand_types=[["int64", "int64"]])


def substitute(node, var: str, value):
    return transform(node, lambda n: value if isinstance(n, ir.Name) and n.id == var else n)


def unit_step(loop) -> bool:
    return isinstance(loop, ir.For) and isinstance(loop.step, ir.Const) and loop.step.value == 1
