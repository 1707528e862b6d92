"""register_blocks: an outermost prange nest whose inner loop sums into per-iteration values
(the dot-product order users write matrix products, Gram and covariance matrices, syrk,
distance matrices in) gets a register-blocked alternative for the C++ path: BI x BJ blocks of
the two outer levels' iterations, their sums in local tiles, the inner loop's body vectorised
across a block's columns (the CPU counterpart of jitgpu/loopopt/register_tiles).

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

Legal when (checked here): the outer level is a prange of step 1 with no reductions whose
body is the middle loop, of step 1 (range or prange, its bounds reading at most the outer
variable); the middle loop's body is assignments of scalars (the accumulators), one inner
loop, and statements after it (assignments and ifs); the inner loop's bounds are invariant in
the nest and its body assigns accumulators and temporaries (each assigned before it is read);
what the accumulators and the inner loop read is the loop variables, the accumulators, the
temporaries, values the nest does not assign, and arrays the nest does not write (so
computing a block's sums before its stores changes nothing), with no call that can raise.
Arrays the nest writes must not overlap those it reads: `disjoint` names the pairs that
cpp_emit checks at run time before it takes the blocked code (the original runs otherwise,
and always under --boundscheck). The middle level's iterations of one row still run their
stores in order; the rows of a block are iterations of the prange, which SPEC's semantics
make independent.
"""
from __future__ import annotations

import dataclasses

from unpy import ir
from unpy.ir import Array, Scalar
from unpy.loopopt.rewrite import assign, binop, const, fresh, has_stmt, name, transform
from unpy.typeinfer.reductions import assigned_names, reads_of, walk_exprs, walk_stmts


def _cpu_flags() -> set:
    try:
        with open("/proc/cpuinfo") as f:
            return next((set(line.split(":", 1)[1].split()) for line in f
                         if line.startswith("flags")), set())
    except OSError:
        return set()


ROWS = 6                        # BI: rows of a block (outer-level iterations)
PANEL_BLOCKS = 8                # blocks of rows a parallel iteration takes at most
PANEL_COUNT = 32                # the panels a nest is cut into at least, where it has the rows
# A block's row is two vector registers (BJ columns): AVX-512's where the building machine has
# it (unpy builds for the machine it runs on, -march=native), else AVX2's.
VECTOR_BYTES = 64 if "avx512f" in _cpu_flags() else 32
BLOCKED_DTYPES = ("float64", "float32", "int64", "int32")
# Calls that cannot raise (math.* checks domains and raises; np.* gives NaN like NumPy).
SAFE_CALL_PREFIXES = ("np.", "cast:", "min", "max", "abs", "float", "int")


def register_blocks(fn: ir.Function) -> ir.Function:
    """`fn` with a `blocked` alternative on each outermost prange nest of the legal form."""
    taken = set(fn.locals) | {p.name for p in fn.params}
    new_locals = dict(fn.locals)

    def visit(body):
        out = []
        for s in body:
            if isinstance(s, ir.For) and s.parallel:
                blocked = _blocked(s, fn, taken, new_locals)
                out.append(dataclasses.replace(s, blocked=blocked[0], disjoint=blocked[1])
                           if blocked else s)
            elif isinstance(s, (ir.For, ir.While)):
                out.append(dataclasses.replace(s, body=visit(s.body)))
            elif isinstance(s, ir.If):
                out.append(dataclasses.replace(s, body=visit(s.body), orelse=visit(s.orelse)))
            else:
                out.append(s)
        return out

    body = visit(fn.body)
    return dataclasses.replace(fn, body=body, locals=new_locals)


def _blocked(outer: ir.For, fn, taken, new_locals):
    """(the blocked nest, its disjoint pairs), or None where the nest is not of the form."""
    form = _contraction(outer, fn, taken)
    exchanged = _dot_order(outer)
    if form is None and exchanged is not outer:
        form = _contraction(exchanged, fn, taken)
    if form is None:
        return None
    middle, pre, inner, post, accumulators = form
    for s in pre:
        new_locals.setdefault(s.target.id, s.value.type)
    dtypes = {new_locals[a].dtype for a in accumulators}
    if len(dtypes) != 1 or not dtypes <= set(BLOCKED_DTYPES):
        return None
    dtype = dtypes.pop()
    rows = max(2, ROWS // len(accumulators))
    cols = 2 * VECTOR_BYTES // _itemsize(dtype)

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
        values = [_substitute(e, i, binop("+", name(i0), const(r))) for r in range(rows)]
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
    if i not in reads_of(start_j):
        buffers, pack, packed_sums = _packed_columns(inner, j, j0, jj, cols, taken, new_locals)
        return copies + [_panels(outer, common_columns, column_blocks, (buffers, pack,
                                 tile(sums=packed_sums)), rest_of_block, rows,
                                 *(name(v) for v in (i0, ic, iend)))], _disjoint_pairs(outer)
    # Columns start with the row (`range(i, n)`): blocks of rows one at a time, each with the
    # columns left of the common range row by row.
    whole = _compare(binop("+", name(i0), const(rows)), "<=", outer.stop)
    rest = rest_of_block(outer.stop)
    blocked = ir.For(i0, outer.start, outer.stop, const(rows), rest[:1] + common_columns
                     + row_part(start_j, ir.Call("min", [jlo, stop_j], type=int64), name(nrows))
                     + [ir.If(whole, [column_blocks], [])] + rest[1:],
                     parallel=True, loc=outer.loc)
    return copies + [blocked], _disjoint_pairs(outer)


def _panels(outer, common_columns, column_blocks, packing, rest_of_block, rows, i0, ic, iend):
    """The blocks in row panels: each parallel iteration takes up to PANEL_BLOCKS blocks of
    rows and runs, for each block of columns, its blocks of rows one after the other, so
    that the columns' operand (`b[k, j0:j0 + BJ]` for every k) comes from the core's cache
    for all but the first (going through all columns for one block of rows at a time reads
    the whole of `b` from memory again for every block). Then each block's rest (a last
    block of fewer rows included). Panels shrink to keep about PANEL_COUNT of them for the
    threads. `packing`: (the panel's buffers, the statements packing a block of columns into
    them, the block's code reading them)."""
    int64 = Scalar("int64")
    panel = ir.Call("max", [const(rows), binop("*", ir.Call("min", [
        const(PANEL_BLOCKS), binop("//", binop("-", outer.stop, outer.start),
                                   const(rows * PANEL_COUNT))], type=int64), const(rows))],
        type=int64)
    jhi, jmid = (a.target for a in common_columns)
    j0 = column_blocks.var

    def jmid_of_block(first_row):
        """jmid of the block starting at `first_row`, as an expression."""
        hi = _substitute(common_columns[0].value, i0.id, first_row)
        return _substitute(_substitute(common_columns[1].value, jhi.id, hi), i0.id, first_row)

    buffers, pack, packed_tile = packing
    whole_blocks = binop("*", binop("//", binop("-", iend, ic), const(rows)), const(rows))
    last_block = binop("+", ic, binop("-", whole_blocks, const(rows)))
    fits = _compare(binop("+", name(j0), column_blocks.step), "<=", jmid)
    by_columns = dataclasses.replace(column_blocks, stop=ir.Call("max", [
        jmid_of_block(ic), jmid_of_block(last_block)], type=int64), body=pack + [
        ir.For(i0.id, ic, binop("+", binop("-", iend, const(rows)), const(1)), const(rows),
               common_columns + [ir.If(fits, packed_tile, [])])])
    rest = rest_of_block(iend)
    return ir.For(ic.id, outer.start, outer.stop, panel, [
        assign(iend.id, ir.Call("min", [binop("+", ic, panel), outer.stop], type=int64)),
        ir.If(_compare(binop("-", iend, ic), ">=", const(rows)), buffers + [by_columns], []),
        ir.For(i0.id, ic, iend, const(rows), rest[:1] + common_columns + rest[1:])],
        parallel=True, loc=outer.loc)


def _packed_columns(inner: ir.For, j: str, j0: str, jj: str, cols: int, taken, new_locals):
    """(buffers, packing statements, the inner loop's body reading them) for the operands the
    sums read by column (`b[k, j]`): each block of columns is copied into a buffer of its own,
    `bp[k, jj] = b[k, j0 + jj]`, once per panel, so that the panel's blocks of rows read it as
    consecutive memory (a column block of `b` itself is BJ elements of every row, a page
    apart in a large matrix). The copy runs the inner loop's own range and index, so it reads
    exactly the elements the sums read, and only where every one of them is read whatever the
    values (no conditional expression in the sums). No buffers where nothing qualifies."""
    k = inner.var
    if any(isinstance(e, (ir.IfExp, ir.BoolOp)) for e in walk_exprs(inner.body)):
        return [], [], inner.body
    buffers, packs, names = [], [], {}

    def by_column(e):
        return (isinstance(e, ir.Subscript) and e.array.type.ndim == 2
                and isinstance(e.indices[1], ir.Name) and e.indices[1].id == j
                and k in reads_of(e.indices[0]) and j not in reads_of(e.indices[0]))

    def packed(e):
        if not by_column(e):
            return e
        key = (e.array.id, ir.format_expr(e.indices[0]))
        if key not in names:
            buffer = names[key] = fresh(f"unpy_{e.array.id}_p", taken)
            array_type = e.array.type
            new_locals[buffer] = array_type
            rows = ir.ArrayAttr(e.array, "shape", 0, type=Scalar("int64"))
            buffers.append(ir.Assign(ir.Name(buffer, type=array_type),
                                     ir.AllocArray("empty", [rows, const(cols)],
                                                   array_type.dtype, type=array_type)))
            read = dataclasses.replace(e, indices=[e.indices[0], binop("+", name(j0),
                                                                       name(jj))])
            packs.append(ir.Assign(_packed_element(e, buffer, jj), read))
        return _packed_element(e, names[key], jj)

    body = transform(inner.body, packed)
    if not packs:
        return [], [], inner.body
    pack = dataclasses.replace(inner, body=[ir.For(jj, const(0), const(cols), const(1), packs,
                                                   simd=True)])
    return buffers, [pack], body


def _packed_element(e: ir.Subscript, buffer: str, jj: str) -> ir.Subscript:
    return dataclasses.replace(e, array=ir.Name(buffer, type=e.array.type),
                               indices=[e.indices[0], name(jj)],
                               in_range=[d for d in e.in_range if d == 0] + [1])


def _transposed_operands(inner: ir.For, j: str, taken, new_locals):
    """(statements making transposed copies, the inner loop reading them) for the matrices
    the sums read along their rows by the middle variable (`a[j, k]`): in the blocked code
    a block's columns then read neighbouring elements `at[k, j0 + jj]`, which vectorise,
    instead of BJ rows. A copy costs one pass over the matrix; the nest reads it BI times."""
    k = inner.var
    names, copies = {}, []

    def along_rows(e):
        return (isinstance(e, ir.Subscript) and e.array.type.ndim == 2
                and j in reads_of(e.indices[0]) and k not in reads_of(e.indices[0])
                and k in reads_of(e.indices[1]) and j not in reads_of(e.indices[1]))

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
    caller's checks of the result (elements indexed by i and j themselves, the only ones of
    their arrays that the nest touches) make sure of both."""
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
    if not (_unit_step(outer) and not outer.reductions and len(outer.body) == 1):
        return None
    middle = outer.body[0]
    if not (isinstance(middle, ir.For) and _unit_step(middle) and not middle.reductions):
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
    allowed = {i, j, k, *accumulators, *temps}
    if set(reads_of(pre + inner.body)) & nest_assigned - allowed:
        return None
    if set(reads_of(post)) & {k}:
        return None
    written = _written_arrays(outer)
    if {e.array.id for e in walk_exprs(pre + inner.body) if isinstance(e, ir.Subscript)} \
            & written:
        return None
    if not _plain_expressions(pre + inner.body) or not _plain_expressions(post, calls=True):
        return None
    return middle, loads + pre, inner, post + stores, accumulators


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
    defined = set()
    for s in body:
        if set(reads_of(s.value)) & (temps - defined):
            return None
        if s.target.id in temps:
            defined.add(s.target.id)
    return temps


def _plain_expressions(stmts, calls=False) -> bool:
    """No node that has effects beyond its value or that C++ cannot vectorise: no compiled
    call, walrus, array-valued node; calls only of functions that cannot raise (any call where
    `calls`: the statements after the sums run unvectorised and keep their checks)."""
    for e in walk_exprs(stmts):
        if isinstance(e, (ir.CallCompiled, ir.NamedExpr, ir.StridedView, ir.Reshape,
                          ir.AllocArray, ir.TupleValue, ir.TupleItem)):
            return False
        if isinstance(e, ir.Subscript) and not all(isinstance(x.type, Scalar) for x in e.indices):
            return False
        if isinstance(e, ir.Call) and not calls and not e.func.startswith(SAFE_CALL_PREFIXES):
            return False
        if not calls and isinstance(e, ir.BinOp) and e.op in ("//", "%", "/", "**") and (
                e.type.dtype[0] in "iu" or ir.is_converted_integer(e.right)):
            return False            # an integer division by zero raises
    return True


def _written_arrays(outer: ir.For) -> set:
    return {s.target.array.id for s in walk_stmts(outer.body)
            if isinstance(s, (ir.Assign, ir.AugAssign)) and isinstance(s.target, ir.Subscript)}


def _disjoint_pairs(outer: ir.For) -> list:
    """[written, read] pairs of the arrays the nest writes and the others it reads: the
    blocked code reorders the accesses of different elements, which is the same only where
    different names are different memory."""
    read = {e.array.id for e in walk_exprs(outer.body) if isinstance(e, ir.Subscript)}
    written = _written_arrays(outer)
    return [[w, r] for w in sorted(written) for r in sorted(read - {w})]


def _compare(left, op: str, right) -> ir.Compare:
    """`left op right` of two int64 values."""
    return ir.Compare(left, [op], [right], type=Scalar("bool"),
                      operand_types=[["int64", "int64"]])


def _substitute(node, var: str, value):
    return transform(node, lambda n: value if isinstance(n, ir.Name) and n.id == var else n)


def _unit_step(loop) -> bool:
    return isinstance(loop, ir.For) and isinstance(loop.step, ir.Const) and loop.step.value == 1


def _itemsize(dtype: str) -> int:
    return int(dtype[-2:]) // 8
