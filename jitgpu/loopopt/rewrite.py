"""Tree rewriting helpers of the kernel loop optimisations: the IR-generic ones live in
unpy/loopopt/rewrite.py (both back ends use them); these know the kernel's accesses."""
from __future__ import annotations

from jitgpu.nest import ArrayAccess
from unpy.loopopt.rewrite import transform


def accesses_of(node):
    """The ArrayAccess nodes below `node` (loads and stores)."""
    found = []

    def fn(n):
        if isinstance(n, ArrayAccess):
            found.append(n)
        return n
    transform(node, fn)
    return found


def next_aid(kernel) -> int:
    return max([aid for aid, _ in kernel.accesses], default=-1) + 1
