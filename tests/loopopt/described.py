"""LoopNests of a kernel source file's function, as each back end describes its first nest: the
C++ path's (unpy.loopopt.nest.cpu_nest), the GPU path's of the nest bound for given arguments
(jitgpu/loopopt/view.py; no build, no device)."""
from pathlib import Path

from jitgpu.bind import bind
from jitgpu.loopopt.view import loop_nest
from jitgpu.nest import _load, instantiate
from jitgpu.plan import DeviceFacts, plan_call
from unpy import ir
from unpy.cpp_emit.module import gpu_nests
from unpy.loopopt.nest import cpu_nest
from unpy.pipeline import compile_to_ir
from unpy.typeinfer.independent_loops import with_independent_levels
from unpy.typeinfer.reductions import outermost_pranges

TESTS = Path(__file__).resolve().parents[1]
FACTS = DeviceFacts("test", False, 1 << 30, 1 << 30, 1e10, 1e10)


def function(path: Path, name: str) -> ir.Function:
    module = compile_to_ir(str(path), path.read_text())
    return next(f for f in module.functions if f.name == name)


def bound_kernel(path: Path, name: str, *args, **local_values):
    """The KernelNest of function `name`'s first nest, bound for `args`, with the values of
    the locals the nest reads (`n = c.shape[0]` before it) in `local_values`."""
    fn = function(path, name)
    nest = _load(ir.to_json(gpu_nests(fn)[0]))
    values = dict(zip([p.name for p in fn.params], args), **local_values)
    instance = instantiate(nest, values)
    plan = plan_call(instance, values, FACTS, forced=True)
    return bind(instance, plan.parts[0], values, True)


def gpu_view(path: Path, name: str, *args, **local_values):
    return loop_nest(bound_kernel(path, name, *args, **local_values))


def cpu_view(path: Path, name: str):
    """The C++ path's LoopNest of the first nest, its independent levels marked as
    optimise_for_cpu marks them."""
    nest = next(outermost_pranges(function(path, name).body))
    return cpu_nest(with_independent_levels(nest, sink=False))
