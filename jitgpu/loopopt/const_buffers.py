"""const_buffers: buffers the kernel only reads are `const ... restrict`."""
from __future__ import annotations

import dataclasses

from jitgpu.bind import KernelNest
from unpy.loopopt.effects import stored_accesses


def written_buffers(kernel: KernelNest) -> set:
    """The numbers of the buffers some statement of the body stores into."""
    table = dict(kernel.accesses)      # a store missing from it is in a loop that never runs
    return {table[e.aid].buffer for e in stored_accesses(list(kernel.body)) if e.aid in table}


def const_buffers(kernel: KernelNest) -> KernelNest:
    """Mark each buffer parameter that no statement of the body stores into `read_only`; the
    printer declares it `__global const T* restrict`, which lets the OpenCL compiler keep its
    elements in registers across stores to other buffers and use the read-only data cache.

    Legal always: a buffer is one transfer group, and groups never share memory (arrays that
    overlap are in one group), so no store through another parameter can change it; the flag
    only states what the body does."""
    written = written_buffers(kernel)
    params = tuple(dataclasses.replace(p, read_only=int(p.name[1:]) not in written)
                   if p.kind == "buffer" else p for p in kernel.params)
    if params == kernel.params:
        return kernel
    return kernel.replace(params=params, transforms=kernel.transforms + ("const_buffers",))
