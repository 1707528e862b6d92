"""Random programs over the dialect that unpy compiles (docs/supported.md), valid in the
interpreter by construction: every index is in range for the sizes the program is called with,
no integer division or modulo by zero, no float domain errors, no races in `prange` loops, and
no construct whose interpreter result type depends on values (`min` of mixed types, `x if c
else y` of two types).

`generate(seed)` returns a `Program`: the source of its compiled helper functions and of its
main function (twice: `<name>`, the OpenMP path, and `<name>_gpu`, decorated with
`@unpython.gpu`), and `make_args()`, which builds the same arguments afresh each time it is
called (arrays of every layout: contiguous, strided, negative strides, Fortran order,
transposed, offset, read-only, and read-only arguments that are one array or overlapping views
of one buffer).

Types are tracked with NumPy itself: every expression carries a sample value (a NumPy scalar or
array of its dtype and shape; a Python int or float for a weak scalar, NEP 50), and the sample
of `a + b` is the sample of `a` plus the sample of `b`. So the dtype and shape the interpreter
gives are known while generating, and each store is checked to cast as NumPy casts.
"""
from __future__ import annotations

import math
import random
import warnings
from dataclasses import dataclass, field

import numpy as np

NUMERIC = ["int32", "int64", "float32", "float64"]
ALL_DTYPES = NUMERIC + ["bool", "complex128"]


# --- samples and types -------------------------------------------------------------------

def dt(sample) -> np.dtype:
    """The dtype of a sample (a Python scalar as NumPy stores it)."""
    if isinstance(sample, np.ndarray | np.generic):
        return sample.dtype
    return np.asarray(sample).dtype


def weak(sample) -> bool:
    return isinstance(sample, bool | int | float | complex) and not isinstance(sample, np.generic)


def kind(sample) -> str:
    """'b', 'i', 'f' or 'c'."""
    return dt(sample).kind


def shape(sample) -> tuple:
    return sample.shape if isinstance(sample, np.ndarray) else ()


def type_string(sample) -> str:
    if isinstance(sample, np.ndarray):
        return f"ndarray[{sample.dtype.name}, {sample.ndim}]"
    return dt(sample).name


def quiet(f, *args):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return f(*args)


def sample_of(dtype: str, shape_=()):
    """A sample: ones of `dtype` (an array when `shape_` has dimensions)."""
    if shape_:
        return np.ones(shape_, dtype)
    return np.dtype(dtype).type(1)


@dataclass
class Ex:
    """An expression: its code, its sample, and whether a float value is computed the same
    everywhere (a leaf or a sum of two leaves: no rounding the OpenCL compiler may contract, no
    libm function), so that a comparison or a floor of it gives the same answer everywhere."""
    code: str
    sample: object
    exact: bool = True
    leaf: bool = False

    @property
    def dtype(self):
        return dt(self.sample)

    @property
    def kind(self):
        return kind(self.sample)

    @property
    def shape(self):
        return shape(self.sample)

    def decides(self) -> bool:
        """May feed a comparison, floor, `//`, `%` or int(): integers and bools always, floats
        when exact, complex never."""
        return self.kind in "bi" or (self.kind == "f" and self.exact)


# --- arrays and arguments ----------------------------------------------------------------

@dataclass
class Arr:
    """An array the program can name: a parameter, a local, or a view bound to a name."""
    name: str
    sample: np.ndarray
    writable: bool
    root: str                    # the parameter or allocation whose memory it is

    @property
    def dtype(self):
        return self.sample.dtype

    @property
    def shape(self):
        return self.sample.shape


@dataclass
class ArrayParam:
    name: str
    dtype: str
    shape: tuple
    written: bool
    layout: str = "c"            # c, step, neg, F, T, offset
    readonly: bool = False
    alias_of: str | None = None  # a read-only parameter whose buffer this one shares
    alias_shift: int = 0
    values: str = "default"

    @property
    def type(self):
        return f"ndarray[{self.dtype}, {len(self.shape)}]"


@dataclass
class ScalarParam:
    name: str
    dtype: str
    value: object                # what the call passes (a Python or NumPy scalar)

    @property
    def type(self):
        return self.dtype


def random_values(rng: np.random.Generator, dtype: str, shape_: tuple):
    n = int(np.prod(shape_))
    if dtype == "bool":
        v = rng.random(n) < 0.5
    elif dtype in ("int32", "int64"):
        v = rng.integers(-20, 21, n).astype(dtype)
    elif dtype == "complex128":
        v = (rng.uniform(-2, 2, n) + 1j * rng.uniform(-2, 2, n)).round(3)
    else:
        v = rng.uniform(-2, 2, n).round(3).astype(dtype)
    return v.reshape(shape_)


def layout_array(values: np.ndarray, layout: str, rng: np.random.Generator) -> np.ndarray:
    """An array equal to `values` in the given layout (a view of a larger buffer)."""
    s = values.shape
    if layout == "step":
        if len(s) == 1:
            base = random_values(rng, values.dtype.name, (2 * s[0] + 1,))
            view = base[1::2]
        else:
            base = random_values(rng, values.dtype.name, (s[0], 2 * s[1]))
            view = base[:, ::2]
    elif layout == "neg":
        base = np.empty(s, values.dtype)
        view = base[::-1] if len(s) == 1 else base[::-1, ::-1]
    elif layout == "F" and len(s) == 2:
        view = np.asfortranarray(np.empty(s, values.dtype))
    elif layout == "T" and len(s) == 2:
        view = np.empty(s[::-1], values.dtype).T
    elif layout == "offset":
        base = random_values(rng, values.dtype.name, (s[0] + 3,) + s[1:])
        view = base[2:s[0] + 2]
    else:
        view = np.empty(s, values.dtype)
    view[...] = values
    return view


# --- programs ----------------------------------------------------------------------------

@dataclass
class Program:
    name: str
    seed: int
    params: list
    body: list                   # lines of the main function's body, indented by 4
    ret: str | None              # the return type string
    helpers: list = field(default_factory=list)     # source of helper functions
    features: set = field(default_factory=set)

    def signature(self) -> str:
        types = [repr(p.type) for p in self.params] + [repr(self.ret) if self.ret else "None"]
        return f"@unpython.type({', '.join(types)})"

    def main_source(self, gpu: bool) -> str:
        name = f"{self.name}_gpu" if gpu else self.name
        head = ["@unpython.gpu"] if gpu else []
        head += [self.signature(), f"def {name}({', '.join(p.name for p in self.params)}):"]
        return "\n".join(head + self.body) + "\n"

    def source(self) -> str:
        """The helpers and both variants of the main function (no module header)."""
        parts = list(self.helpers) + [self.main_source(False), self.main_source(True)]
        return "\n\n".join(parts)

    def make_args(self) -> tuple:
        """Fresh arguments, the same at every call."""
        rng = np.random.default_rng(self.seed)
        made = {}
        for p in self.params:
            if isinstance(p, ScalarParam):
                made[p.name] = p.value
                continue
            if p.alias_of is not None:
                other = made[p.alias_of]
                if p.alias_shift == 0:
                    made[p.name] = other
                else:      # a window of the other's buffer, shifted by one element
                    base = other.base if other.base is not None else other
                    made[p.name] = base[p.alias_shift:p.alias_shift + other.shape[0]]
                continue
            values = random_values(rng, p.dtype, p.shape)
            if p.alias_of is None and any(q.alias_of == p.name and q.alias_shift
                                          for q in self.params if isinstance(q, ArrayParam)):
                base = random_values(rng, p.dtype, (p.shape[0] + 1,) + p.shape[1:])
                base[:p.shape[0]] = values
                base.flags.writeable = False
                arr = base[:p.shape[0]]
            else:
                arr = layout_array(values, p.layout, rng)
                if p.readonly:
                    arr.flags.writeable = False
            made[p.name] = arr
        return tuple(made[p.name] for p in self.params)

    def module_source(self, module_header: str = "") -> str:
        return (module_header or HEADER) + "\n\n" + self.source() + "\n"


HEADER = "import math\n\nimport numpy as np\n\nimport unpython\nfrom unpython import prange\n"


class Retry(Exception):
    """This choice does not fit: try another."""


class Gen:
    """Generates one program from `seed`."""

    def __init__(self, seed: int, name: str | None = None, features: set | None = None):
        self.seed = seed
        self.r = random.Random(seed)
        self.name = name or f"p{seed}"
        self.features_allowed = features
        self.features = set()
        self.arrays: dict[str, Arr] = {}
        self.scalars: dict[str, Ex] = {}     # scalar names readable now
        self.loopvars: list = []             # (name, lo, hi) of the enclosing loops
        self.lines: list[str] = []
        self.indent = 1
        self.counter = 0
        self.helpers: list[str] = []
        self.in_prange_writes: set | None = None   # roots a prange body writes
        self.in_prange = False
        self.returns: list[Ex] = []

    # -- small utilities --

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def emit(self, line: str):
        self.lines.append("    " * self.indent + line)

    def allowed(self, feature: str) -> bool:
        return self.features_allowed is None or feature in self.features_allowed

    def use(self, feature: str):
        self.features.add(feature)

    def pick(self, options):
        return self.r.choice(list(options))

    def chance(self, p: float) -> bool:
        return self.r.random() < p

    # -- parameters --

    def make_params(self):
        r = self.r
        big = self.chance(0.06)
        self.N = r.randint(20, 48) if big else r.randint(1, 9)
        self.M = r.randint(20, 40) if big else r.randint(1, 7)
        dtypes = [d for d in ALL_DTYPES if d != "complex128" or self.allowed("complex")]
        weights = {"int32": 2, "int64": 3, "float32": 2, "float64": 4, "bool": 1,
                   "complex128": 1}
        self.main_dtype = r.choices(dtypes, [weights[d] for d in dtypes])[0]
        if self.main_dtype == "bool":
            self.main_dtype = "int64"
        params = []
        n_in = r.randint(1, 3)
        for k in range(n_in):
            dtype = self.main_dtype if k == 0 or self.chance(0.5) else r.choice(dtypes)
            shp = self.pick([(self.N,), (self.N, self.M), (self.M,)]) if k else (
                self.pick([(self.N,), (self.N, self.M)]))
            layout = "c"
            if self.allowed("strides") and self.chance(0.55):
                layout = self.pick(["step", "neg", "offset"] + (["F", "T"] if len(shp) == 2
                                                                else []))
                self.use(f"layout-{layout}")
            p = ArrayParam(f"a{k}", dtype, shp, False, layout,
                           readonly=self.allowed("strides") and self.chance(0.2))
            if p.readonly:
                self.use("readonly-arg")
            if k and self.allowed("alias") and self.chance(0.25):
                same = [q for q in params if q.dtype == dtype and q.shape == shp
                        and q.alias_of is None]
                if same:
                    q = same[0]
                    p.alias_of = q.name
                    p.alias_shift = 1 if len(shp) == 1 and self.chance(0.5) else 0
                    self.use("alias-args" if p.alias_shift == 0 else "overlapping-args")
            params.append(p)
        n_out = r.randint(0, 2)
        for k in range(n_out):
            dtype = self.main_dtype if self.chance(0.6) else r.choice(dtypes)
            shp = self.pick([(self.N,), (self.N, self.M)])
            layout = "c"
            if self.allowed("strides") and self.chance(0.45):
                layout = self.pick(["step", "neg", "offset"] + (["F", "T"] if len(shp) == 2
                                                                else []))
                self.use(f"layout-{layout}")
            params.append(ArrayParam(f"o{k}", dtype, shp, True, layout))
        for k in range(r.randint(0, 2)):
            dtype = self.pick(["int64", "float64", "float32", "int32"])
            if dtype in ("int64", "int32"):
                v = r.randint(-6, 9)
            else:
                v = round(r.uniform(-2, 2), 3)
            python = dtype in ("int64", "float64") and self.chance(0.5)
            value = v if python else np.dtype(dtype).type(v)
            params.append(ScalarParam(f"s{k}", dtype, value))
        self.params = params
        for p in params:
            if isinstance(p, ArrayParam):
                self.arrays[p.name] = Arr(p.name, sample_of(p.dtype, p.shape), p.written, p.name)
            else:
                self.scalars[p.name] = Ex(p.name, np.dtype(p.dtype).type(1), True, True)

    # -- leaves --

    def int_literal(self) -> Ex:
        if self.chance(0.03):
            # a large strong integer: its products wrap (SPEC section 3) in the interpreter's
            # NumPy scalars as in compiled code; never a Python int (unbounded)
            v = self.pick([65537, -100003, 1 << 20, 2_000_000_011])
            t = "int64" if abs(v) > 2**31 - 1 or self.chance(0.5) else "int32"
            return Ex(f"np.{t}({v})", np.dtype(t).type(v), True, True)
        v = self.r.randint(-4, 9)
        return Ex(str(v) if v >= 0 else f"({v})", v, True, True)

    def float_literal(self) -> Ex:
        v = self.pick([0.5, 1.5, 2.0, 0.25, -1.0, 3.0, -0.75])
        return Ex(repr(v) if v >= 0 else f"({v!r})", v, True, True)

    def index_options(self, length: int, length_code: str) -> list:
        """Index expressions in range for an axis of `length`, from the loop variables."""
        out = []
        if length >= 1:
            out += ["0", "-1", f"{length_code} - 1"]
        for name, lo, hi in self.loopvars:
            if 0 <= lo and hi <= length - 1:
                out += [name, name, f"{length_code} - 1 - {name}", f"-1 - {name}",
                        f"{name} - {length_code}"]
            if length >= 1 and lo >= 0:
                out += [f"{name} % {length_code}", f"({name} * 3 + 1) % {length_code}",
                        f"min({name}, {length_code} - 1)"]
        return out

    def element(self, exclude_roots=()) -> Ex:
        arrays = [a for a in self.arrays.values() if a.root not in exclude_roots
                  and all(s >= 1 for s in a.shape)]
        if not arrays:
            raise Retry
        a = self.pick(arrays)
        idx = [self.pick(self.index_options(s, f"{a.name}.shape[{d}]"))
               for d, s in enumerate(a.shape)]
        code = (f"{a.name}[{', '.join(idx)}]" if len(idx) == 1 or self.chance(0.8)
                else "".join(f"{a.name}[{i}]" if k == 0 else f"[{i}]"
                             for k, i in enumerate(idx)))
        return Ex(code, a.sample.flat[0], True, True)

    def scalar_leaf(self, exclude_roots=()) -> Ex:
        choices = ["element"] * 5 + ["literal"] * 2
        if self.scalars:
            choices += ["scalar"] * 2
        if self.loopvars:
            choices += ["loopvar"]
        c = self.pick(choices)
        if c == "element":
            try:
                return self.element(exclude_roots)
            except Retry:
                c = "literal"
        if c == "scalar":
            name = self.pick(self.scalars)
            return Ex(name, self.scalars[name].sample, True, True)
        if c == "loopvar":
            return Ex(self.pick(self.loopvars)[0], 1, True, True)
        return self.int_literal() if self.chance(0.5) else self.float_literal()

    # -- scalar expressions (element context) --

    def scalar_expr(self, depth: int, exclude_roots=()) -> Ex:
        if depth <= 0 or self.chance(0.25):
            return self.scalar_leaf(exclude_roots)
        for _ in range(20):
            try:
                return self._scalar_node(depth, exclude_roots)
            except Retry:
                continue
        return self.scalar_leaf(exclude_roots)

    def _scalar_node(self, depth, ex) -> Ex:
        r = self.r
        op = self.pick(["+"] * 3 + ["-"] * 2 + ["*"] * 3 + ["/", "//", "%", "**", "cmp-if",
                        "minmax", "unary", "func", "math", "bit", "helper", "cast"])
        a = self.scalar_expr(depth - 1, ex)
        if op in ("+", "-", "*"):
            b = self.scalar_expr(depth - 1, ex)
            if op == "-" and a.kind == "b" and b.kind == "b":
                raise Retry
            return self.binary(a, op, b)
        if op == "/":
            b = self.scalar_expr(depth - 1, ex)
            if b.kind == "b":
                raise Retry
            den = Ex(f"(abs({b.code}) + 1)", quiet(lambda s: abs(s) + 1, b.sample), False)
            return self.binary(a, "/", den)
        if op in ("//", "%"):
            b = self.scalar_expr(depth - 1, ex)
            if not (a.decides() and b.decides()) or "c" in (a.kind + b.kind) or (
                    a.kind == "b" or b.kind == "b"):
                raise Retry
            if self.chance(0.3):     # a negative divisor: floor rounds toward -inf
                den = Ex(f"(-1 - abs({b.code}))", quiet(lambda s: -1 - abs(s), b.sample),
                         b.kind != "f")
            else:
                den = Ex(f"(abs({b.code}) + 1)", quiet(lambda s: abs(s) + 1, b.sample),
                         b.kind != "f")
            e = self.binary(a, op, den)
            e.exact = False
            return e
        if op == "**":
            if a.kind == "b" or not a.leaf:
                raise Retry
            if a.kind == "f" and self.chance(0.3):
                return Ex(f"abs({a.code}) ** 0.5", quiet(lambda s: abs(s) ** 0.5, a.sample),
                          False)
            p = self.pick([2, 3]) if a.kind != "c" else 2
            return Ex(f"{a.code} ** {p}", quiet(lambda s: s ** p, a.sample), a.kind in "bi")
        if op == "cmp-if":
            b = self.scalar_expr(depth - 1, ex)
            x, y = self.scalar_expr(depth - 1, ex), self.scalar_expr(depth - 1, ex)
            if not (a.decides() and b.decides()) or "c" in a.kind + b.kind:
                raise Retry
            if dt(x.sample) != dt(y.sample) or weak(x.sample) != weak(y.sample):
                raise Retry
            c = self.pick(["<", "<=", ">", ">=", "==", "!="])
            self.use("conditional-expr")
            return Ex(f"({x.code} if {a.code} {c} {b.code} else {y.code})", x.sample,
                      x.exact and y.exact)
        if op == "minmax":
            b = self.scalar_expr(depth - 1, ex)
            if dt(a.sample) != dt(b.sample) or weak(a.sample) != weak(b.sample) or \
                    a.kind in "cb":
                raise Retry
            f = self.pick(["min", "max"])
            return Ex(f"{f}({a.code}, {b.code})", a.sample, a.exact and b.exact)
        if op == "unary":
            if a.kind == "b":
                raise Retry
            if self.chance(0.5):
                return Ex(f"(-{a.code})", quiet(lambda s: -s, a.sample), a.exact, a.leaf)
            return Ex(f"abs({a.code})", quiet(abs, a.sample), a.exact, a.leaf)
        if op == "func":
            if a.kind == "b":
                raise Retry
            if a.kind == "c":
                f = self.pick(["np.conj", "real", "imag", "abs"])
                if f == "real" or f == "imag":
                    return Ex(f"{a.code}.{f}" if a.leaf else f"({a.code}).{f}",
                              quiet(lambda s: getattr(s, f), a.sample), False)
                return Ex(f"{f}({a.code})", quiet(eval(f, {"np": np}), a.sample), False)
            f = self.pick(["np.sin", "np.cos", "np.tanh", "np.sqrt(np.abs", "np.floor",
                           "np.log1p(np.abs", "np.exp(-np.abs"])
            if f == "np.floor":
                if not a.decides():
                    raise Retry
                if a.kind != "f":
                    raise Retry
                return Ex(f"np.floor({a.code})", quiet(np.floor, a.sample), a.exact)
            code = f"{f}({a.code}))" if "(" in f else f"{f}({a.code})"
            fn = eval(f"lambda s: {f}(s)){')' if f.count('(') > 1 else ''}"
                      if "(" in f else f"lambda s: {f}(s)", {"np": np})
            return Ex(code, quiet(fn, a.sample), False)
        if op == "math":
            if a.kind in "bc":
                raise Retry
            f = self.pick(["math.sin", "math.cos", "math.sqrt(abs", "math.atan",
                           "math.floor"])
            if f == "math.floor":
                if not a.decides():
                    raise Retry
                return Ex(f"math.floor({a.code})", 1, a.kind != "f" or a.exact)
            self.use("math-module")
            code = f"{f}({a.code}))" if "(" in f else f"{f}({a.code})"
            return Ex(code, 1.0, False)
        if op == "bit":
            b = self.scalar_expr(depth - 1, ex)
            if a.kind not in "bi" or b.kind not in "bi":
                raise Retry
            o = self.pick(["&", "|", "^"])
            return self.binary(a, o, b)
        if op == "cast":
            if a.kind == "c":
                raise Retry
            c = self.pick(["float", "np.float32", "np.int64", "int", "np.float64"])
            if c in ("int", "np.int64") and not a.decides():
                raise Retry
            if c in ("int", "np.int64") and a.kind == "f" and not self.chance(0.5):
                raise Retry
            fn = {"float": float, "int": int, "np.float32": np.float32, "np.int64": np.int64,
                  "np.float64": np.float64}[c]
            self.use("casts")
            return Ex(f"{c}({a.code})", quiet(fn, a.sample), a.exact)
        if op == "helper":
            if not self.allowed("helpers"):
                raise Retry
            return self.scalar_helper_call(depth, ex)
        raise Retry

    def strong(self, e: Ex) -> Ex:
        """`e` as a NumPy scalar: a local bound to a Python scalar is weak in the interpreter
        and of its first assignment's type compiled (tests/fuzz/findings.md)."""
        if not weak(e.sample):
            return e
        t = dt(e.sample)
        return Ex(f"np.{t.name}({e.code})", t.type(e.sample), e.exact)

    def binary(self, a: Ex, op: str, b: Ex) -> Ex:
        try:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("error", DeprecationWarning)
                s = eval(f"x {op} y", {}, {"x": a.sample, "y": b.sample})
        except Exception:
            raise Retry
        if isinstance(s, np.ndarray) and s.ndim == 0:
            s = s[()]
        if dt(s).kind == "f" and dt(s).itemsize < 4:
            raise Retry
        exact = (a.kind in "bi" and b.kind in "bi") or (
            op in "+-" and a.leaf and b.leaf) or (op == "*" and a.leaf and b.leaf)
        return Ex(f"({a.code} {op} {b.code})", s, exact)

    # -- helpers --

    def scalar_helper_call(self, depth, ex) -> Ex:
        """A compiled helper taking and returning scalars, called with arguments of exactly
        its parameter types (weak values made strong: the interpreter would otherwise compute
        with other types than the compiled helper)."""
        args = []
        for _ in range(self.r.randint(1, 2)):
            a = self.scalar_expr(depth - 1, ex)
            if a.kind == "c" and not self.allowed("complex"):
                raise Retry
            if weak(a.sample):
                t = dt(a.sample).name
                a = Ex(f"np.{t}({a.code})", dt(a.sample).type(a.sample), a.exact)
            args.append(a)
        name = self.fresh(f"{self.name}_h")
        params = [f"x{k}" for k in range(len(args))]
        saved = (self.scalars, self.loopvars, self.arrays)
        self.scalars = {p: Ex(p, a.sample, True, True) for p, a in zip(params, args)}
        self.loopvars, self.arrays = [], {}
        try:
            body = self.scalar_expr(2)
        finally:
            self.scalars, self.loopvars, self.arrays = saved
        if weak(body.sample):
            body = Ex(f"np.{dt(body.sample).name}({body.code})", dt(body.sample).type(
                body.sample), body.exact)
        types = [repr(dt(a.sample).name) for a in args] + [repr(dt(body.sample).name)]
        src = (f"@unpython.type({', '.join(types)})\ndef {name}({', '.join(params)}):\n"
               f"    return {body.code}\n")
        self.helpers.append(src)
        self.use("scalar-helper")
        return Ex(f"{name}({', '.join(a.code for a in args)})", body.sample,
                  body.exact and all(a.exact for a in args))

    # -- views and whole-array expressions --

    def views(self, a: Arr) -> list:
        """(code, sample) of views of `a`."""
        out = [(a.name, a.sample)]
        if not self.allowed("views"):
            return out
        if a.sample.ndim == 1:
            forms = ["[::-1]", "[1:]", "[:-1]", "[::2]", "[1::2]", "[::-2]", "[1:-1]"]
        else:
            forms = [".T", "[::-1, :]", "[:, ::2]", "[1:, :]", "[:, ::-1]", "[0]", "[-1]",
                     "[:, 0]", "[:, -1]", "[::2, ::-1]", "[1:]"]
        for f in forms:
            try:
                s = eval(f"s{f}", {}, {"s": a.sample})
            except IndexError:
                continue
            if s.ndim >= 1:
                out.append((f"{a.name}{f}", s))
        return out

    def broadcasts(self, s: tuple, target: tuple, ones=()) -> bool:
        """Shape `s` (whose dimensions in `ones` are a literal 1) fits `target` by rank and
        literal-1 dimensions only (docs/supported.md: a length 1 known only at run time does
        not broadcast)."""
        if len(s) > len(target):
            return False
        for k in range(1, len(s) + 1):
            d = len(s) - k
            if s[d] != target[-k] and not (s[d] == 1 and d in ones):
                return False
        return True

    def array_leaf(self, target: tuple, exclude_roots=()) -> Ex:
        cands = []
        for a in self.arrays.values():
            if a.root in exclude_roots:
                continue
            for code, s in self.views(a):
                if s.shape == target or (s.ndim < len(target) and self.broadcasts(
                        s.shape, target)):
                    cands.append(Ex(code, s, True, True))
                if s.ndim == 1 and len(target) == 2 and s.shape[0] == target[0] and \
                        self.allowed("broadcast"):
                    cands.append(Ex(f"{code}[:, None]", s[:, None], True, True))
        if cands and self.chance(0.85):
            e = self.pick(cands)
            if e.shape != target:
                self.use("broadcast")
            return e
        return self.scalar_leaf_array_context(exclude_roots)

    def scalar_leaf_array_context(self, exclude_roots=()) -> Ex:
        c = self.pick(["literal", "literal", "scalar", "reduce"])
        if c == "scalar" and self.scalars:
            name = self.pick(self.scalars)
            return Ex(name, self.scalars[name].sample, True, True)
        if c == "reduce" and self.allowed("reductions"):
            arrays = [a for a in self.arrays.values() if a.sample.size >= 1 and a.dtype.kind != "c"
                      and a.root not in exclude_roots]
            if arrays:
                a = self.pick(arrays)
                f = self.pick(["np.sum", "np.max", "np.min", "np.mean", ".sum", ".max"])
                code = f"{a.name}{f}()" if f.startswith(".") else f"{f}({a.name})"
                fn = {"np.sum": np.sum, "np.max": np.max, "np.min": np.min, "np.mean": np.mean,
                      ".sum": np.sum, ".max": np.max}[f]
                self.use("reduction-scalar")
                s = quiet(fn, a.sample)
                return Ex(code, s, "max" in f or "min" in f or a.dtype.kind in "bi")
        return self.int_literal() if self.chance(0.5) else self.float_literal()

    def array_expr(self, depth: int, target: tuple, exclude_roots=()) -> Ex:
        if depth <= 0 or self.chance(0.2):
            return self.array_leaf(target, exclude_roots)
        for _ in range(20):
            try:
                e = self._array_node(depth, target, exclude_roots)
                if len(e.shape) > len(target) or np.broadcast_shapes(e.shape, target) != target:
                    raise Retry
                return e
            except Retry:
                continue
        return self.array_leaf(target, exclude_roots)

    def _array_node(self, depth, target, ex) -> Ex:
        op = self.pick(["+"] * 3 + ["-", "*", "*", "/", "ufunc", "ufunc", "where", "minimum",
                        "clip", "reduce-axis", "matmul", "neg", "cmp-arith", "//", "bit"])
        if op in ("+", "-", "*"):
            a = self.array_expr(depth - 1, target, ex)
            b = self.array_expr(depth - 1, target, ex)
            if op == "-" and a.kind == "b" and b.kind == "b":
                raise Retry
            return self.binary(a, op, b)
        if op == "/":
            a = self.array_expr(depth - 1, target, ex)
            b = self.array_expr(depth - 1, target, ex)
            if b.kind == "b":
                raise Retry
            den = Ex(f"(np.abs({b.code}) + 1)", quiet(lambda s: np.abs(s) + 1, b.sample), False)
            return self.binary(a, "/", den)
        if op == "//":
            a = self.array_expr(depth - 1, target, ex)
            if a.kind not in "i" or not self.allowed("intdiv"):
                raise Retry
            d = self.pick([2, 3, 5, -2, -3])
            o = self.pick(["//", "%"])
            dc = str(d) if d > 0 else f"({d})"
            return Ex(f"({a.code} {o} {dc})", quiet(lambda s: eval(f"s {o} {d}"), a.sample), True)
        if op == "bit":
            a = self.array_expr(depth - 1, target, ex)
            b = self.array_expr(depth - 1, target, ex)
            if a.kind not in "bi" or b.kind not in "bi":
                raise Retry
            return self.binary(a, self.pick(["&", "|", "^"]), b)
        if op == "neg":
            a = self.array_expr(depth - 1, target, ex)
            if a.kind == "b":
                if not self.allowed("bool"):
                    raise Retry
                return Ex(f"(~{a.code})", quiet(np.invert, a.sample), True)
            return Ex(f"(-{a.code})", quiet(np.negative, a.sample), a.exact, a.leaf)
        if op == "ufunc":
            a = self.array_expr(depth - 1, target, ex)
            if a.kind == "b":
                raise Retry
            if a.kind == "c":
                f = self.pick(["np.conj", "np.abs", "np.real", "np.imag"])
                fn = eval(f, {"np": np})
                return Ex(f"{f}({a.code})", quiet(fn, a.sample), False)
            f = self.pick(["np.sin", "np.cos", "np.tanh", "np.sqrt(np.abs", "np.abs",
                           "np.exp(-np.abs", "np.log1p(np.abs", "np.floor", "np.square"])
            if f == "np.floor" and (a.kind != "f" or not a.decides()):
                raise Retry
            fn = eval(f"lambda s: {f}(s){')' if '(' in f else ''}", {"np": np})
            code = f"{f}({a.code}){')' if '(' in f else ''}"
            s = quiet(fn, a.sample)
            if dt(s).kind == "f" and dt(s).itemsize < 4:
                raise Retry
            return Ex(code, s, f in ("np.abs", "np.floor") and a.exact)
        if op == "where":
            c = self.array_expr(depth - 1, target, ex)
            d = self.array_expr(depth - 1, target, ex)
            if not (c.decides() and d.decides()) or c.kind + d.kind in ("bb",) or "c" in (
                    c.kind + d.kind):
                raise Retry
            x = self.array_expr(depth - 1, target, ex)
            y = self.array_expr(depth - 1, target, ex)
            cmp = self.pick(["<", ">", "<=", "!=", "=="])
            try:
                s = quiet(lambda: np.where(eval(f"p {cmp} q", {}, {"p": c.sample, "q": d.sample}),
                                           x.sample, y.sample))
            except ValueError:
                raise Retry
            if not isinstance(s, np.ndarray) or s.shape != target and not self.broadcasts(
                    s.shape, target):
                raise Retry
            self.use("np.where")
            return Ex(f"np.where({c.code} {cmp} {d.code}, {x.code}, {y.code})", s,
                      x.exact and y.exact)
        if op == "minimum":
            a = self.array_expr(depth - 1, target, ex)
            b = self.array_expr(depth - 1, target, ex)
            if "c" in a.kind + b.kind:
                raise Retry
            f = self.pick(["np.minimum", "np.maximum"])
            try:
                s = quiet(eval(f, {"np": np}), a.sample, b.sample)
            except TypeError:
                raise Retry
            return Ex(f"{f}({a.code}, {b.code})", s, a.exact and b.exact)
        if op == "clip":
            a = self.array_expr(depth - 1, target, ex)
            if a.kind not in "if":
                raise Retry
            lo, hi = (-1.0, 1.5) if a.kind == "f" else (-3, 5)
            return Ex(f"np.clip({a.code}, {lo}, {hi})", quiet(np.clip, a.sample, lo, hi),
                      a.exact)
        if op == "cmp-arith":
            a = self.array_expr(depth - 1, target, ex)
            b = self.array_expr(depth - 1, target, ex)
            if not (a.decides() and b.decides()) or "c" in a.kind + b.kind:
                raise Retry
            cmp = self.pick(["<", ">", "=="])
            s = quiet(lambda: eval(f"p {cmp} q", {}, {"p": a.sample, "q": b.sample}))
            self.use("bool-arith")
            return Ex(f"({a.code} {cmp} {b.code})", s, True)
        if op == "reduce-axis":
            if not self.allowed("reductions"):
                raise Retry
            return self.axis_reduction(target, ex)
        if op == "matmul":
            if not self.allowed("matmul"):
                raise Retry
            return self.matmul(target, ex)
        raise Retry

    def axis_reduction(self, target, ex) -> Ex:
        cands = []
        for a in self.arrays.values():
            if a.root in ex or a.sample.ndim != 2 or a.dtype.kind == "c":
                continue
            for code, s in self.views(a):
                if s.ndim != 2:
                    continue
                for axis in (0, 1):
                    for f in ("np.sum", "np.max", "np.min", "np.mean", ".sum", ".min",
                              ".max", ".mean"):
                        if s.shape[axis] == 0 and f not in ("np.sum", ".sum"):
                            continue
                        keep = self.chance(0.3)
                        fn = getattr(np, f.split(".")[-1])
                        r = quiet(lambda: fn(s, axis=axis, keepdims=keep))
                        ones = {axis} if keep else set()
                        if r.shape == target or self.broadcasts(r.shape, target, ones):
                            kw = f"axis={axis}" + (", keepdims=True" if keep else "")
                            rcode = f"{code}{f}({kw})" if f.startswith(".") else \
                                f"{f}({code}, {kw})"
                            cands.append(Ex(rcode, r, f in ("np.max", "np.min", ".max", ".min")
                                            or a.dtype.kind in "bi"))
        if not cands:
            raise Retry
        self.use("reduction-axis")
        return self.pick(cands)

    def matmul(self, target, ex) -> Ex:
        mats = []
        for a in self.arrays.values():
            if a.root in ex or a.dtype.kind == "b":
                continue
            for code, s in self.views(a):
                mats.append((code, s))
        cands = []
        for ca, sa in mats:
            if sa.ndim != 2:
                continue
            for cb, sb in mats:
                if sb.shape[0] != sa.shape[1]:
                    continue
                r = quiet(np.matmul, sa, sb)
                if r.shape == target or self.broadcasts(r.shape, target):
                    cands.append((ca, cb, r))
        if not cands:
            raise Retry
        ca, cb, r = self.pick(cands)
        self.use("matmul")
        return Ex(f"({ca} @ {cb})", r, r.dtype.kind in "bi")

    # -- stores --

    def can_store(self, value, target_dtype: np.dtype) -> bool:
        d = dt(value)
        if d.kind == "c" and target_dtype.kind != "c":
            return False
        if d.kind == "b" and target_dtype.kind != "b":
            return True      # a bool into a number: 0 or 1
        return np.can_cast(d, target_dtype, "same_kind")

    def writable_targets(self, exclude_roots=(), ndim=None, kinds="biufc"):
        """Writable arrays (of `ndim` dimensions and a dtype of `kinds`); when there is none,
        a new one allocated with np.zeros."""
        found = [a for a in self.arrays.values() if a.writable and a.root not in exclude_roots
                 and (ndim is None or a.sample.ndim == ndim) and a.dtype.kind in kinds]
        if found or ndim is None:
            return found
        name = self.fresh("z")
        d = self.pick([d for d in NUMERIC + ["bool", "complex128"] if np.dtype(d).kind in kinds
                       and (d != "complex128" or self.allowed("complex"))])
        shp = (self.N,) if ndim == 1 else (self.N, self.M)
        self.emit(f"{name} = np.zeros({shp if ndim == 2 else self.N}, np.{d})")
        self.arrays[name] = Arr(name, sample_of(d, shp), True, name)
        if self.chance(0.5):
            self.returns.append(Ex(name, self.arrays[name].sample))
        return [self.arrays[name]]

    # -- statements --

    def statement(self):
        kinds = ["loop", "loop", "loop2", "reduce", "whole", "whole", "alloc", "recurrence"]
        if self.allowed("prange-array-reduction"):
            kinds.append("histogram")
        if self.allowed("helpers"):
            kinds += ["array-helper", "tuple-helper"]
        if self.allowed("views"):
            kinds.append("view-local")
        kinds += ["row-reduce", "for-in", "while"]
        for _ in range(6):
            k = self.pick(kinds)
            saved = (len(self.lines), dict(self.arrays), dict(self.scalars), len(self.helpers),
                     set(self.features), list(self.returns), self.counter)
            try:
                getattr(self, "st_" + k.replace("-", "_"))()
                return
            except Retry:
                del self.lines[saved[0]:]
                self.arrays, self.scalars = saved[1], saved[2]
                del self.helpers[saved[3]:]
                self.features, self.returns = saved[4], saved[5]
                self.indent, self.loopvars = 1, []

    def loop_header(self, var: str, length: int, length_code: str, parallel: bool):
        """A for loop over indices of an axis of `length`; returns (lo, hi) of its values."""
        r = self.r
        kw = "prange" if parallel else "range"
        form = self.pick(["plain", "plain", "start", "step", "reverse", "rstep"])
        if form == "plain" or length == 0:
            self.emit(f"for {var} in {kw}({length_code}):")
            return 0, length - 1
        if form == "start":
            s = r.randint(1, 2)
            self.emit(f"for {var} in {kw}({s}, {length_code}):")
            self.use("range-start")
            return s, length - 1
        if form == "step":
            st = r.randint(2, 3)
            s = r.randint(0, 1)
            self.emit(f"for {var} in {kw}({s}, {length_code}, {st}):")
            self.use("range-step")
            return s, length - 1
        if form == "reverse":
            self.emit(f"for {var} in {kw}({length_code} - 1, -1, -1):")
            self.use("range-negative-step")
            return 0, length - 1
        st = r.randint(2, 3)
        self.emit(f"for {var} in {kw}({length_code} - 1, 0, -{st}):")
        self.use("range-negative-step")
        return 1, length - 1

    def store(self, target: Arr, idx: list, make):
        """target[idx] = an expression from make() that NumPy stores without a cast across
        kinds (a few tries)."""
        for _ in range(6):
            e = make()
            if self.can_store(e.sample, target.dtype):
                self.emit(f"{target.name}[{', '.join(idx)}] = {e.code}")
                return
        raise Retry

    def st_loop(self):
        """A loop (prange or range) over a 1-D target, element by element."""
        targets = self.writable_targets(ndim=1)
        if not targets:
            raise Retry
        t = self.pick(targets)
        parallel = self.allowed("prange") and self.chance(0.7)
        var = self.fresh("i")
        lo, hi = self.loop_header(var, t.shape[0], f"{t.name}.shape[0]", parallel)
        self.loopvars.append((var, lo, hi))
        self.indent += 1
        ex = {t.root} if parallel else set()
        try:
            if parallel:
                self.use("prange")
            else:
                ex = set()
            self.loop_body_1d(t, var, ex)
        finally:
            self.indent -= 1
            self.loopvars.pop()

    def loop_body_1d(self, t: Arr, var: str, ex):
        if self.chance(0.3):
            tmp = self.fresh("t")
            e = self.strong(self.scalar_expr(2, ex))
            self.emit(f"{tmp} = {e.code}")
            self.scalars[tmp] = Ex(tmp, e.sample, e.exact, True)
            try:
                self.store_or_branch(t, [var], ex)
            finally:
                del self.scalars[tmp]
        else:
            self.store_or_branch(t, [var], ex)

    def store_or_branch(self, t: Arr, idx, ex):
        if self.chance(0.25):
            a, b = self.scalar_expr(1, ex), self.scalar_expr(1, ex)
            if not (a.decides() and b.decides()) or "c" in a.kind + b.kind:
                raise Retry
            self.emit(f"if {a.code} {self.pick(['<', '>=', '=='])} {b.code}:")
            self.indent += 1
            self.store(t, idx, lambda: self.scalar_expr(3, ex))
            self.indent -= 1
            self.emit("else:")
            self.indent += 1
            self.store(t, idx, lambda: self.scalar_expr(3, ex))
            self.indent -= 1
            self.use("if-else")
        else:
            self.store(t, idx, lambda: self.scalar_expr(3, ex))

    def st_loop2(self):
        """A nest over a 2-D target: prange/range outside, range/prange inside."""
        targets = self.writable_targets(ndim=2)
        if not targets:
            raise Retry
        t = self.pick(targets)
        p_out = self.allowed("prange") and self.chance(0.7)
        p_in = self.allowed("prange") and self.chance(0.25)
        i, j = self.fresh("i"), self.fresh("j")
        lo, hi = self.loop_header(i, t.shape[0], f"{t.name}.shape[0]", p_out)
        self.loopvars.append((i, lo, hi))
        self.indent += 1
        try:
            triangular = self.chance(0.2) and t.shape[0] <= t.shape[1] and lo >= 0
            if triangular:
                self.emit(f"for {j} in {'prange' if p_in else 'range'}({i}, {t.name}.shape[1]):")
                self.loopvars.append((j, lo, t.shape[1] - 1))
                self.use("triangular")
            else:
                jl, jh = self.loop_header(j, t.shape[1], f"{t.name}.shape[1]", p_in)
                self.loopvars.append((j, jl, jh))
            self.indent += 1
            try:
                ex = {t.root} if (p_out or p_in) else set()
                if p_out or p_in:
                    self.use("prange")
                if p_out and p_in:
                    self.use("nested-prange")
                self.store_or_branch(t, [i, j], ex)
            finally:
                self.indent -= 1
                self.loopvars.pop()
        finally:
            self.indent -= 1
            self.loopvars.pop()

    def st_recurrence(self):
        """A sequential loop reading the element it wrote one step earlier."""
        targets = self.writable_targets(ndim=1, kinds="if")
        if not targets:
            raise Retry
        t = self.pick(targets)
        var = self.fresh("i")
        self.emit(f"for {var} in range(1, {t.name}.shape[0]):")
        self.loopvars.append((var, 1, t.shape[0] - 1))
        self.indent += 1
        try:
            c = "0.5" if t.dtype.kind == "f" else "1"
            self.store(t, [var], lambda: self.binary(Ex(
                f"{t.name}[{var} - 1] * {c}", t.dtype.type(1) * (
                    0.5 if t.dtype.kind == "f" else 1)), "+", self.scalar_expr(2)))
            self.use("recurrence")
        finally:
            self.indent -= 1
            self.loopvars.pop()

    def st_reduce(self):
        """A scalar reduction in a prange (or range) loop over an array's axis."""
        arrays = [a for a in self.arrays.values() if a.sample.size >= 1]
        if not arrays:
            raise Retry
        a = self.pick(arrays)
        parallel = self.allowed("prange") and self.chance(0.8)
        s = self.fresh("r")
        var = self.fresh("i")
        # the update's value first, to fix the accumulator's type
        self.loopvars.append((var, 0, a.shape[0] - 1))
        try:
            e = self.scalar_expr(2)
        finally:
            self.loopvars.pop()
        k = e.kind
        if k == "b":
            e = Ex(f"int({e.code})", 1, True)
            k = "i"
        if k == "c" and not self.allowed("complex"):
            raise Retry
        d = dt(e.sample)
        ops = ["+=", "+=", "-=", "min", "max"] if k != "c" else ["+=", "-="]
        if k == "i":
            ops += ["|=", "^=", "&="]
        if k == "f":
            ops += ["*="]
        op = self.pick(ops)
        if op in ("min", "max") and k == "f" and d.name == "float64" and not weak(e.sample):
            init = f"np.float64({'1e9' if op == 'min' else '-1e9'})"
        elif op in ("min", "max"):
            init = f"np.{d.name}({'100000' if op == 'min' else '-100000'})"
        elif op in ("|=", "^=", "&="):
            init = f"np.{d.name}({'-1' if op == '&=' else '0'})"
        elif op == "*=":
            init = f"np.{d.name}(1)"
        else:
            init = f"np.{d.name}(0)" if d.name not in ("int64", "float64", "complex128") or \
                weak(e.sample) or self.chance(0.5) else \
                {"int64": "0", "float64": "0.0", "complex128": "0j"}[d.name]
        if op == "*=":
            e = Ex(f"(1.0 + 0.01 * np.tanh({e.code}))" if d.name != "float32" else
                   f"(np.float32(1) + np.float32(0.01) * np.tanh({e.code}))", e.sample, False)
        self.emit(f"{s} = {init}")
        lo, hi = self.loop_header(var, a.shape[0], f"{a.name}.shape[0]", parallel)
        self.loopvars.append((var, lo, hi))
        self.indent += 1
        try:
            if op in ("min", "max"):
                self.emit(f"{s} = {op}({s}, {e.code})")
            else:
                self.emit(f"{s} {op} {e.code}")
        finally:
            self.indent -= 1
            self.loopvars.pop()
        if parallel:
            self.use("prange-reduction-" + ("min/max" if op in ("min", "max") else op))
        sample = d.type(1)
        self.scalars[s] = Ex(s, sample, op in ("min", "max") or k in "bi", True)
        if self.chance(0.6):
            self.returns.append(self.scalars[s])

    def st_histogram(self):
        """An array updated at computed indices in a prange: atomic updates."""
        arrays = [a for a in self.arrays.values() if a.sample.size >= 1]
        if not arrays:
            raise Retry
        a = self.pick(arrays)
        bins = self.r.randint(1, 6)
        h = self.fresh("acc")
        var = self.fresh("i")
        self.loopvars.append((var, 0, a.shape[0] - 1))
        try:
            e = self.scalar_expr(2, {h})
        finally:
            self.loopvars.pop()
        if e.kind == "b" or e.kind == "c":
            raise Retry
        d = dt(e.sample).name if not weak(e.sample) else ("int64" if e.kind == "i"
                                                           else "float64")
        op = self.pick(["+=", "+=", "-=", "max", "min"])
        self.emit(f"{h} = np.zeros({bins}, np.{d})")
        self.emit(f"for {var} in prange({a.name}.shape[0]):")
        self.loopvars.append((var, 0, a.shape[0] - 1))
        self.indent += 1
        try:
            idx = self.pick([f"({var} * 7 + 3) % {bins}", f"{var} % {bins}",
                             f"{var} // {max(1, (a.shape[0] + bins - 1) // bins)}"])
            if "//" in idx and (a.shape[0] - 1) // max(1, (a.shape[0] + bins - 1) // bins) >= bins:
                idx = f"{var} % {bins}"
            if op in ("min", "max"):
                self.emit(f"{h}[{idx}] = {op}({h}[{idx}], {e.code})")
            else:
                self.emit(f"{h}[{idx}] {op} {e.code}")
        finally:
            self.indent -= 1
            self.loopvars.pop()
        self.use("prange-atomic-update")
        self.arrays[h] = Arr(h, sample_of(d, (bins,)), True, h)
        if self.chance(0.5):
            self.returns.append(Ex(h, self.arrays[h].sample))

    def st_row_reduce(self):
        """Per row, a private accumulator over the columns; the result stored per row."""
        src = [a for a in self.arrays.values() if a.sample.ndim == 2 and a.dtype.kind in "if"
               and a.shape[0] >= 1]
        if not src:
            raise Retry
        a = self.pick(src)
        targets = [t for t in self.writable_targets({a.root}) if t.sample.ndim == 1
                   and t.shape[0] == a.shape[0] and np.can_cast(a.dtype, t.dtype, "same_kind")]
        if not targets:
            name = self.fresh("z")
            self.emit(f"{name} = np.zeros({a.name}.shape[0], {a.name}.dtype)")
            self.arrays[name] = Arr(name, sample_of(a.dtype.name, (a.shape[0],)), True, name)
            self.returns.append(Ex(name, self.arrays[name].sample))
            targets = [self.arrays[name]]
        t = self.pick(targets)
        i, j, acc = self.fresh("i"), self.fresh("j"), self.fresh("acc")
        par = self.allowed("prange")
        self.emit(f"for {i} in {'prange' if par else 'range'}({a.name}.shape[0]):")
        self.indent += 1
        zero = "0.0" if a.dtype.kind == "f" and a.dtype.name == "float64" else \
            f"np.{a.dtype.name}(0)"
        self.emit(f"{acc} = {zero}")
        self.emit(f"for {j} in range({a.name}.shape[1]):")
        self.indent += 1
        self.emit(f"{acc} += {a.name}[{i}, {j}] * {self.pick(['2', '1', '(-1)'])}")
        self.indent -= 1
        self.emit(f"{t.name}[{i}] = {acc}")
        self.indent -= 1
        self.use("row-reduce")

    def st_for_in(self):
        """`for x in a`: the elements of a 1-D array or the rows of a 2-D one."""
        arrays = [a for a in self.arrays.values() if a.dtype.kind in "if"]
        if not arrays:
            raise Retry
        a = self.pick(arrays)
        s, x = self.fresh("r"), self.fresh("x")
        d = a.dtype.name
        self.emit(f"{s} = np.{d}(0)")
        self.emit(f"for {x} in {a.name}:")
        self.indent += 1
        if a.sample.ndim == 1:
            self.emit(f"{s} += {x}")
        else:
            self.emit(f"{s} += {x}.sum()" if a.dtype.kind == "f" else f"{s} += {x}[0]")
            if a.dtype.kind == "f":
                d = "float64" if d == "float64" else d
        self.indent -= 1
        self.use("for-in-array")
        sample = np.dtype(d).type(1)
        if a.sample.ndim == 2 and a.dtype.kind == "i":
            sample = np.dtype(d).type(1)
        self.scalars[s] = Ex(s, sample, a.dtype.kind == "i", True)
        if self.chance(0.5):
            self.returns.append(self.scalars[s])

    def st_while(self):
        targets = self.writable_targets(ndim=1)
        if not targets:
            raise Retry
        t = self.pick(targets)
        k = self.fresh("k")
        step = self.r.randint(1, 3)
        self.emit(f"{k} = 0")
        self.emit(f"while {k} < {t.name}.shape[0]:")
        self.indent += 1
        self.loopvars.append((k, 0, t.shape[0] - 1))
        try:
            self.store(t, [k], lambda: self.scalar_expr(2))
            self.emit(f"{k} += {step}")
        finally:
            self.loopvars.pop()
            self.indent -= 1
        self.use("while")

    def whole_target(self):
        """(code, shape, dtype, root) of an assignable view of a writable array."""
        targets = self.writable_targets() or self.writable_targets(ndim=self.pick([1, 2]))
        t = self.pick(targets)
        code, s = self.pick(self.views(t)) if self.chance(0.4) else (t.name, t.sample)
        if s.ndim == 0 or "None" in code:
            raise Retry
        return code, s, t

    def full_index(self, ndim: int) -> str:
        """An index of every element: `[:]`, `[:, :]`, at times `[...]`."""
        if self.chance(0.15):
            return "[...]"
        return "[:]" if ndim == 1 or self.chance(0.3) else "[:, :]"

    def st_whole(self):
        code, s, t = self.whole_target()
        form = self.pick(["assign", "assign", "aug", "mask", "local", "local"])
        if form == "local":
            e = self.array_expr(3, s.shape)
            if not isinstance(e.sample, np.ndarray) or e.shape != s.shape or e.leaf:
                raise Retry
            name = self.fresh("w")
            self.emit(f"{name} = {e.code}")
            self.arrays[name] = Arr(name, e.sample.copy(), True, name)
            self.use("whole-array-local")
            if self.chance(0.4):
                self.returns.append(Ex(name, self.arrays[name].sample))
            return
        if form == "mask":
            c = self.array_expr(1, s.shape)
            d = self.array_expr(1, s.shape)
            if not (c.decides() and d.decides()) or "c" in c.kind + d.kind:
                raise Retry
            if not (isinstance(c.sample, np.ndarray) and c.shape == s.shape):
                raise Retry
            v = self.scalar_leaf_array_context()
            if not self.can_store(v.sample, s.dtype):
                raise Retry
            self.emit(f"{code}[{c.code} {self.pick(['>', '<', '!='])} {d.code}] = {v.code}")
            self.use("mask-assign")
            return
        e = self.array_expr(3, s.shape)
        if form == "aug":
            op = self.pick(["+=", "-=", "*="])
            if code.endswith(".T"):
                raise Retry
            if op == "-=" and s.dtype.kind == "b":
                raise Retry
            try:
                res = quiet(lambda: eval(f"x {op[0]} y", {}, {"x": s, "y": e.sample}))
            except Exception:
                raise Retry
            if not np.can_cast(dt(res), s.dtype, "same_kind") or dt(res).kind == "c" and \
                    s.dtype.kind != "c":
                raise Retry
            if dt(res).kind == "b" and op != "+=":
                raise Retry
            self.emit(f"{code} {op} {e.code}")
            self.use("augmented-array")
            return
        if not self.can_store(e.sample, s.dtype):
            raise Retry
        self.emit(f"{code}{self.full_index(s.ndim)} = {e.code}")
        self.use("whole-array-assign")

    def st_alloc(self):
        r = self.r
        name = self.fresh("z")
        form = self.pick(["zeros", "zeros_like", "empty_like", "ones", "full_like", "full"])
        arrays = list(self.arrays.values())
        src = self.pick(arrays) if arrays else None
        d = self.pick(NUMERIC + ["bool"])
        if form in ("zeros", "ones"):
            shp = self.pick([(self.N,), (self.N, self.M)])
            shape_code = "(" + ", ".join(str(x) for x in shp) + ("," if len(shp) == 1 else "") + ")"
            src1 = [a for a in arrays if a.sample.shape == shp]
            if src1 and self.chance(0.7):
                a = self.pick(src1)
                shape_code = a.name + ".shape" if self.chance(0.5) else (
                    f"{a.name}.shape[0]" if len(shp) == 1 else
                    f"({a.name}.shape[0], {a.name}.shape[1])")
            self.emit(f"{name} = np.{form}({shape_code}, np.{d})" if self.chance(0.7) else
                      f"{name} = np.{form}({shape_code}, dtype=np.{d})")
            sample = sample_of(d, shp)
        elif form == "full":
            shp = (self.N,)
            v = self.float_literal() if d.startswith("float") else self.int_literal()
            if d == "bool":
                raise Retry
            self.emit(f"{name} = np.full({self.N}, {v.code}, dtype=np.{d})" if self.chance(0.9)
                      else f"{name} = np.full({self.N}, {v.code}, np.{d})")
            sample = sample_of(d, shp)
        else:
            if src is None:
                raise Retry
            dtype_kw = "" if self.chance(0.5) else f", dtype=np.{d}"
            if not dtype_kw:
                d = src.dtype.name
            if form == "full_like":
                if d == "bool" or d == "complex128":
                    raise Retry
                v = self.int_literal()
                self.emit(f"{name} = np.full_like({src.name}, {v.code}{dtype_kw})")
            else:
                self.emit(f"{name} = np.{form}({src.name}{dtype_kw})")
            sample = sample_of(d, src.shape)
        arr = Arr(name, sample, True, name)
        self.arrays[name] = arr
        self.use("alloc-" + form)
        if form == "empty_like":
            # fill it before anything reads it
            e = self.array_expr(2, sample.shape, {name})
            if not self.can_store(e.sample, sample.dtype):
                del self.arrays[name]
                raise Retry
            self.emit(f"{name}{self.full_index(sample.ndim)} = {e.code}")
        if self.chance(0.3):
            self.returns.append(Ex(name, sample))

    def st_view_local(self):
        arrays = list(self.arrays.values())
        a = self.pick(arrays)
        views = self.views(a)[1:]
        if not views:
            raise Retry
        code, s = self.pick(views)
        name = self.fresh("v")
        self.emit(f"{name} = {code}")
        self.arrays[name] = Arr(name, s, a.writable, a.root)
        self.use("view-local")

    def st_array_helper(self):
        """A compiled helper writing one view from another, element by element, called with
        views of the caller's arrays; or returning a new array."""
        targets = self.writable_targets()
        t = self.pick(targets) if targets else None
        name = self.fresh(f"{self.name}_g")
        if t is not None and self.chance(0.6):
            tcode, ts = self.pick([v for v in self.views(t) if v[1].ndim == 1] or [(None, None)])
            if tcode is None:
                raise Retry
            srcs = []
            for a in self.arrays.values():
                if a.root == t.root:
                    continue
                for c, s in self.views(a):
                    if s.shape == ts.shape and s.dtype.kind != "c":
                        srcs.append((c, s))
            if not srcs:
                raise Retry
            scode, ss = self.pick(srcs)
            par = self.allowed("prange") and self.chance(0.7)
            saved = (self.scalars, self.loopvars, self.arrays)
            self.scalars = {}
            self.arrays = {"src": Arr("src", ss.copy(), False, "src")}
            self.loopvars = [("i", 0, ss.shape[0] - 1)]
            try:
                e = self.scalar_expr(2)
            finally:
                self.scalars, self.loopvars, self.arrays = saved
            if not self.can_store(e.sample, ts.dtype):
                raise Retry
            src = (f"@unpython.type({type_string(ts)!r}, {type_string(ss)!r}, None)\n"
                   f"def {name}(dst, src):\n"
                   f"    for i in {'prange' if par else 'range'}(dst.shape[0]):\n"
                   f"        dst[i] = {e.code}\n")
            self.helpers.append(src)
            self.emit(f"{name}({tcode}, {scode})")
            self.use("array-helper-views")
            return
        arrays = [a for a in self.arrays.values() if a.dtype.kind in "if"]
        if not arrays:
            raise Retry
        a = self.pick(arrays)
        code, s = self.pick(self.views(a))
        saved = (self.scalars, self.loopvars, self.arrays)
        self.scalars, self.loopvars = {}, []
        self.arrays = {"x": Arr("x", s.copy(), False, "x")}
        try:
            e = self.array_expr(2, s.shape)
        finally:
            self.scalars, self.loopvars, self.arrays = saved
        if not isinstance(e.sample, np.ndarray) or e.shape != s.shape:
            raise Retry
        src = (f"@unpython.type({type_string(s)!r}, {type_string(e.sample)!r})\n"
               f"def {name}(x):\n    return {e.code}\n")
        self.helpers.append(src)
        res = self.fresh("w")
        self.emit(f"{res} = {name}({code})")
        self.arrays[res] = Arr(res, e.sample.copy(), True, res)
        self.use("array-helper-returns")

    def st_tuple_helper(self):
        arrays = [a for a in self.arrays.values() if a.dtype.kind in "if" and a.sample.size >= 1]
        if not arrays:
            raise Retry
        a = self.pick(arrays)
        code, s = self.pick(self.views(a))
        if s.size == 0:
            raise Retry
        name = self.fresh(f"{self.name}_t")
        red = self.pick(["np.min(x)", "np.max(x)", "np.sum(x)", "x.mean()"])
        rs = quiet(lambda: eval(red, {"np": np}, {"x": s}))
        src = (f"@unpython.type({type_string(s)!r}, "
               f"'tuple[{dt(rs).name}, {type_string(s * 2)}]')\n"
               f"def {name}(x):\n    return {red}, x * 2\n")
        self.helpers.append(src)
        p, q = self.fresh("p"), self.fresh("q")
        self.emit(f"{p}, {q} = {name}({code})")
        self.scalars[p] = Ex(p, dt(rs).type(1), "sum" not in red and "mean" not in red, True)
        self.arrays[q] = Arr(q, s * 2, True, q)
        self.use("tuple-helper")

    # -- the program --

    def finish_return(self) -> str | None:
        if not self.returns:
            if self.chance(0.5):
                return None
            arrays = [a for a in self.arrays.values() if a.root == a.name and a.name[0] in "zwa"]
            if not arrays:
                return None
            a = self.pick(arrays)
            self.returns.append(Ex(a.name, a.sample))
        rets = self.returns[-3:]
        # a returned scalar whose interpreter type is a Python scalar would compare by kind
        types = [type_string(e.sample) for e in rets]
        self.emit("return " + ", ".join(e.code for e in rets))
        if len(rets) == 1:
            return types[0]
        self.use("tuple-return")
        return f"tuple[{', '.join(types)}]"

    def program(self) -> Program:
        self.make_params()
        for _ in range(self.r.randint(3, 7)):
            self.statement()
        if len(self.lines) == 0:
            self.st_reduce() if self.arrays else None
        if not self.lines:
            self.emit("pass")
        ret = self.finish_return()
        # A float64 or int64 parameter may be given a Python float or int, which the
        # interpreter treats as weak (NEP 50) where the compiled code has the declared type:
        # `s0 * a32[i]` is float32 in the interpreter, float64 compiled (tests/fuzz/findings.md).
        # So a Python scalar is passed only to a program without 32-bit types.
        text = "\n".join(self.lines + self.helpers) + repr([p.type for p in self.params])
        if "32" in text:
            for p in self.params:
                if isinstance(p, ScalarParam) and not isinstance(p.value, np.generic):
                    p.value = np.dtype(p.dtype).type(p.value)
        elif any(isinstance(p, ScalarParam) and not isinstance(p.value, np.generic)
                 for p in self.params):
            self.use("python-scalar-arg")
        return Program(self.name, self.seed, self.params, self.lines, ret, self.helpers,
                       self.features | {f"dtype-{self.main_dtype}"})


def generate(seed: int, features: set | None = None, name: str | None = None) -> Program:
    """The program of `seed` (the same every time). `features`, when given, limits the kinds
    of construct: any of 'complex', 'strides', 'alias', 'views', 'broadcast', 'reductions',
    'matmul', 'helpers', 'prange', 'prange-array-reduction', 'intdiv', 'bool'."""
    return Gen(seed, name, features).program()


FEATURES = {"complex", "strides", "alias", "views", "broadcast", "reductions", "matmul",
            "helpers", "prange", "prange-array-reduction", "intdiv", "bool"}


if __name__ == "__main__":
    import sys
    for s in map(int, sys.argv[1:] or ["1"]):
        p = generate(s)
        print(p.module_source())
        print("# args:", [(type(a).__name__, getattr(a, "dtype", None), getattr(a, "shape", None),
                           getattr(a, "strides", None)) for a in p.make_args()])
