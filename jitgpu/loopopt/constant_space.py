"""constant_space: small read-only buffers read at work-item-invariant addresses live in
`__constant` memory (Lime's constant memory, section 4.2.1)."""
from __future__ import annotations

import dataclasses

from jitgpu.bind import KernelNest
from jitgpu.loopopt.const_buffers import written_buffers
from jitgpu.loopopt.cost import GpuModel
from jitgpu.loopopt.nodes import UnrolledLevel, VectorLoad
from unpy.loopopt.rewrite import transform
from unpy.loopopt.nest import ArrayAccess
from unpy import ir


def constant_space(kernel: KernelNest, model: GpuModel = GpuModel()) -> KernelNest:
    """Put in the `__constant` address space each buffer that the body never stores into and
    reads only at addresses that no work-item index changes (`work_item_variables`: no term of
    a device index into it is, or reads, a variable that depends on the NDRange levels), so at
    a given trip of the loops every work-item reads the same element, which the constant cache
    broadcasts (cp's atoms[k, 0..3]; mmult's b[k, j] is not). (Any read-only buffer could be
    `__constant` as far as the results go; the rule is what makes it pay.)

    Legal when the buffers fit the device: the chosen buffers' bytes together at most its
    CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE and their number at most CL_DEVICE_MAX_CONSTANT_ARGS
    (`GpuModel.constant_space`, from bind.device_limits; unknown limits: none is chosen);
    smallest buffers first. A buffer read through a view of another dtype (a cast pointer)
    stays global. What the body reads does not change: only where it reads from."""
    max_bytes, max_args = model.constant_space
    if not max_bytes or not max_args:
        return kernel
    varying = work_item_variables(kernel)
    table = dict(kernel.accesses)
    refused = set(written_buffers(kernel))
    accessed = [table[aid] for aid in _accessed(kernel.body) if aid in table]
    for index in accessed:
        if (index.element != kernel.buffer_dtype(index.buffer)
                or any(t.loop in varying or (t.index is not None and _reads(t.index, varying))
                       for t in index.terms)):
            refused.add(index.buffer)
    read = {index.buffer for index in accessed}
    candidates = sorted((p for p in kernel.params if p.kind == "buffer"
                         and int(p.name[1:]) in read - refused), key=lambda p: p.nbytes)
    chosen, total = set(), 0
    for p in candidates:
        if len(chosen) < max_args and total + p.nbytes <= max_bytes:
            chosen.add(p.name)
            total += p.nbytes
    if not chosen:
        return kernel
    params = tuple(dataclasses.replace(p, constant=True) if p.name in chosen else p
                   for p in kernel.params)
    names = ", ".join(sorted(chosen, key=lambda n: int(n[1:])))
    return kernel.replace(params=params,
                          transforms=kernel.transforms + (f"constant_space({names})",))


def work_item_variables(kernel: KernelNest) -> set:
    """The variables whose values may differ between work-items at the same trip of the
    loops: the NDRange levels (and their unrolled copies), and what is assigned from them, or
    under a condition on them, or by a loop whose start or step reads them (to a fixpoint)."""
    varying = {level.var for level in kernel.levels} | {v.var for v in kernel.loops
                                                        if v.level is not None}
    varying |= {c for level in kernel.levels if isinstance(level, UnrolledLevel)
                for c in level.copies}

    def visit(body, under):
        grew = False
        for s in body:
            if isinstance(s, ir.Assign) and isinstance(s.target, ir.Name):
                if s.target.id not in varying and (under or _reads(s.value, varying)):
                    varying.add(s.target.id)
                    grew = True
            elif isinstance(s, ir.For):
                if s.var not in varying and (under or _reads([s.start, s.step], varying)):
                    varying.add(s.var)
                    grew = True
                grew |= visit(s.body, under)
            elif isinstance(s, ir.While):
                grew |= visit(s.body, under or _reads(s.test, varying))
            elif isinstance(s, ir.If):
                inner = under or _reads(s.test, varying)
                grew |= visit(s.body, inner) | visit(s.orelse, inner)
        return grew

    while visit(list(kernel.body), False):
        pass
    return varying


def _reads(node, names) -> bool:
    """Whether expression(s) `node` read a variable of `names` (or an array element: its value
    may differ between work-items)."""
    found = []

    def fn(n):
        if isinstance(n, ir.Name) and n.id in names:
            found.append(n)
        elif isinstance(n, ir.Subscript):
            found.append(n)
        return n
    transform(node, fn)
    return bool(found)


def _accessed(body) -> list:
    """The access ids the body reads or writes through (ArrayAccess nodes and vector loads;
    one missing from `KernelNest.accesses` is in a loop that never runs)."""
    found = []

    def fn(n):
        if isinstance(n, (ArrayAccess, VectorLoad)):
            found.append(n.aid)
        return n
    transform(list(body), fn)
    return found
