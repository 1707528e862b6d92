"""local_tiles: tiles of read-only arrays that a work-group reuses, staged in local memory
(beyond the paper's section 3.4: the inner product of mmult/syrk/syr2k, cp's atoms)."""
from __future__ import annotations

import dataclasses
import math

from jitgpu.bind import KernelNest, LoopVar
from jitgpu.loopopt.const_buffers import written_buffers
from jitgpu.loopopt.cost import GpuModel
from jitgpu.loopopt.nodes import (ActiveItem, Barrier, GroupActive, Lane, LocalLoad,
                                  LocalTile, TileLoad, vector_dtype)
from unpy.loopopt.rewrite import assign, binop, const, fresh, name, transform
from unpy.typeinfer.reductions import escapes
from unpy.loopopt.nest import ArrayAccess, accesses_of
from unpy import ir
from unpy.ir import Scalar
from unpy.typeinfer.reductions import assigned_names, reads_of, walk_exprs

ITEMSIZE = {"int8": 1, "uint8": 1, "int16": 2, "uint16": 2, "int32": 4, "uint32": 4,
            "float32": 4, "complex64": 8, "complex128": 16}
VECTOR_READ = {"int32", "uint32", "float32", "int64", "uint64", "float64"}   # kinds of vector reads


def local_tiles(kernel: KernelNest, model: GpuModel = GpuModel(),
                columns: int | None = None) -> KernelNest:
    """Stage in `__local` memory the elements that the work-items of a group all read, for each
    sequential loop at the top of the body (after unroll_and_jam: the jammed inner-product loop
    `for k`): the loop runs in tiles of `columns` iterations; per tile the group loads, with
    each work-item taking a share (consecutive work-items on neighbouring global elements), the
    tile of each reused access (the rows of the group along the one NDRange level the access
    depends on, x the tile's iterations), waits at a barrier, runs the tile's iterations
    reading the tiles, and waits again before the next tile overwrites them. An access is
    tiled when its device index is `offset + c*k (+ d*t)`: it depends on the loop's variable
    k and on at most one NDRange level t (an unrolled level's copies share one tile), reads a
    buffer no statement stores into, and some other level of the group has more than one
    work-item (so the group reuses each element).

    Legal when: the tiled arrays are read-only in the nest (their tiles stay valid); the loop's
    bounds are the same for every work-item (they read only the nest's free scalars and array
    shapes: the group runs the same tiles), its step is a literal and the body does not assign
    its variable or `break` out of it (every work-item runs every tile); the body has no
    `continue` of its own. Every work-item reaches every barrier: in a kernel with tiles every
    work-item runs the body, and what only real iterations do (the statements before and after
    the loop, the tile's iterations) is guarded (`ActiveItem`; an unrolled level's copies beyond
    the space keep their own guards); a triangular nest's groups with no real iteration skip
    the loop as a whole (`GroupActive`, the same for the whole group). Tile loads are guarded
    at the edges (iterations past the loop's stop, rows past the level's trip count load 0),
    so any trip count works, and read only elements of the loops' boxes (what the transfer
    analysis mapped). The tiles fit min(the model's local_fraction of the device's local
    memory, its local_budget). Summation order is unchanged (the tile's iterations run in
    order). A loop of fewer iterations than the model's min_tiled_iterations at this call is
    not tiled.

    `columns` None: the model's row_tile_iterations for a loop with a tile that has rows, else
    its rowless_tile_iterations or the work-group size if smaller; halved until the tiles fit.
    Unchanged where no loop qualifies."""
    body = list(kernel.body)
    group = math.prod(kernel.local_size)
    if group < 2 or escapes(body) or _has_tiles(body):
        return kernel
    state = _Tiles(kernel, model, columns)
    out, done = [], []
    segment = []
    for s in body:
        tiled = state.tile_loop(s) if isinstance(s, ir.For) else None
        if tiled is None:
            segment.append(s)
            continue
        out += _guarded(segment) + tiled
        segment = []
        done.append(s.var)
    if not done:
        return kernel
    out += _guarded(segment)
    types = dict(kernel.types)
    for var, dtype in state.privates:
        types[var] = Scalar(dtype)
    types.update(state.vector_types)
    used = {e.aid for e in accesses_of(out)} | {t.aid for t in state.tiles}
    return kernel.replace(
        body=tuple(out), privates=kernel.privates + tuple(state.privates),
        types=tuple(types.items()), loops=kernel.loops + tuple(state.loops),
        accesses=tuple((aid, ix) for aid, ix in kernel.accesses if aid in used),
        transforms=kernel.transforms + tuple(
            f"local_tiles({var}, {cols}: {names})" for var, cols, names in state.done))


def _has_tiles(body) -> bool:
    from unpy.typeinfer.reductions import walk_stmts
    return any(isinstance(s, TileLoad) for s in walk_stmts(body))


def _guarded(stmts):
    """`stmts` run only by a work-item with a real iteration."""
    return [ir.If(ActiveItem(), list(stmts), [])] if stmts else []


class _Tiles:
    def __init__(self, kernel, model, columns):
        self.kernel, self.model, self.columns = kernel, model, columns
        self.written = written_buffers(kernel)
        self.longs = kernel.longs
        self.table = dict(kernel.accesses)
        self.free = {p.name for p in kernel.free}
        self.assigned = set(assigned_names(list(kernel.body)))
        self.taken = ({n for n, _ in kernel.types} | {p for p, _ in kernel.privates}
                      | self.free | {v.var for v in kernel.loops})
        self.level_of = {}          # level variable or copy -> (level, copy)
        for k, level in enumerate(kernel.levels):
            self.level_of[level.var] = (k, 0)
            for u, var in enumerate(getattr(level, "copies", ()), 1):
                self.level_of[var] = (k, u)
        self.guarded = any(level.guard is not None for level in kernel.levels)
        self.budget = min(int(model.local_mem * model.local_fraction), model.local_budget)
        self.tiles, self.privates, self.loops, self.done = [], [], [], []
        self.vector_types = []          # (vector private, type of its lanes)

    def value(self, c) -> int:
        return c if isinstance(c, int) else self.longs[c]

    def legal(self, s) -> bool:
        if not (isinstance(s.step, ir.Const) and isinstance(s.step.value, int)
                and s.step.value != 0):
            return False
        loop = next((v for v in self.kernel.loops if v.var == s.var), None)
        if loop is None or loop.level is not None or loop.extent < max(
                2, self.model.min_tiled_iterations):
            return False
        bounds = [s.start, s.stop]
        if any(isinstance(e, ir.Subscript) for e in walk_exprs(bounds)):
            return False
        if not set(reads_of(bounds)) <= self.free - self.assigned:
            return False
        return s.var not in assigned_names(s.body) and not escapes(s.body, ir.Break)

    def family(self, index, var):
        """(key of the tile, copy) for a device index tiled in the loop over `var`, or None."""
        if index.buffer in self.written:
            return None
        row, along, fixed = None, 0, 0
        for t in index.terms:
            c = self.value(t.coeff)
            # A term of a mapped loop (`t.loop`) or of a mirrored buffer's index expression
            # (`t.index`: here only a loop variable, or a literal), never a checked one.
            if t.bound is not None:
                return None
            if t.loop is None and isinstance(t.index, ir.Const) and isinstance(t.index.value,
                                                                               int):
                fixed += c * t.index.value
                continue
            loop = t.loop if t.loop is not None else (
                t.index.id if isinstance(t.index, ir.Name) else None)
            if loop is None:
                return None
            if c == 0:
                continue
            if loop == var and not along:
                along = c
            elif loop in self.level_of and row is None:
                level, copy = self.level_of[loop]
                row = (level, copy, c)
            else:
                return None
        if not along or (row is None and not self.model.rowless_tile_iterations):
            return None
        ndim = len(self.kernel.levels)
        others = [self.kernel.local_size[ndim - 1 - k] for k in range(ndim)
                  if row is None or k != row[0]]
        if math.prod(others) < 2:
            return None                     # no other work-item of the group reads it
        key = (index.buffer, index.element, self.value(index.offset) + fixed, along,
               None if row is None else (row[0], row[2]))
        return key, (0 if row is None else row[1])

    def tile_loop(self, s):
        if not self.legal(s):
            return None
        families = {}                       # key -> {aid: copy}
        for e in accesses_of(s.body):
            if isinstance(e, ArrayAccess) and e.aid in self.table:
                found = self.family(self.table[e.aid], s.var)
                if found is not None:
                    families.setdefault(found[0], {})[e.aid] = found[1]
        if not families:
            return None
        tiles = self.make_tiles(s.var, families)
        if tiles is None:
            return None
        by_aid = {aid: (tile, copy) for tile, members in tiles for aid, copy in members.items()}
        step = s.step.value
        start = fresh(f"{s.var}__tile", self.taken)
        stop = fresh(f"{s.var}__stop", self.taken)

        def local(n):
            if isinstance(n, ArrayAccess) and n.aid in by_aid:
                tile, copy = by_aid[n.aid]
                return LocalLoad(tile.name, copy, name(s.var), name(start), step, n.loc,
                                 n.type)
            return n
        columns = tiles[0][0].columns
        inner_stop = ir.Call("max" if step < 0 else "min",
                             [binop("+", name(start), const(columns * step)), name(stop)],
                             type=Scalar("int64"))
        inner_body = self.vector_reads(transform(list(s.body), local), tiles)
        inner = dataclasses.replace(s, start=name(start), stop=inner_stop, body=inner_body)
        tile_loop = ir.For(start, s.start, name(stop), const(columns * step), [
            TileLoad(tuple(t for t, _ in tiles), name(start), name(stop), step, s.loc),
            ir.If(ActiveItem(), [inner], []),
            Barrier(s.loc)], loc=s.loc)
        self.privates += [(start, "int64"), (stop, "int64")]
        loop = self.kernel.loop(s.var)
        self.loops.append(LoopVar(start, None, loop.lo, loop.step * columns,
                                  -(-loop.extent // columns)))
        self.tiles += [t for t, _ in tiles]
        self.done.append((s.var, columns, ", ".join(t.name for t, _ in tiles)))
        stmts = [assign(stop, s.stop), tile_loop]
        if self.guarded:
            stmts = [ir.If(GroupActive(), stmts, [])]
        return stmts

    def vector_reads(self, body, tiles):
        """`body` with the reads of an unrolled level's copies in one column (consecutive
        rows) made once, as aligned vectors at the top of the body (16 bytes: float4,
        double2), each copy reading its lane. Legal anywhere in the loop's body: the tiles do
        not change during a tile's iterations, and every row and iteration read is inside the
        tile."""
        vector_bytes = self.model.tile_vector_bytes
        if not vector_bytes:
            return body
        by_name = {t.name: t for t, _ in tiles}
        loads = []
        transform(body, lambda n: loads.append(n) or n if isinstance(n, LocalLoad) else n)
        groups = {}
        for x in loads:
            t = by_name[x.tile]
            width = vector_bytes // ITEMSIZE.get(t.dtype, 8)
            # A strided level's copies (register_tiles) are a local size apart, not a vector.
            if (t.dtype in VECTOR_READ and not t.strided and t.factor % width == 0
                    and t.stride % width == 0):
                groups.setdefault((x.tile, x.copy // width), {})[x.copy] = x
        lanes, reads = {}, []
        for (tile, block), members in groups.items():
            if len(members) < 2:
                continue
            first = next(iter(members.values()))
            dtype = by_name[tile].dtype
            width = vector_bytes // ITEMSIZE.get(dtype, 8)
            vector = fresh(f"{first.var.id}__rows", self.taken)
            self.privates.append((vector, vector_dtype(dtype, width)))
            self.vector_types.append((vector, first.type))
            reads.append(ir.Assign(ir.Name(vector, type=first.type), dataclasses.replace(
                first, copy=block * width, width=width)))
            for copy in members:
                lanes[(tile, copy)] = (vector, copy % width)

        def lane(n):
            if isinstance(n, LocalLoad) and (n.tile, n.copy) in lanes:
                vector, k = lanes[(n.tile, n.copy)]
                return Lane(vector, k, n.loc, n.type)
            return n
        return reads + transform(body, lane) if reads else body

    def make_tiles(self, var, families):
        """[(LocalTile, {aid: copy})] for the families, within the local memory budget."""
        kernel = self.kernel
        ndim = len(kernel.levels)
        with_rows = any(key[4] is not None for key in families)
        columns = self.columns or (self.model.row_tile_iterations if with_rows else min(
            self.model.rowless_tile_iterations, math.prod(kernel.local_size)))
        while columns >= 1:
            tiles = []
            for key, members in families.items():
                buffer, element, _, along, row = key
                level, factor, rows, fastest, strided = None, 1, 1, False, False
                if row is not None:
                    level = row[0]
                    factor = getattr(kernel.levels[level], "factor", 1)
                    strided = getattr(kernel.levels[level], "strided", False)
                    rows = kernel.local_size[ndim - 1 - level] * factor
                    fastest = abs(row[1]) < abs(along)
                # Loaded along the iterations, stored along the rows: pad a column so that
                # neighbouring work-items store to different banks (16 bytes keep the
                # rows of a column aligned for vector reads).
                itemsize = ITEMSIZE.get(element, 8)
                stride = rows + (16 // itemsize if rows > 1 and not fastest else 0)
                representative = min(members, key=lambda aid: (members[aid], aid))
                tiles.append((LocalTile(fresh(f"unpy_tile_{var}", self.taken), element,
                                        representative, var, level, factor, rows, stride,
                                        columns, fastest, strided), members))
            size = sum(t.elements * ITEMSIZE.get(t.dtype, 8) for t, _ in tiles)
            size += sum(t.elements * ITEMSIZE.get(t.dtype, 8) for t in self.tiles)
            if size <= self.budget:
                return tiles
            for t, _ in tiles:
                self.taken.discard(t.name)
            columns //= 2
        return None
