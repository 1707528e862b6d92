"""The user-facing side of unpy: annotations, `prange` and `explain`.

Under the plain interpreter the decorators return the function unchanged and `prange` is `range`.
When a compiled module built by `unpy build` is imported, it runs the module's own source with
`__unpy_compiled__` in its globals holding the compiled functions, and each decorator hands back
the compiled function instead of the Python one, so module-level code sees the compiled version
from its definition on.
"""
import functools
import types as _types

__all__ = ["type", "locals", "gpu", "prange", "explain", "devices", "resident", "sync"]

prange = range

def _bind(f):
    """The compiled replacement of `f`, if its module is a compiled module being imported:
    the compiled function behind the Python function's signature and docstring."""
    compiled = getattr(f, "__globals__", {}).get("__unpy_compiled__", {})
    found = compiled.get(getattr(f, "__name__", None), f)
    if found is f or isinstance(found, _types.FunctionType):    # not compiled, or wrapped
        return found
    from unpy.settings import current      # (a compiled module: unpy is installed)
    if current().disable:
        return f
    wrapper = compiled[f.__name__] = _behind_signature(found, f)
    return wrapper


def _behind_signature(compiled, f):
    """`compiled` called as `f` is: inspect.signature, help() and the docstring are f's (the
    compiled function itself binds the arguments as Python does, and its TypeErrors name the
    function and the argument)."""
    @functools.wraps(f)
    def call(*args, **kwargs):
        return compiled(*args, **kwargs)
    call.__unpy_compiled__ = compiled         # the compiled function itself
    call.__doc__ = "\n\n".join(d for d in (f.__doc__, compiled.__doc__) if d)
    return call


def type(*types):
    """`@unpython.type(T1, ..., Tn, R)`: parameter types, then the return type (None: none).
    Given more than once, or with a list of such tuples (`@unpython.type([(T1, R), (U1, S)])`),
    the function is compiled for each signature, and a call takes the first signature whose
    types are the arguments' own, else the first that takes them converted."""
    return _bind


def locals(**types):
    """`@unpython.locals(name='type', ...)`: declared types of local variables."""
    return _bind


def gpu(f=None, *, devices=None):
    """`@unpython.gpu` or `@unpython.gpu(devices=...)`: run this function's outermost prange
    nests on the OpenCL device when possible. `devices`: where, as `UNPY_DEVICE` says it (a
    spec, or several as a list or a comma-separated string, e.g. "gpu0,gpu1,openmp": each nest
    split across them); `UNPY_DEVICE`, when set, wins."""
    if f is None:
        return lambda g: _bind(_with_devices(g, devices))
    return _bind(f)


# (module, function) -> its @gpu(devices=...) spec, where the GPU hook (jitgpu.multi) looks.
_devices = {}


def _with_devices(f, devices):
    if devices is not None:
        spec = devices if isinstance(devices, str) else ",".join(devices)
        _devices[(getattr(f, "__module__", None), getattr(f, "__name__", None))] = spec
    return f


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


class resident:
    """`with unpython.resident(a, b, ...):` keeps these arrays on the OpenCL device across calls
    of compiled @gpu functions: a call that finds one there copies nothing in,
    and what the device wrote stays there. On leaving the block, also by an exception,
    everything is written back. Python code inside the block that reads or writes one of the
    arrays calls `unpython.sync(a)` first (compiled functions need no such call). Under the
    plain interpreter, or with UNPY_RESIDENT=0, it does nothing."""

    def __init__(self, *arrays):
        self.arrays = arrays
        self.holds = None

    def __enter__(self):
        try:
            from unpy.settings import current
            if current().disable or not current().resident:
                return self
            from gpurts.residency import TABLE
        except ImportError:      # the plain interpreter without unpy installed
            return self
        self.holds = TABLE.hold(self.arrays)
        return self

    def __exit__(self, *exc):
        if self.holds is not None:
            from gpurts.residency import TABLE
            holds, self.holds = self.holds, None
            TABLE.release(holds)
        return False


def sync(*arrays):
    """Make the host copies of `arrays` current, and forget their device copies, so that
    Python code may read and write them inside a `resident` block (a no-op elsewhere)."""
    try:
        from unpy.settings import current
        if current().disable:
            return
        from gpurts.residency import TABLE
    except ImportError:
        return
    TABLE.sync(arrays)
