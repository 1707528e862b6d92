"""PackedLayout: the G' every closed-form case and the ILP produce (sections 4.3.1-4.3.4)."""
import math

import numpy as np
import pytest
from hypothesis import event, given, settings, strategies as st

from jitgpu.lmad.cslmad import Cslmad, NormalisedAccess
from jitgpu.lmad.layout import PackedLayout, union_volume
from jitgpu.lmad.plan import Options, choose_layout

OPTIONS = Options(mem_limit=None, span_factor=2.0, ilp_max_vars=200, ilp_time_limit=0.5)


def member_points(member):
    for idx in np.ndindex(*member.extents):
        yield idx, member.base + sum(i * s for i, s in zip(idx, member.strides))


def device_of_host(layout):
    """addr -> device position, from the layout's boxes over all addresses."""
    out = {}
    for device, addr, shape, strides in layout.pieces(-10**9, 10**9):
        for pos, idx in enumerate(np.ndindex(*shape)):
            a = addr + sum(i * s for i, s in zip(idx, strides))
            assert a not in out and device + pos not in out.values()
            out[a] = device + pos
    return out


def test_residues_are_counted_from_the_lowest_base():
    layout = PackedLayout(10, (3, 1, 3), (40, 4), (2, 5))
    assert (layout.base, layout.residues, layout.q, layout.size) == (11, (0, 2), 2, 20)


def test_invariants_reject_an_overlapping_g_prime():
    with pytest.raises(AssertionError):
        PackedLayout(0, (0, 1), (16, 5), (8, 4))    # 16i + 5j and 16i + 5j + 1 collide


def test_interleaved_when_residues_are_evenly_spaced_else_block_after_block():
    even = PackedLayout(0, (0, 1, 2), (8,), (4,))
    assert even.interleaved and len(even.pieces(0, 100)) == 1
    uneven = PackedLayout(0, (0, 1, 3), (4,), (5,))
    assert not uneven.interleaved and len(uneven.pieces(0, 100)) == 3


def test_place_and_device_form_follow_algorithm_1():
    layout = PackedLayout(0, (0, 1), (4,), (6,))          # interleaved, q = 2
    member = Cslmad(9, ((4, 3),))                         # 9 = 4 * 2 + 1: t = 2, r = 1
    placement = layout.place(member)
    assert (placement.rank, placement.shifts, placement.extents) == (1, (2,), (3,))
    offset, coeffs = layout.device_form(placement, NormalisedAccess(member, (("i", False),)))
    assert (offset, coeffs) == (2 * 2 + 1, {"i": 2})     # I = q * (i + t) + rank
    backwards = layout.device_form(placement, NormalisedAccess(member, (("i", True),)))
    assert backwards == (2 * 2 + 1 + 2 * 2, {"i": -2})
    assert layout.place(Cslmad(9, ((4, 5),))) is None     # runs past u' = 6
    assert layout.place(Cslmad(10, ((4, 2),))) is None    # residue 2 is not in G'


def test_union_volume_counts_overlapping_boxes_once():
    assert union_volume([((0, 0), (3, 3)), ((1, 1), (4, 4))]) == 9 + 9 - 4
    assert union_volume([((0,), (5,)), ((5,), (7,))]) == 7


@st.composite
def member_groups(draw):
    strides = sorted(set(draw(st.lists(st.integers(1, 24), min_size=1, max_size=3))),
                     reverse=True)
    members = []
    for _ in range(draw(st.integers(1, 4))):
        dims = tuple((s, u) for s in strides if (u := draw(st.integers(1, 4))) > 1)
        members.append(Cslmad(draw(st.integers(0, 30)), dims))
    return sorted(set(members), key=lambda m: (m.base, m.dims))


@settings(max_examples=200, deadline=None)
@given(member_groups())
def test_every_layout_found_is_injective_covers_its_members_and_counts_them(members):
    case, layout, why_not = choose_layout(members, OPTIONS)
    event(case if layout else "none")
    if layout is None:
        assert why_not
        return
    where = device_of_host(layout)
    assert len(where) == layout.size
    touched = set()
    for member in members:
        placement = layout.place(member)
        assert placement is not None
        access = NormalisedAccess(member, tuple((f"v{k}", False) for k in range(len(member.dims))))
        offset, coeffs = layout.device_form(placement, access)
        for idx, addr in member_points(member):
            env = {f"v{k}": i for k, i in enumerate(idx)}
            assert where[addr] == offset + sum(c * env[v] for v, c in coeffs.items())
            touched.add(addr)
    assert layout.count_covered([layout.place(m) for m in members]) == len(touched)
    if case in ("1d", "rcslmad", "theorem2"):
        assert layout.size == len(touched) == len(members) * math.prod(members[0].extents)
