"""The overlap graph's connected components (section 4.3)."""
from hypothesis import given, settings, strategies as st

from jitgpu.lmad.overlap import overlap_components


def test_chains_of_overlaps_form_one_component_and_touching_intervals_do_not():
    intervals = [(20, 30), (0, 10), (8, 12), (11, 15), (15, 18), (29, 31)]
    assert overlap_components(intervals) == [[1, 2, 3], [4], [0, 5]]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 40), st.integers(1, 8)), min_size=1, max_size=8))
def test_components_are_exactly_the_connected_overlaps(pairs):
    intervals = [(lo, lo + n) for lo, n in pairs]
    components = overlap_components(intervals)
    label = {k: c for c, members in enumerate(components) for k in members}
    assert sorted(label) == list(range(len(intervals)))
    # Overlapping intervals share a component ...
    for a, (lo_a, hi_a) in enumerate(intervals):
        for b, (lo_b, hi_b) in enumerate(intervals):
            if lo_a < hi_b and lo_b < hi_a:
                assert label[a] == label[b]
    # ... and components do not overlap each other.
    spans = [(min(intervals[k][0] for k in c), max(intervals[k][1] for k in c))
             for c in components]
    for (lo_a, hi_a), (lo_b, hi_b) in zip(spans, spans[1:]):
        assert hi_a <= lo_b
