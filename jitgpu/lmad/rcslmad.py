"""Multi-dimensional groups solved in closed form: one RCSLMAD (section 4.3.3, Definition 1)
and n RCSLMADs of equal strides and domain (section 4.3.4, first case, Theorem 2)."""
from __future__ import annotations

from typing import Optional

from .cslmad import satisfies_restriction
from .layout import PackedLayout


def solve_rcslmad(members: list) -> Optional[PackedLayout]:
    """4.3.3: one CSLMAD whose strides, sorted in descending order, satisfy Definition 1; by
    Theorem 1 its addresses grow in lexicographic order, so its |D| addresses are distinct and
    packed in C order."""
    if len(members) != 1 or not members[0].dims or not members[0].is_restricted():
        return None
    (member,) = members
    return PackedLayout(member.base, (0,), member.strides, member.extents)


def solve_theorem2(members: list) -> Optional[PackedLayout]:
    """4.3.4, first case: n CSLMADs with the same strides and domain and bases
    `b_1 < ... < b_n` touch exactly n * |D| addresses when `b_n - b_1 < s_d` (15) and
    `s_k > (b_n - b_1) + sum_{p>k} s_p * (u_p - 1)` for k < d (14, with `s_d - 1` tightened to
    the spread of the bases as in the proof). They interleave without sharing an address:
    `16i + 5j` and `16i + 5j + 1` over i < 8, j < 4 fail it (`f_1(i+1, 0) = f_2(i, 3)`)."""
    if len(members) < 2 or len({m.dims for m in members}) != 1 or not members[0].dims:
        return None
    strides, extents = members[0].strides, members[0].extents
    bases = sorted(m.base for m in members)
    spread = bases[-1] - bases[0]
    if spread >= strides[-1] or not satisfies_restriction(strides, extents, spread):
        return None
    return PackedLayout(bases[0], tuple(b - bases[0] for b in bases), strides, extents)
