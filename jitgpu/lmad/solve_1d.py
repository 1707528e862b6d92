"""Groups of one-dimensional CSLMADs (sections 4.3.1 and 4.3.2).

A member with no dimension (a fixed address such as `a[3]`) is a 1-D CSLMAD of extent 1, so it
joins a group of any stride.
"""
from __future__ import annotations

from typing import Optional

from .layout import PackedLayout


def solve_single_1d(members: list) -> Optional[PackedLayout]:
    """4.3.1: one 1-D CSLMAD `s * i + b`, `i < u`, is u distinct addresses packed in order
    (figure 4: `3i + 2` over [0, 5) -> GPU 0..4)."""
    if len(members) != 1 or len(members[0].dims) > 1:
        return None
    (member,) = members
    stride, extent = member.dims[0] if member.dims else (1, 1)
    return PackedLayout(member.base, (0,), (stride,), (extent,))


def solve_equal_stride_1d(members: list) -> Optional[PackedLayout]:
    """4.3.2: n 1-D CSLMADs of one stride s. With `b_j - b_1 = s * v_j + r_j` (equation 5),
    period k of `[b_1 + k*s, b_1 + (k+1)*s)` holds at most the q distinct residues r_j, and
    periods run up to `max(v_j + u_j)` (`u + v_n` when all extents are u): figure 7 stretches each
    CSLMAD to that many periods and compacts the stride from s to q."""
    if len(members) < 2 or any(len(m.dims) > 1 for m in members):
        return None
    strides = {m.dims[0][0] for m in members if m.dims}
    if len(strides) > 1:
        return None
    b1 = min(m.base for m in members)
    # Fixed addresses only: one period wide enough to hold them all.
    stride = strides.pop() if strides else max(m.base for m in members) - b1 + 1
    residues = {(m.base - b1) % stride for m in members}
    periods = max((m.base - b1) // stride + (m.dims[0][1] if m.dims else 1) for m in members)
    return PackedLayout(b1, tuple(residues), (stride,), (periods,))
