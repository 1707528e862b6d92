"""Calls compiled code makes through Python: np.random's functions (NumPy's global generator,
the legacy API), Python's random module, and time's clocks. Each call is the module's own
function, called with the GIL (ir.PythonCall, unpy_runtime.hpp's `python_call`): the draws come
from the generator the interpreter uses, so a run seeded with np.random.seed (random.seed) gives
the interpreter's numbers, and the module's state moves as the interpreter's would. A call costs
0.2 to 1 us: an array of draws (size=) is one call.

But np.random's most used functions (NATIVE below) are drawn natively, without Python: NumPy's
own bit generator through its C interface and NumPy's legacy formulas, a few ns a draw, the same
stream and state (unpy_runtime.hpp's np_random and the others, which call the function through
Python where they cannot: parameters NumPy raises on, the function replaced, a team of threads).
Python's random module stays a call through Python: it has no C interface, and carrying its
state in and out (random.getstate / setstate, 9-13 us) costs more than the 0.2 us calls of all
but long loops, and would lose the draws another thread made meanwhile (its state is guarded by
the GIL alone, which compiled code does not hold).

Not inside a prange, whose iterations would take the draws in any order (draw an array before
the loop), and whose threads run without Python. np.random.default_rng's Generator objects are
not supported (the frontend says so)."""
from __future__ import annotations

from dataclasses import dataclass

from unpy import ir
from unpy.ir import Array, Scalar
from unpy.typeinfer.types import PY_INT, is_int

REQUIRED = object()


@dataclass(frozen=True)
class PythonFunction:
    """How compiled code calls one function: its parameters in order (name, default or
    REQUIRED), the dtype of its values ('like' the array it is given: np.random.choice and
    permutation of an array; None: no value), whether it takes size=, whether its parameters
    are the result's dimensions (np.random.rand, randn) and whether it shuffles its first
    argument in place; `draws`: of a random generator (else a clock)."""
    params: tuple = ()
    dtype: str | None = "float64"
    sized: bool = True
    dims: bool = False
    shuffles: bool = False
    draws: bool = True


_FLOATS = {
    "random": (), "random_sample": (), "ranf": (), "sample": (), "standard_normal": (),
    "standard_exponential": (),
    "uniform": (("low", 0.0), ("high", 1.0)), "normal": (("loc", 0.0), ("scale", 1.0)),
    "exponential": (("scale", 1.0),), "lognormal": (("mean", 0.0), ("sigma", 1.0)),
    "gamma": (("shape", REQUIRED), ("scale", 1.0)), "beta": (("a", REQUIRED), ("b", REQUIRED)),
    "chisquare": (("df", REQUIRED),), "laplace": (("loc", 0.0), ("scale", 1.0)),
    "logistic": (("loc", 0.0), ("scale", 1.0)), "gumbel": (("loc", 0.0), ("scale", 1.0)),
    "standard_cauchy": (), "standard_t": (("df", REQUIRED),),
    "triangular": (("left", REQUIRED), ("mode", REQUIRED), ("right", REQUIRED)),
    "weibull": (("a", REQUIRED),), "pareto": (("a", REQUIRED),), "rayleigh": (("scale", 1.0),),
    "vonmises": (("mu", REQUIRED), ("kappa", REQUIRED)),
    "wald": (("mean", REQUIRED), ("scale", REQUIRED)),
}
_INTS = {
    "randint": (("low", REQUIRED), ("high", None)), "poisson": (("lam", 1.0),),
    "binomial": (("n", REQUIRED), ("p", REQUIRED)), "geometric": (("p", REQUIRED),),
    "negative_binomial": (("n", REQUIRED), ("p", REQUIRED)),
    "hypergeometric": (("ngood", REQUIRED), ("nbad", REQUIRED), ("nsample", REQUIRED)),
}
CALLS = {f"numpy.random.{name}": PythonFunction(params) for name, params in _FLOATS.items()}
CALLS.update({f"numpy.random.{name}": PythonFunction(params, "int64")
              for name, params in _INTS.items()})
CALLS.update({
    "numpy.random.rand": PythonFunction(dims=True, sized=False),
    "numpy.random.randn": PythonFunction(dims=True, sized=False),
    "numpy.random.seed": PythonFunction((("seed", REQUIRED),), None, sized=False),
    "numpy.random.choice": PythonFunction((("a", REQUIRED), ("size", None), ("replace", True),
                                 ("p", None)), "like"),
    "numpy.random.permutation": PythonFunction((("x", REQUIRED),), "like", sized=False),
    "numpy.random.shuffle": PythonFunction((("x", REQUIRED),), None, sized=False, shuffles=True),
    # Python's random module: values of Python's types (weak), no size=; time's clocks
    "random.random": PythonFunction((), "float64", sized=False),
    "random.uniform": PythonFunction((("a", REQUIRED), ("b", REQUIRED)), "float64", sized=False),
    "random.gauss": PythonFunction((("mu", 0.0), ("sigma", 1.0)), "float64", sized=False),
    "random.normalvariate": PythonFunction((("mu", 0.0), ("sigma", 1.0)), "float64", sized=False),
    "random.lognormvariate": PythonFunction((("mu", REQUIRED), ("sigma", REQUIRED)), "float64",
                                  sized=False),
    "random.expovariate": PythonFunction((("lambd", 1.0),), "float64", sized=False),
    "random.betavariate": PythonFunction((("alpha", REQUIRED), ("beta", REQUIRED)), "float64",
                               sized=False),
    "random.gammavariate": PythonFunction((("alpha", REQUIRED), ("beta", REQUIRED)), "float64",
                                sized=False),
    "random.triangular": PythonFunction((("low", 0.0), ("high", 1.0), ("mode", None)), "float64",
                              sized=False),
    "random.randint": PythonFunction((("a", REQUIRED), ("b", REQUIRED)), "int64", sized=False),
    "random.randrange": PythonFunction((("start", REQUIRED), ("stop", None), ("step", 1)), "int64",
                             sized=False),
    "random.getrandbits": PythonFunction((("k", REQUIRED),), "int64", sized=False),
    "random.seed": PythonFunction((("a", REQUIRED),), None, sized=False),
    "time.time": PythonFunction((), "float64", sized=False, draws=False),
    "time.perf_counter": PythonFunction((), "float64", sized=False, draws=False),
    "time.monotonic": PythonFunction((), "float64", sized=False, draws=False),
    "time.process_time": PythonFunction((), "float64", sized=False, draws=False),
})


MODULES = ("numpy.random", "random", "time")


def shown(qualified: str) -> str:
    return "np." + qualified[len("numpy."):] if qualified.startswith("numpy.") else qualified


def refused_module_call(qualified: str):
    """The message for a call of np.random, random or time that compiled code does not make,
    or None where `qualified` is none of theirs."""
    module = next((m for m in MODULES if qualified.startswith(m + ".")), None)
    if module is None or qualified in CALLS:
        return None
    known = sorted(shown(q) for q in CALLS if q.startswith(module + "."))
    return (f"{shown(qualified)}() is not supported in compiled code; of {shown(module)} it "
            "calls " + ", ".join(known))


def type_python_call(infer, e: ir.ArrayCall):
    """Type a call through Python (in place): e.args = the positional arguments, e.keywords
    the others (size= kept apart as its dimensions in e.keywords['size']); its type: the
    values', an array where it is given a size (or dimensions), None where it gives none."""
    draw = CALLS[e.func]
    if infer.in_prange and draw.draws:
        raise infer.error(f"{shown(e.func)}() inside a prange is not supported: its iterations "
                          "would take the draws in any order; draw an array before the loop "
                          f"({shown(e.func)}(..., size=n)) and read its elements", e)
    if infer.in_prange:
        raise infer.error(f"{shown(e.func)}() inside a prange is not supported (a call through "
                          "Python); call it before or after the loop", e)
    if draw.dims:
        for k in e.keywords:
            raise infer.error(f"{shown(e.func)}(d0, d1, ...) takes its dimensions by position "
                              f"(got '{k}=')", e.keywords[k])
        dims = infer.shape_dims(e.args, e) if e.args else []
        e.args, e.keywords = dims, {}
        e.type = Array("float64", len(dims)) if dims else Scalar("float64", weak=True)
        return e
    names = [p for p, _ in draw.params]
    if draw.sized and "size" not in names:
        names.append("size")
    if len(e.args) > len(names):
        raise infer.error(f"{shown(e.func)}() takes at most {len(names)} arguments by "
                          f"position ({', '.join(names)})", e)
    from unpy.typeinfer.array_calls import bound_arguments     # (it imports this module)
    given = bound_arguments(infer, e, names, f"{shown(e.func)}({', '.join(names)})")
    for k, default in draw.params:
        if default is REQUIRED and k not in given:
            raise infer.error(f"{shown(e.func)}() needs its argument '{k}'", e)
    size = given.pop("size", None)
    dims = infer.shape_dims(size, e) if size is not None else []
    values = {k: infer.expr(v) for k, v in given.items()}
    like, of_array = None, draw.dtype == "like" or draw.shuffles
    for k, v in values.items():
        takes_array = of_array and k in ("a", "x", "p")
        if isinstance(v.type, Array) and not takes_array:
            raise infer.error(f"{shown(e.func)}() of an array '{k}' is not supported in "
                              "compiled code (one value per draw); draw with scalars and "
                              "scale, e.g. loc + scale * np.random.standard_normal(shape)", v)
        if not isinstance(v.type, (Array, Scalar)):
            raise infer.error(f"{shown(e.func)}(): '{k}' must be a number or an array", v)
        if of_array and k in ("a", "x") and isinstance(v.type, Array):
            if e.func.endswith("choice") and v.type.ndim != 1:
                raise infer.error("np.random.choice(a) takes a 1-D array or an int", v)
            like = v
        elif of_array and k in ("a", "x") and (draw.shuffles or not is_int(v.type)):
            raise infer.error(f"{shown(e.func)}(): '{k}' must be "
                              f"{'an array' if draw.shuffles else 'an array or an int'}", v)
    # by position as the call gives them up to size=, the rest by name (size= from the array)
    cut = names.index("size") if "size" in names else len(names)
    positional = names[:min(len(e.args), cut)]
    e.args = [values[k] for k in positional]
    e.keywords = {k: values[k] for k in values if k not in positional}
    if size is not None:
        e.keywords["size"] = dims
    e.type = _value_type(e, draw, dims, like)
    return e


def _value_type(e, draw, dims, like):
    if draw.dtype is None:
        return None
    if draw.dtype == "like":
        if e.func.endswith("permutation"):
            return like.type if like is not None else Array("int64", 1)
        dtype = like.type.dtype if like is not None else "int64"
        return Array(dtype, len(dims)) if dims else Scalar(dtype)
    if dims:
        return Array(draw.dtype, len(dims))
    # a value of Python's float or int, as both modules give one draw
    return Scalar(draw.dtype, weak=True) if draw.dtype == "float64" else PY_INT


def call_shape(e: ir.ArrayCall) -> list:
    """The dimensions of a draw's array."""
    if CALLS[e.func].dims:
        return list(e.args)
    if e.func.endswith("permutation"):
        return [e.args[0]] if not isinstance(e.args[0].type, Array) else None
    return e.keywords["size"]


def python_call(e: ir.ArrayCall, into=None) -> ir.PythonCall:
    """The IR call of draw `e` (its arguments lowered), filling `into` where given."""
    draw = CALLS[e.func]
    keywords = [k for k in e.keywords if k != "size"]
    args = list(e.args) + [e.keywords[k] for k in keywords]
    return ir.PythonCall(e.func, args, e.loc, None if into is not None else e.type,
                         keywords=keywords, into=into,
                         sized=into is not None and draw.sized and "size" in e.keywords)


# np.random's draws compiled code makes natively (unpy_runtime.hpp's np_random and the others):
# NumPy's own bit generator of its legacy RandomState, through its C interface, and NumPy's
# legacy formulas; the same stream as NumPy's functions, the generator left in the same place.
# Each with its parameters, in order (a parameter not given: its default).
NATIVE = {
    "random": (), "random_sample": (), "ranf": (), "sample": (), "rand": (),
    "standard_normal": (), "randn": (), "standard_exponential": (),
    "normal": ("loc", "scale"), "uniform": ("low", "high"), "exponential": ("scale",),
    "randint": ("low", "high"),
}
_EXACT_INTS = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32")


def native_draw(e: ir.PythonCall):
    """How compiled code draws `e` without Python: (NumPy's function, its parameters: an
    expression, or the default's value), or None where it calls the function through Python
    (a function NATIVE has not, a parameter of another type: an array, a complex, a uint64 or a
    float for randint's bounds, an array filled of another dtype)."""
    module, _, name = e.func.rpartition(".")
    if module != "numpy.random" or name not in NATIVE or (
            e.into is None and not isinstance(e.type, Scalar)):
        return None
    integral = name == "randint"
    filled = e.into.type.dtype if e.into is not None else None
    if filled is not None and filled != ("int64" if integral else "float64"):
        return None
    if CALLS[e.func].dims:              # rand, randn: the values' dimensions, or no argument
        return (name, []) if e.into is not None or not e.args else None
    given = dict(zip([p for p, _ in CALLS[e.func].params], e.args[:len(e.args) - len(e.keywords)]))
    given.update(zip(e.keywords, e.args[len(e.args) - len(e.keywords):]))
    if integral and given.get("high") is None:
        given = {"low": 0, "high": given["low"]}        # randint(n): [0, n), as NumPy's
    defaults = dict(CALLS[e.func].params)
    values = [given.get(p, defaults[p]) for p in NATIVE[name]]
    for v in values:
        if isinstance(v, (int, float)):
            continue
        # (a value C++ converts to int64 / double as Python's int() / float() would)
        exact = _EXACT_INTS if integral else _EXACT_INTS + ("bool", "float32", "float64")
        if not isinstance(v.type, Scalar) or v.type.dtype not in exact:
            return None
    return name, values


def python_call_arrays(e: ir.PythonCall) -> tuple:
    """(arrays read, arrays written) by a draw's call: names."""
    read = [a.id for a in e.args if isinstance(a, ir.Name) and isinstance(a.type, Array)]
    written = [e.into.id] if e.into is not None else []
    if CALLS[e.func].shuffles:
        written += read
    return read, written
