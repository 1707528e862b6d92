"""analyse(): from a live loop nest to the transfers and device addresses (section 4.3).

1. Bounds check (SPEC section 5); an empty iteration space needs no transfer.
2. A footprint per access: its CSLMAD's byte interval, or the whole view of a non-affine one.
3. The overlap graph's connected components are the groups, one device buffer each.
4. Each group is solved in the paper's order (4.3.1, 4.3.2, 4.3.3, Theorem 2, ILP) into a packed
   layout, unless the group's whole span is no larger or the group cannot be packed (non-affine
   indices, mixed item sizes, misaligned views, no case applies): then the span is mirrored.
5. Every access gets its device map; the plan must fit the device memory limit.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional, Union

from .bounds import check_bounds
from .boxes import make_box
from .cslmad import AccessPattern, access_pattern, count_distinct
from .ilp import solve_ilp
from .layout import PackedLayout
from .nest import Access, LiveArray, iteration_count
from .overlap import overlap_components
from .rcslmad import solve_rcslmad, solve_theorem2
from .solve_1d import solve_equal_stride_1d, solve_single_1d
from .span import MirrorLayout, mirror_unit
from .transfer import DeviceMap, Refusal, TransferGroup, TransferPlan, format_bytes

# The closed-form cases, in the order of SPEC section 5; the ILP comes after them.
CLOSED_FORM_CASES = (
    ("1d", solve_single_1d),
    ("1d-equal-stride", solve_equal_stride_1d),
    ("rcslmad", solve_rcslmad),
    ("theorem2", solve_theorem2),
)

# A packed layout is worth its gathers only while they are few: past this many boxes (many
# scattered fixed addresses, say) one contiguous copy of the span is cheaper to move.
MAX_BOXES = 64

CASE_TEXT = {
    "1d": "one 1-D CSLMAD (4.3.1)",
    "1d-equal-stride": "1-D CSLMADs of equal stride, compacted (4.3.2)",
    "rcslmad": "one RCSLMAD (4.3.3)",
    "theorem2": "interleaved RCSLMADs of equal strides (4.3.4, Theorem 2)",
    "ilp": "RCSLMADs stretched to a G' found by the ILP (4.3.4)",
}


@dataclass(frozen=True)
class Options:
    mem_limit: Optional[int]
    span_factor: float
    ilp_max_vars: int
    ilp_time_limit: float


@dataclass(frozen=True)
class Footprint:
    """One access and what it may touch: its byte-level CSLMAD, or (pattern None, a non-affine
    index) the whole view of its array; `interval` is the half-open byte range."""
    access: Access
    array: LiveArray
    pattern: Optional[AccessPattern]
    interval: tuple


def analyse(loops: list, arrays: list, accesses: list, *, mem_limit: Optional[int] = None,
            span_factor: float = 2.0, ilp_max_vars: int = 200,
            ilp_time_limit: float = 0.5) -> Union[TransferPlan, Refusal]:
    """The transfer plan of a loop nest at call time, or the reason it cannot run on the device.

    `mem_limit` bounds the device bytes of all groups together (None: no bound); a group whose
    whole span is at most `span_factor` times its touched elements counts the span as a good
    layout, otherwise the span is the last resort (the note says so)."""
    reason = check_bounds(loops, arrays, accesses)   # also checks the nest is well formed
    if reason is not None:
        return Refusal(reason)
    if iteration_count(loops) == 0:
        return TransferPlan([])
    opts = Options(mem_limit, span_factor, ilp_max_vars, ilp_time_limit)
    by_key = {a.key: a for a in arrays}
    extents = {loop.var: loop.extent for loop in loops}
    footprints = []
    for acc in accesses:
        arr = by_key[acc.array]
        if acc.is_affine:
            pattern = access_pattern(acc, arr, extents)
            footprints.append(Footprint(acc, arr, pattern, pattern.byte_interval()))
        elif arr.byte_interval() is None:
            return Refusal(f"{acc.subscript()}: {acc.array} has no element, so any index is "
                           f"out of range")
        else:
            footprints.append(Footprint(acc, arr, None, arr.byte_interval()))

    plan = TransferPlan([])
    for component in overlap_components([fp.interval for fp in footprints]):
        group, maps = solve_group(len(plan.groups), [footprints[k] for k in component], opts)
        plan.groups.append(group)
        plan.maps.update(maps)
    if mem_limit is not None and plan.device_bytes > mem_limit:
        return Refusal(over_memory_reason(plan, mem_limit), over_memory=True)
    return plan


def solve_group(index: int, footprints: list, opts: Options) -> tuple:
    """(TransferGroup, {ref_id: DeviceMap}) for one component of the overlap graph."""
    lo = min(fp.interval[0] for fp in footprints)
    hi = max(fp.interval[1] for fp in footprints)
    unit, why_not = packing_unit(footprints, lo)
    if unit is not None:
        normalised = [fp.pattern.in_units(lo, unit) for fp in footprints]
        members = sorted({n.cslmad for n in normalised}, key=lambda m: (m.base, m.dims))
        case, layout, why_not = choose_layout(members, opts)
        if layout is not None:
            group, maps = packed_group(index, case, layout, footprints, normalised, lo, hi, unit)
            span = (hi - lo) // unit
            if group.device_elems <= span and len(group.boxes) <= MAX_BOXES:
                return group, maps
            why_not = (f"the {case} layout needs {group.device_elems} elements in "
                       f"{len(group.boxes)} boxes, the whole span {span} in one")
    return mirror_group(index, footprints, lo, hi, why_not, opts)


def packing_unit(footprints: list, lo: int) -> tuple:
    """(itemsize, "") when every access is affine, of one item size, and whole elements apart;
    else (None, why the group must be mirrored)."""
    if any(fp.pattern is None for fp in footprints):
        return None, "an index is not affine, so the array's whole view is used"
    sizes = {fp.array.itemsize for fp in footprints}
    if len(sizes) > 1:
        return None, f"arrays of item sizes {sorted(sizes)} share memory"
    unit = sizes.pop()
    if any((fp.pattern.base - lo) % unit or any(t.stride % unit for t in fp.pattern.terms)
           for fp in footprints):
        return None, "addresses are not a whole number of elements apart"
    return unit, ""


def choose_layout(members: list, opts: Options) -> tuple:
    """(case, PackedLayout or None, why none) by the first case that applies."""
    for case, solve in CLOSED_FORM_CASES:
        layout = solve(members)
        if layout is not None:
            return case, layout, ""
    outcome = solve_ilp(members, opts.ilp_max_vars, opts.ilp_time_limit)
    return "ilp", outcome.layout, outcome.reason


def packed_group(index: int, case: str, layout: PackedLayout, footprints: list,
                 normalised: list, lo: int, hi: int, unit: int) -> tuple:
    placements = {}
    for n in normalised:
        placements[n.cslmad] = layout.place(n.cslmad)
        assert placements[n.cslmad] is not None, f"{case} layout does not cover {n.cslmad}"
    # Only the part of G' inside the group's interval is copied; the device buffer starts at
    # the first element copied.
    pieces = layout.pieces(0, (hi - lo) // unit)
    first = min(device for device, _, _, _ in pieces)
    end = max(device + math.prod(shape) for device, _, shape, _ in pieces)
    boxes = [make_box(lo + addr * unit, shape, tuple(s * unit for s in strides), device - first,
                      unit)
             for device, addr, shape, strides in pieces]
    maps = {}
    for fp, n in zip(footprints, normalised):
        offset, coeffs = layout.device_form(placements[n.cslmad], n)
        coeffs = {v: c for v, c in coeffs.items() if c}
        # The form is over the access's own sub-box (`Access.domain`); the kernel counts its
        # loops from 0: var' = var - lo.
        origin = fp.access.origin()
        offset -= sum(c * origin.get(v, 0) for v, c in coeffs.items())
        maps[fp.access.ref_id] = DeviceMap(index, offset - first,
                                           loop_coeffs=tuple(sorted(coeffs.items())))
    touched = layout.count_covered(list(placements.values()))
    exact = touched is not None
    if not exact:
        touched, exact = count_distinct([fp.pattern for fp in footprints], lo, unit)
    writers = [placements[n.cslmad] for fp, n in zip(footprints, normalised)
               if fp.access.write and fp.access.unconditional]
    copy_in = any(fp.access.read for fp in footprints) or not layout.fully_covered_by(writers)
    note = f"{CASE_TEXT[case]}: {layout.q} residue(s), extents {list(layout.extents)}"
    return make_group(index, case, footprints, unit, end - first, touched, exact, copy_in,
                      boxes, note), maps


def mirror_group(index: int, footprints: list, lo: int, hi: int, why_not: str,
                 opts: Options) -> tuple:
    arrays = list({fp.array.key: fp.array for fp in footprints}.values())
    unit = mirror_unit(arrays, lo)
    layout = MirrorLayout(lo, hi, unit)
    affine = all(fp.pattern is not None for fp in footprints)
    if affine:
        touched, exact = count_distinct([fp.pattern for fp in footprints], lo, unit)
    else:
        touched, exact = layout.size, False   # a non-affine index may reach any element
    if layout.size <= opts.span_factor * touched:
        verdict = f"the span is within {opts.span_factor}x of the touched elements"
    else:
        verdict = (f"the span is {layout.size / max(touched, 1):.1f}x the touched elements, "
                   f"over {opts.span_factor}x: used as the last resort")
    maps = {fp.access.ref_id: layout.device_map(index, fp.array) for fp in footprints}
    copy_in = (any(fp.access.read for fp in footprints)
               or not mirror_fully_written(footprints, layout))
    return make_group(index, "span" if affine else "extent", footprints, unit, layout.size,
                      touched, exact, copy_in, [layout.box()], f"{why_not}; {verdict}"), maps


def mirror_fully_written(footprints: list, layout: MirrorLayout) -> bool:
    """Whether one unconditional write alone covers the whole span: an RCSLMAD (every
    iteration its own element) with as many iterations as the span has elements."""
    for fp in footprints:
        if fp.access.write and fp.access.unconditional and fp.pattern is not None \
                and fp.array.itemsize == layout.unit:
            cslmad = fp.pattern.in_units(layout.lo, layout.unit).cslmad
            if cslmad.is_restricted() and cslmad.size == layout.size:
                return True
    return False


def make_group(index, case, footprints, unit, device_elems, touched, exact, copy_in, boxes,
               note) -> TransferGroup:
    return TransferGroup(
        arrays=tuple(dict.fromkeys(fp.array.key for fp in footprints)), case=case,
        itemsize=unit, device_elems=device_elems, touched_elems=touched, touched_exact=exact,
        copy_in=copy_in, copy_back=any(fp.access.write for fp in footprints), boxes=boxes,
        note=note, ref_ids=tuple(fp.access.ref_id for fp in footprints))


def over_memory_reason(plan: TransferPlan, mem_limit: int) -> str:
    biggest = max(plan.groups, key=lambda g: g.device_bytes)
    reason = f"group of {', '.join(biggest.arrays)} needs {format_bytes(biggest.device_bytes)}"
    if len(plan.groups) > 1:
        reason += f" (all groups {format_bytes(plan.device_bytes)})"
    return reason + f", over the device limit of {format_bytes(mem_limit)}"
