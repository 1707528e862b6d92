"""The LoopNest (unpy/loopopt/nest.py) of a bound kernel nest: what the analyses shared with the
C++ path (unpy/loopopt/reuse.py) read of it. An access's address reads the normalised loop
variables of its device index's terms and the variables of the terms it computes from IR; its
dimensions are the indices as the source writes them."""
from __future__ import annotations

from jitgpu.bind import DeviceIndex, KernelNest
from jitgpu.loopopt.nodes import UnrolledLevel
from unpy.loopopt.nest import Address, Level, LoopNest, accesses_of, address_of
from unpy.typeinfer.reductions import reads_of


def loop_nest(kernel: KernelNest) -> LoopNest:
    table = dict(kernel.accesses)
    addresses = {}
    for e in accesses_of(list(kernel.body)):
        if e.aid in table and e.aid not in addresses:
            written = address_of(e)
            addresses[e.aid] = Address(written.array, index_reads(table[e.aid]), written.dims)
    levels = tuple(
        Level(lv.var, lv.guard is not None, lv.copies, lv.strided)
        if isinstance(lv, UnrolledLevel) else Level(lv.var, lv.guard is not None)
        for lv in kernel.levels)
    return LoopNest(levels, kernel.body, tuple(sorted(addresses.items())),
                    frozenset(p for p, _ in kernel.privates),
                    frozenset(v for v, _, _ in kernel.reductions))


def index_reads(index: DeviceIndex) -> frozenset:
    """The variables device index `index` reads."""
    names = set()
    for t in index.terms:
        if t.loop is not None:
            names.add(t.loop)
        if t.index is not None:
            names.update(reads_of(t.index))
    return frozenset(names)
