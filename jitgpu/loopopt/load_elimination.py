"""load_elimination of a bound kernel nest: unpy/loopopt/load_elimination.py's pass, its loads
compared by the values of their device indices at this part."""
from __future__ import annotations

from dataclasses import dataclass

from jitgpu.bind import KernelNest
from unpy import ir
from unpy.loopopt.load_elimination import eliminate_loads
from unpy.loopopt.nest import ArrayAccess


def load_elimination(kernel: KernelNest) -> KernelNest:
    """The kernel whose repeated loads in straight-line code read a private temporary
    (`eliminate_loads` under `DeviceLoads`), the temporaries added to its privates."""
    taken = ({n for n, _ in kernel.types} | {p for p, _ in kernel.privates}
             | {p.name for p in kernel.free} | {v.var for v in kernel.loops})
    found = eliminate_loads(list(kernel.body), DeviceLoads(dict(kernel.accesses), kernel.longs),
                            taken)
    if not found.temporaries:
        return kernel
    types = dict(kernel.types)
    for name, dtype in found.temporaries:
        types[name] = ir.Scalar(dtype)
    return kernel.replace(body=tuple(found.body),
                          privates=kernel.privates + tuple(found.temporaries),
                          types=tuple(types.items()),
                          transforms=kernel.transforms + (
                              f"load_elimination({found.reused} loads)",))


@dataclass(frozen=True)
class DeviceLoads:
    """The OpenCL path's LoadRule: a load's key is its device index (`table`: aid ->
    DeviceIndex) by the values of its `long` parameters at this part (`longs`): two accesses
    of one element may have different parameters. A store to a buffer ends the reuse of every
    load of it (views of one buffer may alias; transfer groups keep buffers apart), an
    assignment to a loop variable of an index the reuse of its loads. Indices with a
    non-affine term (an IR expression) and bool elements have no key."""
    table: dict
    longs: dict

    def key(self, load: ArrayAccess):
        index = self.table.get(load.aid) if isinstance(load, ArrayAccess) else None
        if index is None or load.type.dtype == "bool" or any(t.index is not None
                                                             for t in index.terms):
            return None
        value = lambda c: self.longs[c] if isinstance(c, str) else c
        return (index.buffer, index.element, value(index.offset),
                tuple((value(t.coeff), t.loop) for t in index.terms))

    def kills(self, s: ir.Assign, key) -> bool:
        if isinstance(s.target, ir.Subscript):
            return s.target.aid in self.table and self.table[s.target.aid].buffer == key[0]
        return isinstance(s.target, ir.Name) and any(loop == s.target.id
                                                     for _, loop in key[3])
