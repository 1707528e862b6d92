"""A call's layout up to where its arrays' memory lies, and a plan moved to other memory.

The transfer analysis works on host addresses (its boxes are byte ranges), so a preparation is
made for one set of addresses. But it depends on them only through how the arrays lie within
their memory: an array's offset in the allocation at the bottom of its views (its root), its
shape, strides and dtype, which arrays share a root, and the roots' sizes; distinct roots never
overlap, so no group joins two of them. A time loop whose steps make new temporaries
(`un = u.copy()`, `b = build_up_b(u, v)`) calls its nests with the same layout at new addresses
every step: npbench's channel flow prepared each of its 11,271 launches anew (~13 ms each on
PoCL). `relative_layout` is that layout as a key, and `rebased` moves a plan made for one
call's roots to another's (every box of a group by its root's move).
"""
from __future__ import annotations

import dataclasses
from typing import Optional

import numpy as np

from unpy.host_memory import root_range


@dataclasses.dataclass(frozen=True)
class RelativeLayout:
    """`key`: per value of the call, an array's root (numbered in order of first use), offset
    in it, the root's size, shape, strides and dtype; a scalar's type and value. `roots`: the
    roots' first bytes, by number. `root_of`: each array's root number."""
    key: tuple
    roots: tuple
    root_of: dict = dataclasses.field(compare=False, hash=False)


def relative_layout(values) -> Optional[RelativeLayout]:
    """The layout of the call of `values` ({name: array or scalar}), or None where two of its
    arrays' roots overlap without being one (views of foreign memory): the analysis may then
    join arrays of two roots, which need not move together."""
    numbers, key, root_of = {}, [], {}
    for name, value in values.items():
        if isinstance(value, np.ndarray):
            lo, hi = root_range(value)
            number = root_of[name] = numbers.setdefault((lo, hi), len(numbers))
            key.append((name, number, value.__array_interface__["data"][0] - lo, hi - lo,
                        value.shape, value.strides, value.dtype.str))
        else:
            key.append((name, type(value), value))
    spans = sorted(numbers)
    if any(hi > next_lo for (_, hi), (next_lo, _) in zip(spans, spans[1:])):
        return None
    return RelativeLayout(tuple(key), tuple(lo for lo, _ in numbers), root_of)


def rebased(plan, old: RelativeLayout, new: RelativeLayout):
    """`plan`, made for the call of layout `old`, for the call of `new` (equal keys): each
    group's boxes moved as its arrays' root moved. None where a group's arrays lie in
    different roots (then they cannot move as one)."""
    moves = [b - a for a, b in zip(old.roots, new.roots)]
    if not any(moves):
        return plan
    parts = []
    for part in plan.parts:
        groups = []
        for group in part.transfers.groups:
            roots = {old.root_of[name] for name in group.arrays}
            if len(roots) != 1:
                return None
            move = moves[roots.pop()]
            groups.append(dataclasses.replace(group, boxes=[
                dataclasses.replace(box, host_addr=box.host_addr + move)
                for box in group.boxes]))
        parts.append(dataclasses.replace(part, transfers=dataclasses.replace(
            part.transfers, groups=groups)))
    return dataclasses.replace(plan, parts=tuple(parts))
