"""The memory-reference overlap graph (section 4.3).

A vertex per footprint (the byte interval of one access: its CSLMAD's, or the whole view of an
array indexed non-affinely); an edge where two intervals share a byte. Each connected component
becomes one group with one device buffer. Intervals of different arrays take part alike, so two
views of one buffer that overlap land in one group. On intervals the components are found by
one sweep in address order instead of building the edges.
"""
from __future__ import annotations


def overlap_components(intervals: list) -> list:
    """Groups of indices into `intervals` (half-open [lo, hi) pairs) whose intervals are
    connected by overlaps, in ascending address order; each group's indices are sorted."""
    order = sorted(range(len(intervals)), key=lambda k: intervals[k])
    groups = []
    reach = None
    for k in order:
        lo, hi = intervals[k]
        if reach is None or lo >= reach:
            groups.append([k])
            reach = hi
        else:
            groups[-1].append(k)
            reach = max(reach, hi)
    return [sorted(g) for g in groups]
