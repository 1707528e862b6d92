"""Loop optimisations of the C++ path: pure passes `ir.Function -> ir.Function`, one per
module, applied by cpp_emit to the function it prints (the IR embedded for the GPU path keeps
the loops as written: jitgpu/loopopt optimises its kernels at the call). Each pass's docstring
says when it is legal; a pass adds alternatives that cpp_emit runs where their run-time
conditions hold, so results stay the interpreter's."""
from __future__ import annotations

from unpy import ir
from unpy.loopopt.register_blocks import register_blocks
from unpy.typeinfer.reductions import walk_stmts

PASSES = (register_blocks,)


def optimise_for_cpu(fn: ir.Function) -> ir.Function:
    for apply in PASSES:
        fn = apply(fn)
    return fn


def blocked_nests(functions) -> int:
    """How many prange nests of `functions` have a register-blocked form (for `unpy build`)."""
    return sum(1 for fn in functions for s in walk_stmts(optimise_for_cpu(fn).body)
               if isinstance(s, ir.For) and s.blocked)
