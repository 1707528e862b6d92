"""The constructs the loop optimisations add to a kernel nest, beside the IR of unpy/ir.py:
printable, and printed by jitgpu/opencl_emit.py."""
from __future__ import annotations

from dataclasses import dataclass, field

from jitgpu.bind import Level
from unpy.ir import Scalar


@dataclass(frozen=True)
class UnrolledLevel(Level):
    """An NDRange level whose work-item computes `1 + len(copies)` consecutive iterations
    (unroll-and-jam): copy 0 is `var`, copy u is `copies[u - 1]`, at normalised index
    `w * U + u` for work-item index w. A copy beyond the iteration space (or outside a
    triangular guard) computes the iteration of the first valid copy again, and its side
    effects are guarded by `CopyValid(u)`.

    `strided` (register_tiles): the copies are spaced by the level's local size L instead, copy
    u at `g * L * U + u * L + l` for group g and local index l, so that neighbouring work-items
    still read neighbouring elements in every copy; the group's rows are the same block of
    `L * U` iterations either way."""
    copies: tuple = ()
    strided: bool = False

    @property
    def factor(self) -> int:
        return 1 + len(self.copies)


@dataclass
class CopyValid:
    """Expression: whether copy `copy` of the unrolled level is a real iteration; with several
    unrolled levels, `copy` is a tuple of one copy per unrolled level (in level order): whether
    that combination of copies is a real iteration (a triangular guard reads both)."""
    copy: object
    loc: tuple = (0, 0)
    type: object = field(default_factory=lambda: Scalar("bool"))


@dataclass
class VectorLoad:
    """Expression: `width` consecutive elements from the device index of access `aid` (its
    first lane), as an OpenCL vector: vloadN (no alignment beyond the element's), or where
    `aligned` (the element's index is a multiple of `width` in a buffer of the element's dtype,
    whose start OpenCL aligns) a load through a vector pointer."""
    aid: int
    width: int
    aligned: bool = False
    loc: tuple = (0, 0)
    type: object = None          # Scalar of the element dtype (of each lane)


@dataclass
class Lane:
    """Expression: lane `lane` of the vector private `vector` (its `.sN`)."""
    vector: str
    lane: int
    loc: tuple = (0, 0)
    type: object = None


def vector_dtype(dtype: str, width: int) -> str:
    """The dtype of a vector private, as `KernelNest.privates` holds it: `float32x4`."""
    return f"{dtype}x{width}"


# --- local_tiles: tiles of read-only arrays staged in local memory ----------------------------

@dataclass(frozen=True)
class LocalTile:
    """`__local` array `name` of a tiled loop over `loop`: element (r, q) at `q * stride + r`
    holds the access `aid`'s element at row r of the work-group's rows along NDRange level
    `level` (None: no row, r = 0) and at the q-th iteration of the loop's current tile.
    `rows` = the level's local size x its unroll factor (`factor`), `columns` = iterations per
    tile; `rows_fastest`: the cooperative load runs along rows (their elements are the closer in
    global memory); `strided`: the row level's copies are spaced by its local size (row
    `u * local + l` for copy u, local index l) rather than consecutive (row `l * factor + u`)."""
    name: str
    dtype: str
    aid: int
    loop: str
    level: object
    factor: int
    rows: int
    stride: int
    columns: int
    rows_fastest: bool
    strided: bool = False

    @property
    def elements(self) -> int:
        return self.stride * self.columns


@dataclass
class TileLoad:
    """Statement run by every work-item of a group: load each of `tiles` for the iterations
    `start`, `start + step`, ... before `stop` (up to `columns`), elements out of range as 0,
    then a local barrier."""
    tiles: tuple
    start: object        # ir.Name: the first iteration of the tile
    stop: object         # ir.Name: the loop's stop
    step: int
    loc: tuple = (0, 0)


@dataclass
class Barrier:
    """Statement: `barrier(CLK_LOCAL_MEM_FENCE)` (the next tile load may overwrite the tiles)."""
    loc: tuple = (0, 0)


@dataclass
class LocalLoad:
    """Expression: the element of `tile` for copy `copy` of its row level, at iteration `var`
    (ir.Name of the tiled loop's variable) of the tile starting at `start` (ir.Name); with
    `width` > 1, the vector of copies `copy` .. `copy + width - 1` (an aligned vector read)."""
    tile: str
    copy: int
    var: object
    start: object
    step: int
    loc: tuple = (0, 0)
    type: object = None
    width: int = 1


@dataclass
class ActiveItem:
    """Expression: whether the work-item has a real iteration (in a kernel with local tiles,
    every work-item runs the body; this guards what only real iterations do)."""
    loc: tuple = (0, 0)
    type: object = field(default_factory=lambda: Scalar("bool"))


@dataclass
class GroupActive:
    """Expression, the same for every work-item of a group: whether any has a real iteration
    (a triangular nest's groups beyond the diagonal skip their tile loads)."""
    loc: tuple = (0, 0)
    type: object = field(default_factory=lambda: Scalar("bool"))


# --- lane_split: a work-item's sequential reduction loop split across lanes -----------------

@dataclass
class LaneIndex:
    """Expression (int64): the work-item's lane, its index along OpenCL dimension 0 (the lanes
    of one parallel iteration are neighbours there)."""
    loc: tuple = (0, 0)
    type: object = field(default_factory=lambda: Scalar("int64"))


@dataclass
class FirstLane:
    """Expression (bool): whether the work-item is lane 0 of its parallel iteration."""
    loc: tuple = (0, 0)
    type: object = field(default_factory=lambda: Scalar("bool"))


@dataclass
class LanePartials:
    """Statement: in every lane but lane 0, each of `accumulators` ((name, op, dtype), op as
    `KernelNest.reductions` spells it) restarts at its operator's identity (lane 0 keeps the
    value the statements before the split loop gave it)."""
    accumulators: tuple
    loc: tuple = (0, 0)


@dataclass
class LaneCombine:
    """Statement run by every work-item of the group: the `lanes` lanes' partial values of each
    of `accumulators` are combined in local memory (a tree, a barrier per step); lane 0 then
    holds the combined value."""
    accumulators: tuple
    lanes: int
    loc: tuple = (0, 0)
