"""CSLMAD construction (section 4.2) and normalisation."""
import numpy as np
from hypothesis import given, settings, strategies as st

from jitgpu.lmad import Access, AffineForm, LoopDim, analyse
from jitgpu.lmad.cslmad import (AccessPattern, Cslmad, Term, access_pattern, count_distinct,
                                satisfies_restriction)

from .oracle import check_plan, live

F = AffineForm


def test_section_4_2_example_strides_82_and_80_base_82():
    # char A[P][80], A[i+j+1][2i+2]: f(i, j) = &A[0][0] + 82i + 80j + 82
    a = np.zeros((210, 80), dtype=np.int8)
    arr = live("A", a)
    acc = Access(0, "A", [F(1, {"i": 1, "j": 1}), F(2, {"i": 2})], True, False)
    pattern = access_pattern(acc, arr, {"i": 100, "j": 104})
    assert pattern.base - arr.data_addr == 82
    assert pattern.terms == (Term("i", 82, 100), Term("j", 80, 104))
    cslmad = pattern.in_units(arr.data_addr, 1).cslmad
    assert cslmad == Cslmad(82, ((82, 100), (80, 104)))
    assert not cslmad.is_restricted()   # 82 <= 80 * 103: rows overlap, addresses repeat


def test_section_4_2_example_through_a_flat_view_is_mirrored_and_counted_exactly():
    # The same addresses from a flat NumPy view (legal there): not an RCSLMAD, so the span.
    a = np.zeros(206 * 80, dtype=np.int8)
    loops = [LoopDim("i", 100, True), LoopDim("j", 104, False)]
    accesses = [Access(0, "A", [F(82, {"i": 82, "j": 80})], True, False)]
    plan = analyse(loops, [live("A", a)], accesses)
    (group,) = plan.groups
    assert group.case == "span" and group.touched_exact
    assert group.touched_elems < 100 * 104      # 41 (i - i') = 40 (j' - j) has solutions
    check_plan(plan, loops, [live("A", a)], accesses)


def test_zero_strides_and_single_iterations_are_dropped():
    b = np.broadcast_to(np.zeros(5), (7, 5))          # stride 0 along the first dimension
    acc = Access(0, "b", [F(0, {"i": 1}), F(0, {"j": 1, "k": 1})], True, False)
    pattern = access_pattern(acc, live("b", b), {"i": 7, "j": 3, "k": 1})
    assert [t.var for t in pattern.terms] == ["j"]


def test_negative_stride_flips_to_the_same_set_from_a_lower_base():
    pattern = AccessPattern(base=100, terms=(Term("i", -8, 5), Term("j", 24, 3)), itemsize=8)
    normalised = pattern.in_units(origin=60, unit=8)
    assert normalised.cslmad == Cslmad(1, ((3, 3), (1, 5)))
    assert normalised.dim_vars == (("j", False), ("i", True))
    assert pattern.byte_interval() == (68, 156)


def test_restriction_is_definition_1_or_inequality_14():
    assert satisfies_restriction((16, 5), (8, 4))              # 16 > 5 * 3
    assert not satisfies_restriction((16, 5), (8, 4), slack=4)  # 16 <= 4 + 15
    assert satisfies_restriction((20, 5), (8, 4), slack=4)
    assert satisfies_restriction((7,), (100,))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(-6, 6), st.integers(1, 5)), min_size=0, max_size=3),
       st.integers(0, 30), st.sampled_from([1, 2, 8]))
def test_count_distinct_is_exact_when_enumerated_and_a_bound_otherwise(terms, base, itemsize):
    pattern = AccessPattern(base * itemsize, tuple(Term(f"v{k}", s * itemsize, u)
                                                   for k, (s, u) in enumerate(terms) if s),
                            itemsize)
    addrs = {base}
    for k, (s, u) in enumerate(terms):
        addrs = {a + s * i for a in addrs for i in range(u)} if s else addrs
    lo = min(addrs) * itemsize
    count, exact = count_distinct([pattern], lo, itemsize)
    assert exact and count == len(addrs)
    bound, exact = count_distinct([pattern], lo, itemsize, limit=0)
    assert not exact and bound >= len(addrs)
