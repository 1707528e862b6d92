"""The user-facing side of unpy: annotations, `prange` and `explain`.

Under the plain interpreter the decorators return the function unchanged and `prange` is `range`.
When a compiled module built by `unpy build` is imported, it runs the module's own source with
`__unpy_compiled__` in its globals holding the compiled functions, and each decorator hands back
the compiled function instead of the Python one, so module-level code sees the compiled version
from its definition on.
"""
import os

__all__ = ["type", "locals", "gpu", "prange", "explain", "devices"]

prange = range

def _bind(f):
    """The compiled replacement of `f`, if its module is a compiled module being imported."""
    if os.environ.get("UNPY_DISABLE") == "1":
        return f
    compiled = getattr(f, "__globals__", {}).get("__unpy_compiled__", {})
    return compiled.get(getattr(f, "__name__", None), f)


def type(*types):
    """`@unpython.type(T1, ..., Tn, R)`: parameter types, then the return type (None: none)."""
    return _bind


def locals(**types):
    """`@unpython.locals(name='type', ...)`: declared types of local variables."""
    return _bind


def gpu(f=None, **options):
    """`@unpython.gpu` or `@unpython.gpu(...)`: run this function's outermost prange nests on
    the OpenCL device when possible."""
    if f is None:
        return _bind
    return _bind(f)


def explain(f, source=False):
    """How each loop nest of compiled function `f` ran on its last call (see jitgpu.report);
    `source=True` also prints each GPU nest's plan and OpenCL source."""
    from jitgpu.report import explain as _explain
    return _explain(f, source)


def devices(fresh=False):
    """Every OpenCL device seen, whether it works (its probe built and ran a small kernel) and
    why not, and the device each `UNPY_DEVICE` choice picks; print it for a table. `fresh`
    probes again instead of trusting earlier results (see gpurts.device.device_report)."""
    from gpurts import device_report
    return device_report(fresh)
