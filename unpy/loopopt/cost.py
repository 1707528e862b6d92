"""The C++ path's cost model of register tiles and unroll-and-jam (issue 22: one choice of
each for both back ends, unpy/loopopt/register_tiles.py and unroll_and_jam.py, with a cost
model per target; the OpenCL path's is jitgpu/loopopt/cost.py): the building machine's vector
registers and caches (unpy builds for the machine it runs on, -march=native), the blocks
register_blocks lowers a tile to and the strips interchange lowers a jam to."""
from __future__ import annotations

import dataclasses
from pathlib import Path

from unpy import ir
from unpy.loopopt.nest import LoopNest, accesses_of
from unpy.loopopt.reuse import jammed_loops
from unpy.typeinfer.reductions import walk_stmts


def _cpu_flags() -> set:
    try:
        with open("/proc/cpuinfo") as f:
            return next((set(line.split(":", 1)[1].split()) for line in f
                         if line.startswith("flags")), set())
    except OSError:
        return set()


def _cache_bytes(level: int):
    """The size of the building machine's data (or unified) cache of `level`, from Linux's
    /sys/devices/system/cpu/cpu0/cache, or None."""
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    try:
        for index in sorted(Path("/sys/devices/system/cpu/cpu0/cache").glob("index*")):
            if ((index / "level").read_text().strip() == str(level)
                    and (index / "type").read_text().strip() in ("Data", "Unified")):
                size = (index / "size").read_text().strip()
                return int(size[:-1]) * units[size[-1]] if size[-1] in units else int(size)
    except (OSError, ValueError):
        pass
    return None


ROWS = 6                        # BI: rows of a block (outer-level iterations), unpacked rows
# Blocks that read their rows packed: twice the rows, one vector register of columns (a
# packed row's element is then a broadcast operand of the multiplication itself, no register
# of its own: 57 against 40 GFLOP/s for 6 x 2 registers on the 2-core AMD EPYC, in L1).
PACKED_ROWS = 12


@dataclasses.dataclass(frozen=True)
class Blocking:
    """Cache blocks of the packed blocks, from the building machine's caches. `k_block`: the
    inner loop's iterations a block of columns is packed for at a time (KC: the packed column
    panel, `k_block` x one vector register, fills half of L1 and stays there while the panel's
    blocks of rows read it); `panel_blocks`: the blocks of rows of a parallel iteration at most
    (MC: their packed rows for one k block, panel x `k_block` doubles, fill half of L2)."""
    k_block: int
    panel_blocks: int

    @staticmethod
    def for_machine(vector_bytes: int, l1: int | None = None,
                    l2: int | None = None) -> "Blocking":
        l1 = l1 or _cache_bytes(1) or 32 << 10
        l2 = l2 or _cache_bytes(2) or 1 << 20
        k_block = max(16, l1 // 2 // vector_bytes // 16 * 16)
        panel_blocks = max(1, min(16, l2 // 2 // (k_block * 8) // PACKED_ROWS))
        return Blocking(k_block, panel_blocks)


@dataclasses.dataclass(frozen=True)
class CpuModel:
    """The C++ path's loop optimisations' facts of the building machine, made once per build
    (`BuildOptions.model`; tests and benches build with others). Register tiles: a block of
    ROWS rows of the outer level (PACKED_ROWS where `packed_rows`: register_blocks' panels)
    shared among its accumulators (one tile of sums each), by two vector registers of
    `vector_bytes` of columns of the last level (one where `packed_rows`), its cache blocks
    `blocking`. Every tile pays: a block's R x C independent chains replace one dependent chain
    (and its shared loads are made once, as on the GPU). Unroll-and-jam: strips of
    `strip_width` iterations of the level that makes the innermost accesses walk a unit stride
    (interchange's strips). Cache tiles: `cache_tile` x `cache_tile` iterations
    (cache_tiles)."""
    vector_bytes: int
    blocking: Blocking
    # Iterations of the parallel loop per strip: the inner loop's body then reads and writes
    # 512 bytes of float64 along each row in turn (whole cache lines, vectors), and a strip of
    # a matrix of 768 to 1536 rows stays in L2 while its rows are walked.
    strip_width: int = 64
    # Iterations of each level per tile: a tile of float64 reads 32 rows of 256 bytes across
    # (8 KiB per matrix), which L1 holds with the rows it writes.
    cache_tile: int = 32
    packed_rows: bool = False

    @staticmethod
    def for_machine() -> "CpuModel":
        """The model of the building machine (unpy builds for the machine it runs on,
        -march=native): AVX-512's vector registers where it has them, else AVX2's; cache
        blocks from its L1 and L2."""
        vector_bytes = 64 if "avx512f" in _cpu_flags() else 32
        return CpuModel(vector_bytes, Blocking.for_machine(vector_bytes))

    def pays(self, nest: LoopNest, outer: int, last: int) -> bool:
        return True

    def tile(self, nest: LoopNest, outer: int, last: int) -> tuple:
        """(rows over the accumulators, at least 2; the columns of the vector registers of the
        accumulators' type). The accumulators are the scalars the body assigns before its
        inner loop (register_blocks' contraction form), all of one type."""
        accumulators = {}
        for s in nest.body:
            if isinstance(s, ir.For):
                break
            accumulators.setdefault(s.target.id, s.target.type.dtype)
        itemsize = int(next(iter(accumulators.values()))[-2:]) // 8
        rows, vectors = (PACKED_ROWS, 1) if self.packed_rows else (ROWS, 2)
        return max(2, rows // len(accumulators)), vectors * self.vector_bytes // itemsize

    def jam_level(self, nest: LoopNest) -> int | None:
        """The first level along which an access inside the loops its copies would jam walks
        its row (its last index reads the level's variable, an index before it a jammed
        loop's: unit stride under the contiguous build), where no such access has a jammed
        loop's variable in its last index (it would walk a row's stride innermost instead)."""
        table = dict(nest.addresses)
        for k, level in enumerate(nest.levels):
            jammed = jammed_loops(list(nest.body), level.var, set(nest.privates)) or set()
            dims = [table[e.aid].dims for s in walk_stmts(list(nest.body))
                    if isinstance(s, ir.For) and s.var in jammed for e in accesses_of(s.body)
                    if e.aid in table]
            along = [d for d in dims if len(d) >= 2 and level.var in d[-1]
                     and any(jammed & x for x in d[:-1])]
            if along and not any(d and jammed & d[-1] for d in dims):
                return k
        return None

    def jam_factor(self, nest: LoopNest, level: int, jammed: frozenset) -> int:
        return self.strip_width
