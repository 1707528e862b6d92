"""Tree rewriting helpers of the kernel loop optimisations that know the kernel's access table:
the IR-generic ones live in unpy/loopopt/rewrite.py and unpy/loopopt/nest.py (both back ends use
them)."""
from __future__ import annotations


def next_aid(kernel) -> int:
    return max([aid for aid, _ in kernel.accesses], default=-1) + 1
