"""Bounds check before offloading (SPEC section 5).

The paper's C arrays are not bounds-checked, so an index may run past a row (section 4.3.3).
NumPy indexing is checked, and a negative index wraps: either way the GPU cannot reproduce it
with a flat address, so a nest whose affine index may leave `[0, shape)` stays on the CPU,
which implements Python semantics. Interval arithmetic over the loop box is exact for
rectangular nests and a safe over-approximation (bounding box) for triangular ones; an access
under a guard is checked over the sub-box the guard leaves it (`Access.domain`).
"""
from __future__ import annotations

from typing import Optional

from .nest import check_nest


def check_bounds(loops: list, arrays: list, accesses: list) -> Optional[str]:
    """The reason why some affine index may leave its dimension, or None when all stay inside.

    Non-affine indices are not checked here: the kernel emitter guards them.
    """
    by_key = check_nest(loops, arrays, accesses)
    extents = {loop.var: loop.extent for loop in loops}
    if any(e == 0 for e in extents.values()):
        return None  # no iteration runs, so no index is ever evaluated
    for acc in accesses:
        shape = by_key[acc.array].shape
        indices, own = acc.in_domain(extents)
        for dim, ix in enumerate(indices):
            if ix is None:
                continue
            lo, hi = ix.value_range(own)
            if lo < 0 or hi >= shape[dim]:
                reach = lo if lo < 0 else hi
                where = f" (dimension {dim})" if len(shape) > 1 else ""
                return (f"{acc.subscript()}: index {acc.indices[dim]}{where} may reach {reach}, "
                        f"outside [0, {shape[dim]})")
    return None
