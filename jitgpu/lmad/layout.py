"""The packed device layout that every case of sections 4.3.1-4.3.4 produces.

Each case ends in a group G' of q RCSLMADs with common strides `s_1 > ... > s_d` and common
extents `u'_k`, with bases `b' + r` for distinct residues `0 = r_1 < ... < r_q < s_d`, satisfying
inequality 14 of Theorem 2 with `s_d - 1` tightened to the actual spread `r_q` (the proof only
uses `b_q - b_p <= r_q`; with q = 1 this is Definition 1): no two members of G' share an address,
so G' is packed onto the device without gaps.
- 4.3.1, one 1-D CSLMAD: q = 1, d = 1.
- 4.3.2, 1-D CSLMADs of equal stride: the residues of the bases, extent `u + v_n` (figure 7).
- 4.3.3, one RCSLMAD: q = 1.
- 4.3.4 first case (Theorem 2): the residues are the base differences, extents unchanged.
- 4.3.4 second case (ILP): b', r_m and u'_k solved for.
Every member CSLMAD of the group lies inside the G' block of its residue, shifted by `t_mk`
(equation 21); its device address is then Algorithm 1's `I_m`.

Two placements of the q blocks on the device:
- interleaved (`q * position + rank`, Algorithm 1) when the residues are evenly spaced: the whole
  of G' is then one box `shape (u'_1, ..., u'_d, q)`, one gather, and a plain contiguous copy
  when G' tiles its interval (figure 5);
- one block after the other (`rank * |D'| + position`) otherwise: q boxes, and consecutive
  iterations of the innermost loop stay on consecutive device elements.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

import numpy as np

from .boxes import clip_monotone
from .cslmad import Cslmad, NormalisedAccess, satisfies_restriction

# Counting the union of the members' boxes on a compressed grid costs one cell per piece.
MAX_COUNT_CELLS = 1 << 20


@dataclass(frozen=True)
class Placement:
    """Where a member lies in G': block `rank`, shifted by `shifts` (t_mk), spanning `extents`
    (the member's extent per dimension of G', 1 where it does not move)."""
    rank: int
    shifts: tuple
    extents: tuple


@dataclass(frozen=True)
class PackedLayout:
    """G': q RCSLMADs `base + residues[rank] + sum strides_k * i_k`, `0 <= i_k < extents_k`
    (element units of the group)."""
    base: int
    residues: tuple
    strides: tuple
    extents: tuple

    def __post_init__(self):
        # Residues count from the lowest base, so the greedy decoding of `place` is exact.
        low = min(self.residues)
        object.__setattr__(self, "base", self.base + low)
        object.__setattr__(self, "residues", tuple(sorted({r - low for r in self.residues})))
        # The invariants that make G' injective (Theorem 2); every case must establish them.
        assert self.strides and len(self.strides) == len(self.extents)
        assert list(self.strides) == sorted(set(self.strides), reverse=True)
        assert min(self.extents) >= 1 and self.residues[-1] < self.strides[-1]
        assert satisfies_restriction(self.strides, self.extents, self.residues[-1])

    @property
    def q(self) -> int:
        return len(self.residues)

    @property
    def block(self) -> int:
        """|D'|: elements per residue."""
        return math.prod(self.extents)

    @property
    def size(self) -> int:
        return self.q * self.block

    @property
    def residue_step(self) -> Optional[int]:
        """The common difference of the residues (0 for a single one), or None when they are
        not evenly spaced."""
        steps = {b - a for a, b in zip(self.residues, self.residues[1:])}
        return steps.pop() if len(steps) == 1 else (0 if not steps else None)

    @property
    def interleaved(self) -> bool:
        return self.residue_step is not None

    def place(self, member: Cslmad) -> Optional[Placement]:
        """The member's placement, or None when G' does not cover it.

        Under inequality 14 the decomposition `base' + r + sum s_k * t_k` of an address of G' is
        unique and found greedily, largest stride first, so the shifts need not be stored."""
        extents = [1] * len(self.strides)
        for stride, extent in member.dims:
            if stride not in self.strides:
                return None
            extents[self.strides.index(stride)] = extent
        rest = member.base - self.base
        if rest < 0:
            return None
        shifts = []
        for stride in self.strides:
            t, rest = divmod(rest, stride)
            shifts.append(t)
        if rest not in self.residues:
            return None
        if any(t + u > limit for t, u, limit in zip(shifts, extents, self.extents)):
            return None
        return Placement(self.residues.index(rest), tuple(shifts), tuple(extents))

    def _weights(self) -> list:
        """Device distance of one step along each dimension of G'."""
        scale = self.q if self.interleaved else 1
        return [scale * math.prod(self.extents[k + 1:]) for k in range(len(self.extents))]

    def device_form(self, placement: Placement, access: NormalisedAccess) -> tuple:
        """(offset, {var: coeff}): the device element of the access (Algorithm 1, line 6)."""
        weights = self._weights()
        offset = sum(t * w for t, w in zip(placement.shifts, weights))
        offset += placement.rank if self.interleaved else placement.rank * self.block
        coeffs = {}
        for (stride, extent), (var, backwards) in zip(access.cslmad.dims, access.dim_vars):
            w = weights[self.strides.index(stride)]
            if backwards:  # i_k = extent - 1 - var
                offset += w * (extent - 1)
                w = -w
            coeffs[var] = coeffs.get(var, 0) + w
        return offset, coeffs

    def pieces(self, lo: int, hi: int) -> list:
        """The host parts of G' inside [lo, hi) as `(device_offset, addr, shape, strides)`,
        element units; stretched parts outside the group's interval are left out."""
        if self.interleaved:
            shape, strides = self.extents, self.strides
            if self.q > 1:
                shape, strides = shape + (self.q,), strides + (self.residue_step,)
            blocks = [(0, self.base + self.residues[0], shape, strides)]
        else:
            blocks = [(rank * self.block, self.base + r, self.extents, self.strides)
                      for rank, r in enumerate(self.residues)]
        return [(device0 + first, addr, shape, strides)
                for device0, base, bshape, bstrides in blocks
                for first, addr, shape, strides in clip_monotone(base, bshape, bstrides, lo, hi)]

    def count_covered(self, placements: list) -> Optional[int]:
        """The exact number of distinct addresses the members touch (members are RCSLMADs and
        G' is injective, so this is the volume of the union of their boxes, per block), or None
        when that is too costly to count."""
        total = 0
        for rank in range(self.q):
            boxes = {(p.shifts, tuple(t + u for t, u in zip(p.shifts, p.extents)))
                     for p in placements if p.rank == rank}
            if boxes:
                volume = union_volume(sorted(boxes))
                if volume is None:
                    return None
                total += volume
        return total

    def fully_covered_by(self, placements: list) -> bool:
        """Whether these members alone cover all of G': every block has a member equal to it
        (the same affine form as the layout, so it writes every device element)."""
        full = {p.rank for p in placements
                if not any(p.shifts) and p.extents == self.extents}
        return len(full) == self.q


def union_volume(boxes: list) -> Optional[int]:
    """The number of integer points in a union of half-open boxes `(lo, hi)`, counted on the grid
    of their corners; None when that grid is too large."""
    ndim = len(boxes[0][0])
    # (sorted sets, not np.unique: in NumPy 2 that imports numpy.ma, 50 ms of a first call)
    cuts = [np.array(sorted({b[side][k] for b in boxes for side in (0, 1)}), dtype=np.int64)
            for k in range(ndim)]
    if math.prod(len(c) - 1 for c in cuts) > MAX_COUNT_CELLS:
        return None
    covered = np.zeros([len(c) - 1 for c in cuts], dtype=bool)
    for lo, hi in boxes:
        covered[tuple(slice(np.searchsorted(c, a), np.searchsorted(c, b))
                      for c, a, b in zip(cuts, lo, hi))] = True
    volume = np.ones(covered.shape, dtype=np.int64)
    for k, c in enumerate(cuts):
        volume = volume * np.diff(c).reshape([-1 if j == k else 1 for j in range(ndim)])
    return int(volume[covered].sum())
