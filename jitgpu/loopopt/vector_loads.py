"""vector_loads: loads of consecutive elements in straight-line code become one vloadN."""
from __future__ import annotations

import dataclasses

from jitgpu.bind import KernelNest, Param
from jitgpu.loopopt.nodes import Lane, VectorLoad, vector_dtype
from jitgpu.loopopt.rewrite import next_aid
from unpy.loopopt.load_elimination import replace_loads, unconditional_loads
from unpy.loopopt.rewrite import fresh
from unpy.loopopt.nest import ArrayAccess
from unpy import ir
from unpy.ir import Scalar
from unpy.typeinfer.reductions import escapes, walk_exprs, walk_stmts

WIDTHS = (4, 2)


def vector_loads(kernel: KernelNest) -> KernelNest:
    """Within one block of statements (a loop body, a branch, the kernel body), loads of one
    buffer at consecutive elements p, p+1, ..., p+W-1 (W 4, else 2) become one `vloadW` into
    a vector private (`VectorLoad`, placed before the first statement that reads a lane) whose
    lanes the statements read (`Lane`). Two shapes make such runs: the copies of an
    unrolled innermost loop (`unroll_inner`: `k__u = k + u*step` in the block, the index's
    coefficient of k 1 at this part: a[i, k..k+3]), and an array of structures read at
    `[k, 0..3]` (cp's atoms). Elements are compared by the values of the device indices'
    parameters at this part (as load_elimination does); vloadN assumes no alignment beyond the
    element's.

    Legal when the block has no break/continue of its own (every statement after the vector
    load runs), each lane is a load that its statement always makes (not in a branch of
    `x if c else y`, not after the first operand of `and`/`or`: so the vector reads only
    elements the code reads anyway, never past the end of a buffer), no statement of the block
    (nested ones included) stores into the buffer, and no variable of the indices is assigned
    in the block but the copies' `k__u = k + c` (each assigned once, k never). Indices with a
    non-affine (checked) term and bool and complex elements are left alone; a mirrored buffer's index
    expressions (whole-view groups) compare by their text, their variables not assigned in
    the block. Where lane 0's element index is a
    multiple of W (offset and every coefficient at this part) in a buffer of the element's
    dtype, the vector is read through a vector pointer (`VectorLoad.aligned`: OpenCL aligns a
    buffer's start to CL_DEVICE_MEM_BASE_ADDR_ALIGN, at least 128 bytes), else by vloadW."""
    return _vectorised(kernel, structures=False)


def structure_loads(kernel: KernelNest) -> KernelNest:
    """`vector_loads` of arrays of structures only: the lanes are loads of one array whose
    indices are equal but for a literal last index (`atoms[k, 0]` .. `atoms[k, 3]`, with the
    same k: a copy `k__u` of an unrolled loop is a variable of its own here), at consecutive
    elements at this part (a contiguous last dimension). Unlike vector_loads, which also joins
    the copies of an unrolled loop (a[i, k..k+3], measured slower for mmult on an H100), this
    reads each structure once as the code reads it anyway. Legal as vector_loads is."""
    return _vectorised(kernel, structures=True)


def _vectorised(kernel: KernelNest, structures: bool) -> KernelNest:
    state = _State(kernel, structures)
    body = state.block(list(kernel.body))
    if not state.vectors:
        return kernel
    types = dict(kernel.types)
    privates = list(kernel.privates)
    for name, dtype, width in state.vectors:
        types[name] = Scalar(dtype)
        privates.append((name, vector_dtype(dtype, width)))
    widths = ", ".join(f"vload{w} {n}" for w, n in sorted(state.count.items(), reverse=True))
    name = "structure_loads" if structures else "vector_loads"
    return kernel.replace(
        body=tuple(body), privates=tuple(privates), types=tuple(types.items()),
        accesses=kernel.accesses + tuple(state.new_accesses),
        params=kernel.params + tuple(state.new_params),
        transforms=kernel.transforms + (f"{name}({widths})",))


class _State:
    def __init__(self, kernel, structures):
        self.kernel = kernel
        self.structures = structures
        self.table = dict(kernel.accesses)
        self.longs = kernel.longs
        self.loops = {v.var: v for v in kernel.loops}
        self.taken = ({n for n, _ in kernel.types} | {p for p, _ in kernel.privates}
                      | {p.name for p in kernel.free} | {v.var for v in kernel.loops}
                      | set(self.longs))
        self.aid = next_aid(kernel)
        self.vectors, self.new_accesses, self.new_params = [], [], []
        self.count = {}

    def value(self, c):
        return self.longs[c] if isinstance(c, str) else c

    def block(self, stmts):
        stmts = [self.nested(s) for s in stmts]
        if escapes(stmts):
            return stmts
        return self.vectorise(stmts)

    def nested(self, s):
        if isinstance(s, (ir.For, ir.While)):
            return dataclasses.replace(s, body=self.block(s.body))
        if isinstance(s, ir.If):
            return dataclasses.replace(s, body=self.block(s.body), orelse=self.block(s.orelse))
        return s

    def aliases(self, stmts):
        """Per statement, {var: (base, normalised delta)} of the `k__u = k + c` before it."""
        assigned = {}
        for s in walk_stmts(stmts):
            if isinstance(s, ir.Assign) and isinstance(s.target, ir.Name):
                assigned[s.target.id] = assigned.get(s.target.id, 0) + 1
            elif isinstance(s, ir.For):
                assigned[s.var] = assigned.get(s.var, 0) + 1
        active, per_stmt = {}, []
        for s in stmts:
            per_stmt.append(dict(active))
            if not (isinstance(s, ir.Assign) and isinstance(s.target, ir.Name)):
                continue
            x, v = s.target.id, s.value
            if (isinstance(v, ir.BinOp) and v.op == "+" and isinstance(v.left, ir.Name)
                    and isinstance(v.right, ir.Const) and isinstance(v.right.value, int)
                    and assigned.get(x) == 1 and v.left.id not in assigned
                    and x in self.loops and v.left.id in self.loops):
                a, b = self.loops[x], self.loops[v.left.id]
                if (a.lo, a.step) == (b.lo, b.step) and v.right.value % b.step == 0:
                    active[x] = (v.left.id, v.right.value // b.step)
        return per_stmt, assigned

    def place(self, e, alias, assigned):
        """(key, position) of load `e` by value, or None where it cannot be a lane."""
        index = self.table.get(e.aid) if isinstance(e, ArrayAccess) else None
        # bool elements are bytes on the device; complex ones are vectors already.
        if index is None or e.type.dtype in ("bool", "complex64", "complex128") or any(
                t.bound is not None for t in index.terms):
            return None
        if self.structures and (len(e.indices) < 2 or not isinstance(e.indices[-1], ir.Const)):
            return None
        position = self.value(index.offset)
        coeffs = {}
        for t in index.terms:
            if t.index is not None:        # a mirrored buffer: coefficient x index expression
                if isinstance(t.index, ir.Const):
                    position += self.value(t.coeff) * t.index.value
                    continue
                if any(isinstance(n, ir.Subscript) or (isinstance(n, ir.Name) and n.id in
                                                       assigned and n.id not in alias)
                       for n in walk_exprs([t.index])):
                    return None
                loop = ("index", _text(t.index))
                coeffs[loop] = coeffs.get(loop, 0) + self.value(t.coeff)
                continue
            loop, delta = t.loop, 0
            if loop in alias and not self.structures:
                loop, delta = alias[loop]
            elif loop in alias:
                pass                  # a copy k__u, assigned before this statement
            elif loop in assigned:
                return None
            c = self.value(t.coeff)
            coeffs[loop] = coeffs.get(loop, 0) + c
            position += c * delta
        key = (index.buffer, index.element, tuple(sorted(coeffs.items(), key=repr)))
        if self.structures:
            key += (tuple(_text(x) for x in e.indices[:-1]),)
        return key, position

    def vectorise(self, stmts):
        per_stmt, assigned = self.aliases(stmts)
        written = {self.table[s.target.aid].buffer for s in walk_stmts(stmts)
                   if isinstance(s, ir.Assign) and isinstance(s.target, ir.Subscript)
                   and s.target.aid in self.table}
        lanes = {}            # key -> position -> (statement number, load)
        for n, s in enumerate(stmts):
            if not isinstance(s, ir.Assign):
                continue
            for e in unconditional_loads(s):
                found = self.place(e, per_stmt[n], assigned)
                if found is None or found[0][0] in written:
                    continue
                lanes.setdefault(found[0], {}).setdefault(found[1], (n, e))
        runs = []             # (first statement, key, first position, width)
        for key, at in lanes.items():
            taken = set()
            for p in sorted(at):
                if p in taken:
                    continue
                width = next((w for w in WIDTHS if all(p + u in at and p + u not in taken
                                                       for u in range(w))), 0)
                if width:
                    taken.update(p + u for u in range(width))
                    runs.append((min(at[p + u][0] for u in range(width)), key, p, width))
        if not runs:
            return stmts
        before = {}           # statement number -> vector loads to put before it
        lane_of = {}          # (key, position) -> Lane
        # In the order of the loads' access ids, not of their positions (a tile's first row
        # moves those): a tile's kernel is the same text as the others' (one OpenCL build).
        for first, key, p, width in sorted(runs, key=lambda r: (r[0],
                                                                lanes[r[1]][r[2]][1].aid)):
            n, e = self.lanes_first(lanes[key], p, width, first)
            vector = fresh(f"{e.array.id}_v{e.aid}", self.taken)
            aid = self.vector_access(e, per_stmt[n], assigned, p)
            before.setdefault(first, []).append(ir.Assign(
                ir.Name(vector, type=e.type),
                VectorLoad(aid, width, self.aligned(aid, width), type=e.type), e.loc))
            self.vectors.append((vector, e.type.dtype, width))
            self.count[width] = self.count.get(width, 0) + 1
            for u in range(width):
                lane_of[(key, p + u)] = (Lane(vector, u, type=e.type), first)
        out = []
        for n, s in enumerate(stmts):
            out += before.get(n, [])
            if isinstance(s, ir.Assign):
                s = self.replace(s, per_stmt[n], assigned, lane_of, n)
            out.append(s)
        return out

    @staticmethod
    def lanes_first(at, p, width, first):
        """The lane load of the statement the vector load goes before."""
        return next(at[p + u] for u in range(width) if at[p + u][0] == first)

    def vector_access(self, e, alias, assigned, p):
        """The access id of the vector load: lane 0's element through the index of load `e`
        (whose variables hold their values where the vector load goes), its offset moved by
        a new `long` parameter where `e` is not lane 0."""
        index = self.table[e.aid]
        _, position = self.place(e, alias, assigned)
        if position != p:
            name = fresh(f"unpy_voff{self.aid}", self.taken)
            self.new_params.append(Param("long", name, "int64",
                                         value=self.value(index.offset) - (position - p)))
            self.longs = dict(self.longs, **{name: self.new_params[-1].value})
            index = dataclasses.replace(index, offset=name)
        aid = self.aid
        self.aid += 1
        self.new_accesses.append((aid, index))
        self.table[aid] = index
        return aid

    def aligned(self, aid, width) -> bool:
        """Whether lane 0's element index is a multiple of `width` wherever the loops are."""
        index = self.table[aid]
        fixed = self.value(index.offset) + sum(
            self.value(t.coeff) * t.index.value for t in index.terms
            if isinstance(t.index, ir.Const))
        return (index.element == self.kernel.buffer_dtype(index.buffer) and fixed % width == 0
                and all(self.value(t.coeff) % width == 0 for t in index.terms
                        if not isinstance(t.index, ir.Const)))

    def replace(self, s, alias, assigned, lane_of, n):
        def fn(e):
            found = self.place(e, alias, assigned)
            if found is not None and found in lane_of and lane_of[found][1] <= n:
                return lane_of[found][0]
            return e
        value = replace_loads(s.value, fn)
        target = s.target
        if isinstance(target, ir.Subscript):
            target = dataclasses.replace(target, indices=replace_loads(target.indices, fn))
        return dataclasses.replace(s, value=value, target=target)


def _text(e) -> str:
    """An index expression as text, to compare the other indices of a structure's loads."""
    from unpy.ir import format_expr
    return format_expr(e)
