"""interchange: loop nests of the C++ path whose innermost loop walks the rows of row-major
arrays (a stride of a whole row per iteration) while a loop outside it walks along the rows
get an alternative form whose innermost loop walks along the rows (unit stride), run where
its run-time conditions hold (as register_blocks' forms: `For.blocked`). Two forms:

1. Strips of a prange's iterations, the loop inside them innermost (strip-mine and
   interchange), with scalar expansion of the values each iteration keeps across the inner
   loop (column sums `s += a[i, j]` with `s` per `j`): the unroll-and-jam of the prange by W
   both back ends choose alike (unpy/loopopt/unroll_and_jam.py; W: CpuModel.strip_width), lowered
   to strips:

       for j in prange(lo, hi):              for jb in prange(lo, hi, W):
           s = 0.0                               jend = min(jb + W, hi)
           for i in range(n):          ->        for j in range(jb, jend): s_[j - jb] = 0.0
               s = s + a[i, j]                   for i in range(n):
           out[j] = s                                for j in range(jb, jend):   # simd
                                                         s_[j - jb] = s_[j - jb] + a[i, j]
                                                 for j in range(jb, jend): out[j] = s_[j - jb]

   Legal when (checked here): the prange has step 1 and no reductions (an OpenMP reduction
   is already another order of its sum); its body is statements without loops, one inner
   loop, statements without loops; the inner loop's range and step read nothing the nest
   assigns (the same range for every `j`); the statements assign scalars and array elements
   (no atomic update, no `break`, `continue`, `return`, `raise`, rebound array); the inner
   loop's expressions cannot raise (register_blocks' plain expressions: it is vectorised
   across the strip; the statements around it may raise, as in any prange, whose state after
   an error is no interleaving in particular); each scalar is either a temporary of one part
   (the statements before the loop, its body, the statements after it: assigned there
   before it is read, read nowhere else), which stays a scalar, or assigned before it is read
   in each iteration of the prange: those become one element per `j` of the strip (a
   LocalTile, on the stack).
   Each `j` then runs its own statements in its own order with its own values: the same
   operations on the same values in the same order as written (each sum adds its terms in
   `i`'s order, bit for bit); only the statements of different `j`, iterations of a prange
   (independent: SPEC section 2), interleave. The loop variables' and the scalars' values
   after the nest are those OpenMP leaves (the original's: cpp_emit prints the loop's last
   values either way). Fires where an array's last index (unit stride under the contiguous
   build: `if constexpr (C)`) reads `j` and the one before it reads `i`, and no array's last
   index reads `i`.

2. A prange moved outward past a serial loop whose body it is alone (`for k: for i in
   prange: ...`, the k-outermost matrix product): the prange outermost, the serial loop
   inside its body, and then register_blocks' form of the moved nest where it has one (the
   i-k-j order becomes the dot-product order there).

       for k in range(p):                    for i in prange(m):
           for i in prange(m):        ->         for k in range(p):
               for j in range(n):                    for j in range(n):
                   c[i, j] += a[i, k] * b[k, j]          c[i, j] += a[i, k] * b[k, j]

   Legal when (checked here): the prange has no reductions and no GPU nest id (the GPU path
   keeps nests as written), its range reads neither the serial loop's variable nor anything
   the nest assigns, nor an array element; its body has no `while`, `prange`, `break`,
   `continue`, `return`, `raise`, atomic update or rebound array, and only expressions that
   cannot raise; every array the nest writes is indexed by the prange's variable itself in
   one dimension in all of the nest's accesses to it, so different iterations of the prange
   touch different elements of it: their operations commute across the serial loop's
   iterations as they do within one; the scalars the body assigns are assigned before they
   are read in each of its iterations (nothing flows between iterations through them);
   the function does not read the serial loop's variable, nor the prange's, after the nest
   (their last values are not kept). The arrays the nest writes must not share memory with
   the other arrays it touches (`disjoint`, checked at run time before the moved nest runs;
   the nest as written runs otherwise). Each `i` then runs the same operations in the same
   order (k, then its own loops): results are bit for bit the interpreter's.

Nests already given a form by register_blocks keep it. Under --boundscheck no pass runs;
index_proof keeps these forms where every index of the nest is proved (they read exactly
the elements the nest reads, and the scalar expansion's tiles, in range)."""
from __future__ import annotations

import dataclasses

from unpy import ir
from unpy.ir import Array, Scalar
from unpy.loopopt.effects import private_scalars, stored_arrays
from unpy.loopopt.cost import CpuModel
from unpy.loopopt.nest import cpu_nest
from unpy.loopopt.register_blocks import plain_expressions, register_blocks, unit_step
from unpy.loopopt.register_tiles import Refusal
from unpy.loopopt.rewrite import assign, binop, fresh, name, transform, with_alternatives
from unpy.loopopt.unroll_and_jam import choose_jam
from unpy.typeinfer.independent_loops import with_independent_levels
from unpy.typeinfer.reductions import assigned_names, reads_of, walk_exprs, walk_stmts

# Statements none of these forms take (and the way out of a loop they would change).
REFUSED_STMTS = (ir.While, ir.Break, ir.Continue, ir.Return, ir.Raise, ir.LocalTile,
                 ir.ExprStmt)


def interchange(fn: ir.Function, model: CpuModel) -> ir.Function:
    """`fn` with the alternative forms above on the nests of the legal forms, their strips
    and blocks as `model` says."""
    def strips(s, fn, taken, new_locals):
        found = _strips(s, fn, taken, new_locals, model)
        return (found[0], [], f"interchange(strips: {found[1]})") if found else None

    def prange_outward(loop, fn, taken, new_locals):
        return _prange_outward(loop, fn, taken, new_locals, model)
    return with_alternatives(fn, strips, prange_outward)


# --- what the forms share ----------------------------------------------------------------------

def straight_statements(body) -> bool:
    """Assignments (not atomic, no array rebound) and ifs of them, nothing else."""
    for s in walk_stmts(body):
        if isinstance(s, REFUSED_STMTS) or (isinstance(s, ir.Assign) and s.atomic):
            return False
        if isinstance(s, (ir.Assign, ir.AugAssign)) and isinstance(s.target, ir.Name) \
                and isinstance(s.target.type, Array):
            return False
        if not isinstance(s, (ir.Assign, ir.AugAssign, ir.If, ir.For, ir.Pass)):
            return False
    return True


def assigned_scalars(body) -> list:
    """The names that assignments of `body` assign (not loop variables), each once."""
    return list(dict.fromkeys(s.target.id for s in walk_stmts(body) if isinstance(
        s, (ir.Assign, ir.AugAssign)) and isinstance(s.target, ir.Name)))


def read_outside(fn: ir.Function, nest, var: str) -> bool:
    """Whether `fn` reads `var` outside `nest`."""
    return reads_of(fn.body).count(var) > reads_of(nest).count(var)


def subscripts(body) -> list:
    return [e for e in walk_exprs(body) if isinstance(e, ir.Subscript)]


# --- 1. strips of a prange, the inner loop outside them ----------------------------------------

def _strips(outer: ir.For, fn, taken, new_locals, model: CpuModel):
    """(the strip-mined and interchanged statements of `outer`, its jam), or None where it is
    not of the legal form or would not walk a unit stride innermost."""
    if not (unit_step(outer) and not outer.reductions):
        return None
    loops = [k for k, s in enumerate(outer.body) if isinstance(s, ir.For)]
    if len(loops) != 1:
        return None
    pre, inner, post = (outer.body[:loops[0]], outer.body[loops[0]],
                        outer.body[loops[0] + 1:])
    j, i = outer.var, inner.var
    if not (not inner.reductions and straight_statements(outer.body)
            and not any(isinstance(s, ir.For) for s in walk_stmts(pre + inner.body + post))):
        return None
    nest_assigned = set(assigned_names(outer.body)) | {j}
    bounds = [inner.start, inner.stop, inner.step]
    if set(reads_of(bounds)) & nest_assigned or subscripts(bounds) \
            or not plain_expressions(inner.body) or not plain_expressions(pre + post, True) \
            or i in reads_of(pre + post) \
            or {i, j} & set(assigned_scalars(outer.body)):
        return None
    # The strips are the unroll-and-jam both back ends choose alike (unroll_and_jam.py), of
    # the prange, jamming the inner loop, with the C++ path's cost model (cost.py).
    jam = choose_jam(cpu_nest(outer, with_middle=False), model)
    if isinstance(jam, Refusal) or jam.jammed != {i}:
        return None
    scalars = set(assigned_scalars(outer.body))
    parts = (pre, inner.body, post)
    # A scalar that one part alone assigns and reads, before it reads it, stays a scalar.
    temporaries = {t for part in parts for t in assigned_scalars(part)
                   if private_scalars(part, {t}) and all(
                       t not in assigned_scalars(other) + reads_of(other)
                       for other in parts if other is not part)}
    expanded = scalars - temporaries
    if not private_scalars(outer.body, expanded) or any(
            not isinstance(new_locals.get(x), Scalar) for x in expanded):
        return None

    jb, jend = fresh(f"unpy_{j}b", taken), fresh(f"unpy_{j}end", taken)
    new_locals[jb] = new_locals[jend] = Scalar("int64")
    strips = {x: fresh(f"unpy_strip_{x}", taken) for x in sorted(expanded)}
    offset = binop("-", name(j), name(jb))

    def element(x):
        dtype = new_locals[x].dtype
        return ir.Subscript(ir.Name(strips[x], type=Array(dtype, 1)), [offset],
                            type=Scalar(dtype), in_range=[0])

    def expand(n):
        return element(n.id) if isinstance(n, ir.Name) and n.id in strips else n

    def over_strip(stmts, simd=False):
        return [ir.For(j, name(jb), name(jend), ir.Const(1, type=Scalar("int64")),
                       transform(stmts, expand), simd=simd)] if stmts else []
    width = ir.Const(jam.factor, type=Scalar("int64"))
    tiles = [ir.LocalTile(strips[x], new_locals[x].dtype, [jam.factor]) for x in strips]
    body = ([assign(jend, ir.Call("min", [binop("+", name(jb), width), outer.stop],
                                  type=Scalar("int64")))]
            + tiles + over_strip(pre)
            + [dataclasses.replace(inner, body=over_strip(inner.body, simd=True))]
            + over_strip(post))
    return [ir.For(jb, outer.start, outer.stop, width, body, parallel=True, loc=outer.loc)], jam


# --- 2. a prange moved outward past a serial loop ----------------------------------------------

def _prange_outward(loop: ir.For, fn, taken, new_locals, model: CpuModel):
    """(statements, disjoint pairs, the transforms' names) of `loop` with the prange of its
    body outermost (and register-blocked where register_blocks takes the moved nest), or
    None."""
    if len(loop.body) != 1 or not isinstance(loop.step, ir.Const):
        return None
    inner = loop.body[0]
    if not (isinstance(inner, ir.For) and inner.parallel and inner.nest_id is None
            and not inner.reductions and not inner.blocked and inner.proof is None):
        return None
    i, k = inner.var, loop.var
    nest_assigned = set(assigned_names(loop.body)) | {k}
    bounds = [inner.start, inner.stop, inner.step]
    if set(reads_of(bounds)) & nest_assigned or subscripts(bounds) \
            or not plain_expressions(bounds):
        return None
    if not straight_statements(inner.body) or not plain_expressions(inner.body) or any(
            isinstance(s, ir.For) and (s.parallel or s.blocked) for s in walk_stmts(inner.body)):
        return None
    loop_vars = {s.var for s in walk_stmts(loop.body) if isinstance(s, ir.For)} | {k}
    scalars = set(assigned_scalars(inner.body))
    if scalars & loop_vars or not private_scalars(inner.body, scalars) \
            or read_outside(fn, loop, k) or read_outside(fn, loop, i):
        return None
    written = stored_arrays(inner.body)
    if not written or not all(_owned_by(inner.body, array, i) for array in written):
        return None
    touched = {e.array.id for e in subscripts(inner.body)}
    disjoint = [[w, r] for w in sorted(written) for r in sorted(touched - {w})]
    serial = dataclasses.replace(loop, body=inner.body, blocked=[], disjoint=[])
    moved = dataclasses.replace(inner, body=[serial], loc=loop.loc)
    # A new nest: its middle loop (the serial one) is a level where it is independent.
    moved = with_independent_levels(moved, sink=False)
    blocked_fn = register_blocks(dataclasses.replace(fn, body=[moved], locals=new_locals),
                                 model)
    taken.update(blocked_fn.locals)
    new_locals.update(blocked_fn.locals)
    moved = blocked_fn.body[0]
    outward = f"interchange(prange {i} outward of {k})"
    if moved.blocked:
        pairs = disjoint + [p for p in moved.disjoint if p not in disjoint]
        return moved.blocked, pairs, ", ".join([outward] + moved.transforms)
    return [moved], disjoint, outward


def _owned_by(body, array: str, var: str) -> bool:
    """Whether every access of `array` in `body` has `var` itself as its index in one same
    dimension (so different values of `var` touch different elements)."""
    found = [e for e in subscripts(body) if e.array.id == array]
    ndim = len(found[0].indices)
    return any(all(isinstance(e.indices[d], ir.Name) and e.indices[d].id == var
                   for e in found) for d in range(ndim))

