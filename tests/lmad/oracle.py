"""Brute-force oracle for the lmad tests: real NumPy views in, every touched address out, and a
check of a TransferPlan against them."""
from __future__ import annotations

import itertools
import math

import numpy as np

from jitgpu.lmad import LiveArray, TransferPlan


def live(key: str, arr: np.ndarray) -> LiveArray:
    """LiveArray of a real NumPy array, with the allocation found through the base chain."""
    root = arr
    while isinstance(root.base, np.ndarray):
        root = root.base
    lo = root.__array_interface__["data"][0]
    return LiveArray(key, arr.__array_interface__["data"][0], arr.itemsize, arr.shape,
                     arr.strides, lo, lo + root.nbytes)


def iterations(loops):
    names = [loop.var for loop in loops]
    for point in itertools.product(*(range(loop.extent) for loop in loops)):
        yield dict(zip(names, point))


def index_tuples(acc, arr, env):
    """Every index tuple of the access at one iteration (a non-affine index: any in range)."""
    choices = [range(n) if ix is None else [ix.evaluate(env)]
               for ix, n in zip(acc.indices, arr.shape)]
    return itertools.product(*choices)


def runs(acc, env) -> bool:
    """Whether the access runs at iteration `env` (inside its `domain`)."""
    return all(lo <= env[var] < hi for var, lo, hi in acc.domain)


def touched(loops, arrays, accesses):
    """ref_id -> [(env, index tuple, byte address)] over the iteration space."""
    by_key = {a.key: a for a in arrays}
    out = {acc.ref_id: [] for acc in accesses}
    for env in iterations(loops):
        for acc in accesses:
            if not runs(acc, env):
                continue
            arr = by_key[acc.array]
            for idx in index_tuples(acc, arr, env):
                addr = arr.data_addr + sum(i * s for i, s in zip(idx, arr.strides))
                out[acc.ref_id].append((env, idx, addr))
    return out


def out_of_bounds(loops, arrays, accesses) -> bool:
    by_key = {a.key: a for a in arrays}
    return any(not 0 <= ix.evaluate(env) < by_key[acc.array].shape[d]
               for env in iterations(loops) for acc in accesses if runs(acc, env)
               for d, ix in enumerate(acc.indices) if ix is not None)


def box_map(plan: TransferPlan) -> dict:
    """host unit address -> (group, device element), checking that boxes are disjoint on both
    sides and inside their device buffer."""
    host_to_device = {}
    device_seen = set()
    for g, group in enumerate(plan.groups):
        for box in group.boxes:
            assert len(box.shape) == len(box.strides)
            for pos, idx in enumerate(np.ndindex(*box.shape)):
                host = box.host_addr + sum(i * s for i, s in zip(idx, box.strides))
                dev = box.device_offset + pos
                assert 0 <= dev < group.device_elems, (g, box, dev)
                assert host not in host_to_device, f"host {host} in two boxes"
                assert (g, dev) not in device_seen, f"device {g}:{dev} in two boxes"
                host_to_device[host] = (g, dev)
                device_seen.add((g, dev))
    return host_to_device


def device_address(dmap, env, idx):
    if dmap.dim_strides is not None:
        return dmap.offset + sum(i * s for i, s in zip(idx, dmap.dim_strides))
    return dmap.offset + sum(c * env[v] for v, c in dmap.loop_coeffs)


def check_plan(plan: TransferPlan, loops, arrays, accesses):
    """Every touched host element is in a box of the access's group, and the access's device
    map sends it to the device element that box gives it; group facts agree with the truth."""
    by_key = {a.key: a for a in arrays}
    if math.prod(loop.extent for loop in loops) == 0:
        assert plan.groups == [] and plan.maps == {}
        return
    boxes = box_map(plan)
    seen = {g: set() for g in range(len(plan.groups))}
    written_unconditionally = {g: set() for g in range(len(plan.groups))}
    for ref, points in touched(loops, arrays, accesses).items():
        acc = next(a for a in accesses if a.ref_id == ref)
        dmap = plan.device_map(ref)
        group = plan.groups[dmap.group]
        assert acc.array in group.arrays and ref in group.ref_ids
        assert acc.read <= group.copy_in and acc.write <= group.copy_back
        unit = group.itemsize
        itemsize = by_key[acc.array].itemsize
        assert itemsize % unit == 0
        for env, idx, addr in points:
            dev = device_address(dmap, env, idx)
            for k in range(itemsize // unit):
                host = addr + k * unit
                assert boxes.get(host) == (dmap.group, dev + k), (ref, env, idx, host)
                seen[dmap.group].add(host)
                if acc.write and acc.unconditional:
                    written_unconditionally[dmap.group].add(dev + k)
    for g, group in enumerate(plan.groups):
        # Copies stay inside the group's interval (what is touched, and the whole view of an
        # array indexed non-affinely), so inside memory its arrays own.
        views = [by_key[a.array].byte_interval() for a in accesses
                 if a.ref_id in group.ref_ids and not a.is_affine]
        lo = min([min(seen[g])] + [v[0] for v in views])
        hi = max([max(seen[g]) + group.itemsize] + [v[1] for v in views])
        owners = [by_key[key] for key in group.arrays]
        for host, (grp, _) in boxes.items():
            if grp == g:
                assert lo <= host < hi, f"box element {host} outside the group [{lo}, {hi})"
                assert any(a.buffer_lo <= host < a.buffer_hi for a in owners)
        assert group.copy_back == any(a.write for a in accesses if a.ref_id in group.ref_ids)
        assert group.touched_elems <= group.device_elems
        if group.touched_exact:
            assert group.touched_elems == len(seen[g]), (group, len(seen[g]))
        else:
            assert group.touched_elems >= len(seen[g])
        if not group.copy_in:
            backed = {dev for grp, dev in boxes.values() if grp == g}
            assert backed <= written_unconditionally[g], "copy-in skipped but not all written"
