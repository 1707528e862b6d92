"""A kernel nest of tests/jitgpu/gpu_kernels.py bound for given arguments (no device)."""
import inspect

from jitgpu.bind import bind
from jitgpu.nest import instantiate, load_nest
from jitgpu.opencl_emit import print_kernel
from jitgpu.plan import DeviceFacts, plan_call

FACTS = DeviceFacts("test", False, 1 << 30, 1 << 30, 1e10, 1e10)


def bound(gpu, func, *args):
    """The KernelNest of `func`'s first nest (whose free variables must be its arguments)."""
    nest = load_nest(gpu.compiled.__name__, func, 0)
    values = dict(zip(inspect.signature(getattr(gpu.interpreted, func)).parameters, args))
    instance = instantiate(nest, values)
    plan = plan_call(instance, values, FACTS, forced=True)
    kernel = bind(instance, plan.parts[0], values, True)
    print_kernel(kernel)
    return kernel
