"""Type strings (SPEC section 2) and the NumPy 2 promotion rules (NEP 50) for the declared types.

The promotion is NumPy's own: each operator is resolved with `ufunc.resolve_dtypes`, passing a
Python literal as the weak Python type (`int`, `float`), exactly as NumPy scalars would behave.
"""
from __future__ import annotations

import re

import numpy as np

from unpy import ir
from unpy.ir import Array, DtypeType, ListType, Scalar, TupleType

_ARRAY = re.compile(r"^ndarray\s*\[\s*([A-Za-z_0-9]+)\s*,\s*(\d+)\s*\]$")
_DTYPE = re.compile(r"^type\s*\[\s*([A-Za-z_0-9]+)\s*\]$")     # Python's `type[np.float64]`
_LIST = re.compile(r"^list\s*\[\s*(.+?)\s*\]$")      # a list's items (a type)

UFUNCS = {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.true_divide,
          "//": np.floor_divide, "%": np.remainder, "**": np.power, "&": np.bitwise_and,
          "|": np.bitwise_or, "^": np.bitwise_xor, "<<": np.left_shift, ">>": np.right_shift,
          "<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal,
          "==": np.equal, "!=": np.not_equal}

NUMPY_MATH = {"sqrt": np.sqrt, "exp": np.exp, "log": np.log, "log10": np.log10, "sin": np.sin,
              "cos": np.cos, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos,
              "atan": np.arctan, "atan2": np.arctan2, "sinh": np.sinh, "cosh": np.cosh,
              "tanh": np.tanh, "floor": np.floor, "ceil": np.ceil, "fabs": np.fabs,
              "pow": np.power, "hypot": np.hypot, "abs": np.absolute}

# Element-wise NumPy functions beyond NUMPY_MATH (where and clip are typed by promotion).
ELEMENTWISE_RULES = {"minimum": np.minimum, "maximum": np.maximum, "fmin": np.fmin,
                     "fmax": np.fmax, "isnan": np.isnan, "isinf": np.isinf,
                     "isfinite": np.isfinite, "sign": np.sign, "square": np.square,
                     "log1p": np.log1p, "expm1": np.expm1, "log2": np.log2, "exp2": np.exp2,
                     "cbrt": np.cbrt, "logical_and": np.logical_and,
                     "logical_or": np.logical_or, "logical_not": np.logical_not,
                     "logical_xor": np.logical_xor, "negative": np.negative,
                     "positive": np.positive, "reciprocal": np.reciprocal,
                     "degrees": np.degrees, "radians": np.radians, "rint": np.rint,
                     "trunc": np.trunc, "copysign": np.copysign, "conjugate": np.conjugate,
                     "arcsinh": np.arcsinh, "arccosh": np.arccosh, "arctanh": np.arctanh,
                     "where": None, "clip": None, "real": None, "imag": None, "angle": None}

# The NumPy functions defined for complex values here (NumPy orders complex numbers
# lexicographically in minimum/maximum/sign/clip; compiled code refuses that order, as Python does).
COMPLEX_FUNCTIONS = {"sqrt", "exp", "log", "log10", "sin", "cos", "tan", "sinh", "cosh", "tanh",
                     "abs", "square", "negative", "positive", "reciprocal", "conjugate", "real",
                     "imag", "angle", "isnan", "isinf", "isfinite", "where", "pow"}
SUPPORTED_KINDS = "biufc"
INT64 = Scalar("int64")
PY_INT = Scalar("int64", weak=True)      # a Python int in the interpreter (range, shape, len)
FLOAT64 = Scalar("float64")
BOOL = Scalar("bool")
PYTHON_DTYPES = {bool: "bool", int: "int64", float: "float64", complex: "complex128"}


class TypeStringError(ValueError):
    pass


def scalar_dtype(name: str) -> str:
    """'double' -> 'float64', 'int' -> 'int64', 'complex' -> 'complex128', ...; anything
    numpy.dtype accepts for bool/int/uint/float/complex."""
    try:
        dtype = np.dtype(name.strip())
    except TypeError:
        raise TypeStringError(f"unknown scalar type '{name.strip()}'") from None
    if dtype.kind not in SUPPORTED_KINDS:
        raise TypeStringError(f"type '{name.strip()}' ({dtype.name}) is not supported; use "
                              "bool, integers of 8-64 bits, float32, float64, complex64 or "
                              "complex128")
    return dtype.name


def parse_type(text):
    """A type string (or None) as an IR type: Scalar, Array, TupleType (`tuple[T1, T2]`, a
    return type), DtypeType (`type[float64]`, a dtype passed as an argument), ListType
    (`list[int64]`, a returned list), or None for 'no value'."""
    if text is None or text.strip() == "None":
        return None
    compact = text.strip()
    if compact.startswith("tuple") and compact[len("tuple"):].lstrip().startswith("["):
        inner = compact[compact.index("[") + 1:]
        if not inner.endswith("]"):
            raise TypeStringError(f"cannot read tuple type '{text}'; write "
                                  "'tuple[float64, ndarray[float64, 1]]'")
        items = [parse_type(part) for part in _top_level_split(inner[:-1])]
        if len(items) < 2 or any(t is None or isinstance(t, (TupleType, DtypeType))
                                 for t in items):
            raise TypeStringError(f"a tuple type needs two or more scalar, array or list "
                                  f"types, got '{text}'")
        return TupleType(tuple(items))
    match = _ARRAY.match(compact)
    if match:
        ndim = int(match.group(2))
        if ndim < 1:
            raise TypeStringError("arrays need at least one dimension")
        return Array(scalar_dtype(match.group(1)), ndim)
    if compact.startswith("ndarray"):
        raise TypeStringError(f"cannot read array type '{text}'; write 'ndarray[float64, 2]'")
    match = _DTYPE.match(compact)
    if match:
        return DtypeType(scalar_dtype(match.group(1)))
    if compact.startswith("type"):
        raise TypeStringError(f"cannot read dtype type '{text}'; write 'type[float64]'")
    match = _LIST.match(compact)
    if match:
        item = parse_type(match.group(1))
        if not (isinstance(item, (Scalar, ListType)) or isinstance(item, TupleType) and all(
                isinstance(t, Scalar) for t in item.items)):
            raise TypeStringError(f"a list holds numbers, bools, tuples of numbers or lists of "
                                  f"them, not {item} ('{text}'); write 'list[float64]', "
                                  "'list[tuple[float64, float64]]' or 'list[list[float64]]'")
        return ListType(item)
    if compact.startswith("list"):
        raise TypeStringError(f"cannot read list type '{text}'; write 'list[float64]' (or "
                              "'list[list[float64]]' for a list of lists)")
    return Scalar(scalar_dtype(compact))


def _top_level_split(text):
    """'a, ndarray[b, 2]' -> ['a', 'ndarray[b, 2]']: commas outside brackets."""
    parts, depth, current = [], 0, ""
    for ch in text:
        depth += ch == "["
        depth -= ch == "]"
        if ch == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += ch
    return parts + [current]


def _operand(t: Scalar):
    """What NumPy's resolver takes for an operand: a dtype, or the Python type of a literal."""
    if t.weak:     # a Python bool promotes as NumPy's bool does (True | m[i] is a bool)
        return {"bool": np.dtype(bool), "int64": int, "float64": float,
                "complex128": complex}[t.dtype]
    return np.dtype(t.dtype)


def resolve(ufunc, types):
    """(input dtypes, output dtype) NumPy picks for `ufunc` on scalars of `types`, or None."""
    weak = all(t.weak for t in types)
    # Python scalars among themselves (`i < 7`, `n * 2` with Python-int variables): NumPy would
    # pick its object loops for comparisons; compiled code computes them in their own dtypes.
    operands = [np.dtype(t.dtype) if weak else _operand(t) for t in types]
    try:
        resolved = ufunc.resolve_dtypes(tuple(operands) + (None,))
    except (TypeError, np.exceptions.DTypePromotionError):
        return None
    inputs = [Scalar(d.name) for d in resolved[:-1]]
    out = resolved[-1].name
    return inputs, Scalar(out, weak and out in ("int64", "float64", "complex128", "bool"))


def cast(e, t):
    """`e` converted to scalar type `t` (no node when it already has that dtype); an array value
    is converted element by element."""
    if e.type is not None and e.type.dtype == t.dtype:
        return e
    if isinstance(e.type, Array):
        return ir.Cast(e, e.loc, Array(t.dtype, e.type.ndim))
    return ir.Cast(e, e.loc, Scalar(t.dtype))


def ndim_of(values) -> int:
    """The dimensions of an element-wise result of `values`: the most of its arrays' (0: all
    scalars)."""
    return max((v.type.ndim for v in values if isinstance(v.type, Array)), default=0)


def is_int(t):
    return isinstance(t, Scalar) and np.dtype(t.dtype).kind in "iu"


def is_float(t):
    return isinstance(t, Scalar) and np.dtype(t.dtype).kind == "f"


REAL_PART = {"complex64": "float32", "complex128": "float64"}   # a complex dtype's parts


def is_complex(t):
    return isinstance(t, Scalar) and np.dtype(t.dtype).kind == "c"


def real_part(t):
    """The type of the real part of `t`: float32 of complex64, float64 of complex128, `t` itself
    otherwise."""
    if not is_complex(t):
        return t
    return Scalar(REAL_PART[t.dtype], t.weak)


def is_bool(t):
    return isinstance(t, Scalar) and t.dtype == "bool"


def fits(value, dtype: str) -> bool:
    info = np.iinfo(dtype)
    return info.min <= value <= info.max


def literal_type(value):
    """The type of a Python literal (bool, int, float or complex): weak in NEP 50; a dtype
    (the frontend's name of one, `np.float64` -> 'float64'): DtypeType."""
    if isinstance(value, str):
        return DtypeType(value)
    return Scalar(PYTHON_DTYPES[type(value)], weak=True)


def shown_type(t) -> str:
    """A type as the user wrote it: a variable holding a Python int is an int64."""
    return t.dtype if isinstance(t, Scalar) else str(t)


def same_items(a: ListType, b: ListType) -> bool:
    """Whether two list types hold items of one dtype (or tuples of the same) at one depth,
    weak or not."""
    def plain(t):
        return tuple(x.dtype for x in t.items) if isinstance(t, TupleType) else t.dtype
    return a.depth == b.depth and plain(a.leaf) == plain(b.leaf)


def conversion_loses(source, target, const_value=None):
    """Why assigning a `source` value to a `target` variable would lose information, or None."""
    if isinstance(source, TupleType) or isinstance(target, TupleType):
        if not (isinstance(source, TupleType) and isinstance(target, TupleType)
                and len(source.items) == len(target.items)):
            return f"{source} cannot become {target}"
        for k, (s, t) in enumerate(zip(source.items, target.items)):
            why = conversion_loses(s, t)
            if why:
                return f"item {k}: {why}"
        return None
    if isinstance(source, ListType) and isinstance(target, ListType):
        # a list passes as itself (its callee's changes are the caller's): never converted
        return None if same_items(source, target) else f"{source} is not a {target}"
    if isinstance(source, (Array, DtypeType, ListType)) or \
            isinstance(target, (Array, DtypeType, ListType)):
        return None if source == target else f"{source} cannot become {target}"
    if source.weak:
        if source.dtype == "bool" or (source.dtype == "int64" and not is_bool(target)):
            if is_int(target) and const_value is not None and not fits(const_value, target.dtype):
                return f"{const_value} does not fit in {target.dtype}"
            return None
        if source.dtype == "float64" and (is_float(target) or is_complex(target)):
            return None
        if source.dtype == "complex128" and is_complex(target):
            return None
        if source.dtype == "complex128":
            return (f"a complex value cannot be stored in {target.dtype}; take its .real, "
                    ".imag or abs()")
        return f"a {source.dtype} value cannot be stored in {target.dtype} without loss"
    if is_int(source) and (is_float(target) or is_complex(target)):
        return None         # int into float widens (SPEC section 2)
    if np.can_cast(source.dtype, target.dtype, "safe"):
        return None
    if is_complex(source) and not is_complex(target):
        return (f"a {source.dtype} value cannot be stored in {target.dtype}; take its .real, "
                ".imag or abs()")
    return f"a {source.dtype} value cannot be stored in {target.dtype} without loss"
