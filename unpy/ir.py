"""The one IR of unpy: plain dataclasses shared by every stage, with one printer and one JSON
serialiser.

The frontend builds it with `type=None` on expressions; typeinfer fills every `type`, inserts
`Cast` nodes where a value changes type, and records declared/inferred locals and the reductions of
each `prange`; lower_logic then leaves only single comparisons and bool `and`/`or`, which every
C-family language spells alike. cpp_emit and jitgpu only read it.

Types are `Scalar(dtype)` with a NumPy dtype name ('float64', 'int32', 'bool', ...) and
`Array(dtype, ndim)`. A `Scalar` with `weak=True` is the type of a Python literal (NEP 50).
"""
from __future__ import annotations

import copy
import dataclasses
import json
import math
from dataclasses import dataclass, field
from typing import Optional, Union


# --- types ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Scalar:
    dtype: str
    weak: bool = False

    def __str__(self):
        return self.dtype + ("(weak)" if self.weak else "")


@dataclass(frozen=True)
class Array:
    dtype: str
    ndim: int

    def __str__(self):
        return f"ndarray[{self.dtype}, {self.ndim}]"


@dataclass(frozen=True)
class TupleType:
    """Several values: a function's return type `tuple[float64, ndarray[float64, 1]]`."""
    items: tuple

    def __post_init__(self):
        object.__setattr__(self, "items", tuple(self.items))   # from JSON: a list

    @property
    def dtype(self):            # a tuple has no dtype; a name for messages
        return str(self)

    def __str__(self):
        return f"tuple[{', '.join(str(t) for t in self.items)}]"


@dataclass(frozen=True)
class DtypeType:
    """A dtype given as an argument (`'type[float64]'`: `np.float64` passed for `dtype`): known
    while compiling, as each signature names one; it carries no value at run time."""
    dtype: str

    def __str__(self):
        return f"type[{self.dtype}]"


@dataclass(frozen=True)
class ListType:
    """A Python list (`out = []`, then `out.append(v)`; a parameter 'list[float64]'): its items
    all of type `item`, scalars (the promotion of the values it takes, as np.array's of them),
    tuples of scalars (`out.append((i, x))`, 'list[tuple[int64, float64]]') or lists of them
    (`[[0] * n for _ in range(m)]`, 'list[list[float64]]')."""
    item: Union[Scalar, TupleType, "ListType"]

    @property
    def dtype(self):            # a list has no dtype; a name for messages
        return str(self)

    @property
    def leaf(self) -> Scalar:
        """The scalars' type at the bottom of the lists."""
        return self.item.leaf if isinstance(self.item, ListType) else self.item

    @property
    def depth(self) -> int:
        """1 for a list of scalars, 2 for a list of lists of them, ..."""
        return 1 + (self.item.depth if isinstance(self.item, ListType) else 0)

    def __str__(self):
        item = self.item if isinstance(self.item, (ListType, TupleType)) else self.item.dtype
        return f"list[{item}]"


Type = Union[Scalar, Array, TupleType, DtypeType, ListType, None]


# --- expressions ----------------------------------------------------------------------------
# Every node carries `loc = (line, col)` in the user's file (1-based line, 0-based col).

@dataclass
class Const:
    value: Union[int, float, bool]
    loc: tuple = (0, 0)
    type: Type = None


@dataclass
class Name:
    id: str
    loc: tuple = (0, 0)
    type: Type = None


@dataclass
class BinOp:
    op: str                 # '+', '-', '*', '/', '//', '%', '**', '&', '|', '^', '<<', '>>'
    left: "Expr"
    right: "Expr"
    loc: tuple = (0, 0)
    type: Type = None


@dataclass
class UnaryOp:
    op: str                 # '-', '+', 'not', '~'
    operand: "Expr"
    loc: tuple = (0, 0)
    type: Type = None


@dataclass
class Compare:
    """`left ops[0] comparators[0] ops[1] comparators[1] ...` (chained, each operand once).
    After typeinfer every Compare has one operator: lower_logic rewrites the chains."""
    left: "Expr"
    ops: list               # '<', '<=', '>', '>=', '==', '!='
    comparators: list
    loc: tuple = (0, 0)
    type: Type = None
    operand_types: list = field(default_factory=list)  # per pair: [left dtype, right dtype]


@dataclass
class BoolOp:
    """After typeinfer always of type bool: lower_logic rewrites the value-returning ones."""
    op: str                 # 'and', 'or'
    values: list
    loc: tuple = (0, 0)
    type: Type = None


@dataclass
class IfExp:
    test: "Expr"
    body: "Expr"
    orelse: "Expr"
    loc: tuple = (0, 0)
    type: Type = None


@dataclass
class Subscript:
    """One element of an array: one index per dimension. Before typeinfer, also a view or a
    masked array as written (`a[1:, i]`, `a[:, None]`, `a[mask]`): typeinfer turns those into
    `View` and `Masked`. `in_range` lists the dimensions whose index the compiler generated
    inside [0, shape) (lower_arrays): they are neither wrapped nor checked."""
    array: Name
    indices: list
    loc: tuple = (0, 0)
    type: Type = None
    in_range: list = field(default_factory=list)
    # `a[i][j]` as the frontend joins it into `a[i, j]`: where each later subscript's indices
    # begin (none: written as one); typeinfer indexes the result of an index array or mask
    # before one of them again (`ind[cond][-1]`).
    joins: list = field(default_factory=list)      # (a list, as the IR's JSON gives it back)


@dataclass
class Slice:
    """`start:stop:step` in a subscript; a part not written is None."""
    start: Optional["Expr"]
    stop: Optional["Expr"]
    step: Optional["Expr"]
    loc: tuple = (0, 0)
    type: Type = None


@dataclass
class NewAxis:
    """`None` (`np.newaxis`) in a subscript: a new dimension of length 1."""
    loc: tuple = (0, 0)
    type: Type = None


@dataclass
class View:
    """A basic-indexing view of an array value, as written: `indices` holds integer
    expressions (the dimension goes), `Slice`s (kept) and `NewAxis` (a new dimension of length
    1); dimensions not named at the end are kept whole. lower_arrays reads it element by element
    or, where it is bound to a name, makes it a `StridedView`."""
    array: "Expr"
    indices: list
    loc: tuple = (0, 0)
    type: Type = None


@dataclass
class Masked:
    """`a[mask]` with a boolean array `mask` of `a`'s shape; typed as `a` (lower_arrays accepts
    it as an assignment target and, masked alike, in the assigned value)."""
    array: "Expr"
    mask: "Expr"
    loc: tuple = (0, 0)
    type: Type = None


@dataclass
class ArrayCall:
    """A NumPy function or method on whole arrays that is not element-wise (reductions, `dot`,
    `@`, allocations, `copy`, `transpose`, `reshape`): `func` is its NumPy name ('sum',
    'matmul', 'zeros_like', ...), `keywords` maps a keyword to its expression. Only typeinfer
    and lower_arrays see it."""
    func: str
    args: list
    keywords: dict = field(default_factory=dict)
    loc: tuple = (0, 0)
    type: Type = None


@dataclass
class TupleValue:
    """`(a, b)`: a tuple of values (returned, or unpacked at once)."""
    items: list
    loc: tuple = (0, 0)
    type: Type = None


@dataclass
class TupleItem:
    """Item `index` of the tuple value `value`, unpacked into `count` names
    (`x, y = f(...)`)."""
    value: "Expr"
    index: int
    count: int
    loc: tuple = (0, 0)
    type: Type = None


@dataclass
class StridedView:
    """A view of the array variable `array` made by lower_arrays: element (k_0, ..., k_m) of
    the view is the element of `array` at index `offsets[d] + sum(k_j * steps[j] for the view
    dimensions j with axes[j] == d)` in each dimension d. `axes[j]` is None for a dimension of
    length 1 that the array does not have. Offsets, lengths and steps are already in range."""
    array: "Name"
    offsets: list
    axes: list
    lengths: list
    steps: list
    loc: tuple = (0, 0)
    type: Type = None


@dataclass
class Reshape:
    """`a.reshape(shape)` / `a.ravel()` of the array variable `array` (after lower_arrays): a
    view when `array` is C-contiguous, else a C-ordered copy, as NumPy does."""
    array: "Name"
    shape: list
    loc: tuple = (0, 0)
    type: Type = None


@dataclass
class ArrayAttr:
    """`a.shape[dim]` (attr='shape'), `a.size`, `a.ndim` (dim=None)."""
    array: Name
    attr: str
    dim: Optional[int] = None
    loc: tuple = (0, 0)
    type: Type = None


@dataclass
class Call:
    """A builtin: math function ('math.sqrt', 'np.sqrt', 'abs', 'min', 'max', ...) or cast
    ('int', 'float', 'bool', 'np.float32', ...)."""
    func: str
    args: list
    loc: tuple = (0, 0)
    type: Type = None


@dataclass
class Print(Call):
    """`print(...)` (a statement: no value): the values `args`, and `parts`, the call's
    arguments in order: a string literal's text, or None where the next value goes."""
    parts: list = field(default_factory=list)
    sep: str = " "
    end: str = "\n"
    flush: bool = False


@dataclass
class PythonCall(Call):
    """A draw of np.random's or Python's random module's own generator, called through Python
    or, for np.random's NATIVE functions, drawn natively from the same generator
    (unpy/typeinfer/python_calls.py): `func` the function's qualified name; `args` the
    arguments as the call gives them, the last `len(keywords)` by those names. `into`: an
    array the values fill (passed as size= where `sized`), else the call's value (`type`) or
    none (seed, shuffle)."""
    keywords: list = field(default_factory=list)
    into: object = None
    sized: bool = False


@dataclass
class CallCompiled:
    """A call to another compiled function of the same module."""
    func: str
    args: list
    loc: tuple = (0, 0)
    type: Type = None


@dataclass
class Cast:
    """Inserted by typeinfer: convert `value` to `type` (a widening or an explicit cast)."""
    value: "Expr"
    loc: tuple = (0, 0)
    type: Type = None


@dataclass
class NamedExpr:
    """`(target := value)`: stores `value` in the local `target` and is its value. Only the
    logic lowering (unpy/typeinfer/lower_logic.py) makes it, for an operand that is used twice
    and calls a compiled function (which must run once)."""
    target: Name
    value: "Expr"
    loc: tuple = (0, 0)
    type: Type = None


@dataclass
class AllocArray:
    """`np.zeros/empty/ones(shape, dtype)`: a new C-ordered local array."""
    fill: str               # 'zeros', 'empty', 'ones'
    shape: list             # one expression per dimension
    dtype: str
    loc: tuple = (0, 0)
    type: Type = None


@dataclass
class ListNew:
    """`[a, b]` (or `[]`) bound to a name: a new list of the scalars `items`."""
    items: list
    loc: tuple = (0, 0)
    type: Type = None


@dataclass
class ListItem:
    """`lst[index]`, read or (as an assignment's target) stored, as Python's: a negative index
    counts from the end, one out of range raises IndexError. `list` (here and in the other
    list nodes) is a Name or, in a list of lists, a ListItem (`m[i].append(v)`, `m[i][j]`)."""
    list: Name
    index: "Expr"
    loc: tuple = (0, 0)
    type: Type = None


@dataclass
class ListLen:
    """`len(lst)`."""
    list: Name
    loc: tuple = (0, 0)
    type: Type = None


@dataclass
class ListAppend:
    """`lst.append(value)` (an expression statement: no value)."""
    list: Name
    value: "Expr"
    loc: tuple = (0, 0)
    type: Type = None


@dataclass
class ListPop:
    """`lst.pop()` (index None: the last) or `lst.pop(index)`: the item, taken out."""
    list: Name
    index: Optional["Expr"] = None
    loc: tuple = (0, 0)
    type: Type = None


@dataclass
class ListInsert:
    """`lst.insert(index, value)` (an expression statement: no value)."""
    list: Name
    index: "Expr"
    value: "Expr"
    loc: tuple = (0, 0)
    type: Type = None


Expr = Union[Const, Name, BinOp, UnaryOp, Compare, BoolOp, IfExp, Subscript, ArrayAttr, Call,
             CallCompiled, Cast, NamedExpr, AllocArray, Slice, NewAxis, View, Masked, ArrayCall,
             StridedView, Reshape, TupleValue, TupleItem, ListNew, ListItem, ListLen, ListAppend,
             ListPop, ListInsert]


# --- statements -----------------------------------------------------------------------------

@dataclass
class Assign:
    target: Union[Name, Subscript]
    value: Expr
    loc: tuple = (0, 0)
    # An update of an array element that other iterations of a prange may update too: its
    # operator ('+', '-', '*', '&', '|', '^', 'min', 'max'), the value being `element op v`
    # (or `v op element`, `min(element, v)`, ...); both emitters make it an atomic update
    # (typeinfer/array_races.py). '' for any other assignment.
    atomic: str = ""


@dataclass
class AugAssign:
    target: Union[Name, Subscript]
    op: str
    value: Expr
    loc: tuple = (0, 0)


@dataclass
class Reduction:
    """A shared scalar updated by a `prange` as `var op= e` (op: '+', '*', '&', '|', '^',
    'min', 'max'; `-=` reduces with '+')."""
    var: str
    op: str


@dataclass
class For:
    """`for var in range|prange(start, stop, step)`; `step` is never zero at run time."""
    var: str
    start: Expr
    stop: Expr
    step: Expr
    body: list
    parallel: bool = False
    loc: tuple = (0, 0)
    reductions: list = field(default_factory=list)   # of Reduction, filled by typeinfer
    nest_id: Optional[int] = None   # outermost prange nests of @gpu functions: index of the nest
    fused: list = field(default_factory=list)   # source lines of the nests fused into this one
    # [out, a, b] when the nest computes `out = a @ b` (float arrays): the CPU path may call
    # a BLAS for it instead of running the loops (lower_arrays makes it; cpp_emit calls it).
    blas: list = field(default_factory=list)
    # Conditions (bool expressions) under which `blas` computes what the loops do: a matrix
    # product written as loops (unpy/loopopt/matmul_loops, --fastmath) runs over the operands'
    # dimensions exactly.
    blas_when: list = field(default_factory=list)
    # A centred product written as loops (matmul_loops): `[ca, cb]`, an element of the vector
    # subtracted from each row of `a` (indexed by the outer variable), and one from each
    # column of `b` (by the middle one), each None where that operand is taken as it is; and
    # the nest that runs instead of the loops after the BLAS wrote `out`, a new local: the
    # loops with their sum read from `out`.
    blas_centres: list = field(default_factory=list)
    blas_then: list = field(default_factory=list)
    # Made by lower_arrays for an array statement: different arrays it reads and writes are
    # different memory (SPEC section 3), which fusion may rely on.
    lowered: bool = False
    # The C++ path's loop optimisations (unpy/loopopt): `simd` marks a loop of independent
    # iterations that cpp_emit asks to vectorise, `unroll` one of a few constant iterations to
    # unroll completely (a register block's rows); `blocked` is the statements of this outermost
    # nest rewritten (register blocks, interchange, cache tiles), which the C++ code runs instead
    # when OpenMP runs the whole nest and no array of a pair in `disjoint` ([written, read]
    # names) overlaps the other (on a serial loop: interchange's prange moved outward).
    simd: bool = False
    unroll: bool = False
    # A `range` loop of a @gpu nest whose iterations are proved independent
    # (unpy/typeinfer/independent_loops.py): a kernel may run it as an NDRange level; then
    # its first `sunk` statements are copies of the scalar assignments just before it, which
    # each of its iterations computes for itself (as a loop it skips them).
    independent: bool = False
    sunk: int = 0
    blocked: list = field(default_factory=list)
    disjoint: list = field(default_factory=list)
    # The C++ path's run-time proof that some indices of this outermost nest stay in range
    # (unpy/loopopt/index_proof): the nest of `proof` runs instead where its bounds hold.
    proof: Optional["IndexProof"] = None
    # The names of the C++ path's loop optimisations applied to this outermost nest
    # (unpy/loopopt's optimise_for_cpu; as jitgpu's KernelNest.transforms): its BLAS call, its
    # `blocked` form's pass, its run-time proof (that of `proof.nest` on the proof's nest).
    transforms: list = field(default_factory=list)


@dataclass
class LoopSpan:
    """The values that loop variable `var` takes in a part of a nest, named `name` in an
    IndexProof: `first` to `last` (inclusive: `range(start, stop)` gives `start` and `stop - 1`,
    narrowed under `if i > e:`), the variables of the loops around it replaced by the names of
    their spans, for every first and last their values give."""
    name: str
    var: str
    first: "Expr"
    last: "Expr"


@dataclass
class IndexBound:
    """`0 <= index < array.shape[dim]` for every value of `index` (its loop variables replaced
    by the names of their spans)."""
    index: "Expr"
    array: Name
    dim: int


@dataclass
class IndexProof:
    """A run-time proof of an outermost nest's indices (unpy/loopopt/index_proof): before the
    nest, the C++ code computes the `spans` from the actual values, and where every bound of
    `bounds` holds it runs `nest`, the same statements with those indices in range (unchecked),
    instead of the nest itself, which checks them."""
    spans: list             # of LoopSpan, outer loops first
    bounds: list            # of IndexBound
    nest: "For"


@dataclass
class LocalTile:
    """A small array of fixed `shape` local to the statements after it (the accumulators of a
    register block, unpy/loopopt): C++ keeps it on the stack, in registers once unrolled."""
    name: str
    dtype: str
    shape: list             # of int
    loc: tuple = (0, 0)


@dataclass
class While:
    test: Expr
    body: list
    loc: tuple = (0, 0)


@dataclass
class If:
    test: Expr
    body: list
    orelse: list
    loc: tuple = (0, 0)
    # An array statement in two versions (unpy/typeinfer/lower_arrays.py): `test` holds when
    # some operand's length differs from the nest's at run time, and `body` broadcasts its
    # lengths of 1; `orelse` runs the nest that reads every operand at the nest's own index.
    broadcast: bool = False


@dataclass
class Break:
    loc: tuple = (0, 0)


@dataclass
class Continue:
    loc: tuple = (0, 0)


@dataclass
class Return:
    value: Optional[Expr]
    loc: tuple = (0, 0)


@dataclass
class ExprStmt:
    value: Expr
    loc: tuple = (0, 0)


@dataclass
class Pass:
    loc: tuple = (0, 0)


@dataclass
class Raise:
    """Raise `kind` ('ValueError', 'IndexError') with `message`: the checks lower_arrays makes
    (shapes that do not broadcast, empty reductions). In a GPU kernel it sets the error flag, and
    the OpenMP code then raises it."""
    kind: str
    message: str
    loc: tuple = (0, 0)
    values: list = field(default_factory=list)   # int64 expressions for the message's `{}`s


Stmt = Union[Assign, AugAssign, For, While, If, Break, Continue, Return, ExprStmt, Pass, Raise,
             LocalTile]


# --- functions and modules ------------------------------------------------------------------

@dataclass
class Param:
    name: str
    type: Type
    default: object = None      # the default's value (int, float or bool), or None: none


@dataclass
class Function:
    name: str
    params: list            # of Param
    return_type: Type
    body: list
    locals: dict = field(default_factory=dict)   # name -> type (declared or inferred)
    gpu: bool = False
    loc: tuple = (0, 0)
    # The name Python calls it by. A function with several signatures is one Function per
    # signature, each with a `name` of its own (`f_sig1`, ...) and the same `python_name`.
    python_name: str = ""
    # Declared to return a value, it has a bare `return` (or `return None`) or may reach its
    # end: there it returns None, as Python's does (unpy::returned_none).
    returns_none: bool = False

    def __post_init__(self):
        self.python_name = self.python_name or self.name

    def variable_type(self, name):
        """The type of a parameter or local variable."""
        for p in self.params:
            if p.name == name:
                return p.type
        return self.locals[name]


@dataclass
class Nest:
    """An outermost prange nest of a @gpu function, as embedded in the module for jitgpu: the
    loop and the variables it takes from outside (arrays, scalars, reduction inputs)."""
    function: str
    nest_id: int
    loop: For
    free: list              # of Param
    fastmath: bool = False  # built with --fastmath: the kernel may contract a * b + c (FMA)
    # The compiled functions the nest calls that a kernel can call too (scalars in, a scalar
    # out, no arrays), callees before their callers; printed as OpenCL functions.
    helpers: list = field(default_factory=list)
    # The arrays whose contents are undefined when the nest starts (a fresh np.empty) and the
    # local arrays nothing reads after it (unpy/cpp_emit/nest_contents.py): the first are not
    # copied to the device, the second not back.
    undefined: list = field(default_factory=list)
    dead_after: list = field(default_factory=list)


@dataclass
class Module:
    name: str
    path: str
    functions: list         # of Function


def is_converted_integer(e) -> bool:
    """An integer (or bool) value that typeinfer converted for a float operation: both emitters
    use it to raise ZeroDivisionError for integer `/` as Python does."""
    return (isinstance(e, Cast) and isinstance(e.value.type, Scalar)
            and (e.value.type.dtype == "bool" or e.value.type.dtype[0] in "iu"))


# --- copying --------------------------------------------------------------------------------

def copy_tree(node):
    """A deep copy of an IR tree (copy.deepcopy's result, a node shared within the tree stays
    shared in the copy), made about 3x faster: types are frozen and shared, nodes are copied
    field by field; the passes that rewrite a function in place start from one."""
    return _copy(node, {})


_IMMUTABLE = (str, int, float, bool, complex, type(None), Scalar, Array, TupleType, DtypeType,
              ListType)


def _copy(x, memo):
    if isinstance(x, _IMMUTABLE):
        return x
    done = memo.get(id(x))
    if done is not None:
        return done
    cls = type(x)
    if cls is list:
        out = []
        memo[id(x)] = out
        out.extend(_copy(v, memo) for v in x)
    elif cls is tuple:
        items = tuple(_copy(v, memo) for v in x)
        out = x if all(a is b for a, b in zip(items, x)) else items
        memo[id(x)] = out
    elif cls is dict:
        out = {}
        memo[id(x)] = out
        for k, v in x.items():
            out[k] = _copy(v, memo)
    elif hasattr(cls, "__dataclass_fields__") and not cls.__dataclass_params__.frozen:
        out = object.__new__(cls)
        memo[id(x)] = out
        for k, v in x.__dict__.items():
            out.__dict__[k] = _copy(v, memo)
    else:
        return copy.deepcopy(x, memo)
    memo.setdefault(id(memo), []).append(x)     # keeps x alive while its id is a key
    return out


# --- JSON serialiser ------------------------------------------------------------------------

_NODE_CLASSES = {cls.__name__: cls for cls in (
    Scalar, Array, TupleType, DtypeType, ListType, TupleValue, TupleItem, Const, Name, BinOp, UnaryOp, Compare, BoolOp, IfExp, Subscript, ArrayAttr,
    Call, Print, PythonCall, CallCompiled, ListNew, ListItem, ListLen, ListAppend, ListPop, ListInsert, Cast, NamedExpr, AllocArray, Slice, NewAxis, View, Masked, ArrayCall,
    StridedView, Reshape, Assign, AugAssign, Reduction, For, LoopSpan, IndexBound, IndexProof,
    LocalTile, While, If, Break, Continue, Return,
    ExprStmt, Pass, Raise, Param, Function, Nest, Module)}


def to_data(node):
    """IR -> JSON-compatible data (dicts tagged with 'node')."""
    if dataclasses.is_dataclass(node):
        data = {"node": type(node).__name__}
        for f in dataclasses.fields(node):
            data[f.name] = to_data(getattr(node, f.name))
        return data
    if isinstance(node, (list, tuple)):
        return [to_data(x) for x in node]
    if isinstance(node, dict):
        return {k: to_data(v) for k, v in node.items()}
    if isinstance(node, complex):
        return {"complex": [node.real, node.imag]}
    return node


def from_data(data):
    """Inverse of `to_data`."""
    if isinstance(data, dict) and "node" in data:
        cls = _NODE_CLASSES[data["node"]]
        kwargs = {}
        for f in dataclasses.fields(cls):
            value = from_data(data[f.name])
            if f.name == "loc":
                value = tuple(value)
            kwargs[f.name] = value
        return cls(**kwargs)
    if isinstance(data, dict) and set(data) == {"complex"}:
        return complex(*data["complex"])
    if isinstance(data, float) and data != data:
        return math.nan     # the one NaN the frontend uses: trees holding it compare equal
    if isinstance(data, list):
        return [from_data(x) for x in data]
    if isinstance(data, dict):
        return {k: from_data(v) for k, v in data.items()}
    return data


def to_json(node) -> str:
    return json.dumps(to_data(node), separators=(",", ":"))


def from_json(text: str):
    return from_data(json.loads(text))


# --- printer --------------------------------------------------------------------------------

_PRECEDENCE = {"or": 1, "and": 2, "not": 3, "cmp": 4, "|": 5, "^": 6, "&": 7, "<<": 8, ">>": 8,
               "+": 9, "-": 9, "*": 10, "/": 10, "//": 10, "%": 10, "unary": 11, "**": 12}


def format_expr(e) -> str:
    """Python-like text of an expression, with types of casts shown."""
    if isinstance(e, Const):
        return repr(e.value)
    if isinstance(e, Name):
        return e.id
    if isinstance(e, BinOp):
        return f"({format_expr(e.left)} {e.op} {format_expr(e.right)})"
    if isinstance(e, UnaryOp):
        return f"({e.op}{' ' if e.op == 'not' else ''}{format_expr(e.operand)})"
    if isinstance(e, Compare):
        parts = [format_expr(e.left)]
        for op, c in zip(e.ops, e.comparators):
            parts += [op, format_expr(c)]
        return "(" + " ".join(parts) + ")"
    if isinstance(e, BoolOp):
        return "(" + f" {e.op} ".join(format_expr(v) for v in e.values) + ")"
    if isinstance(e, IfExp):
        return f"({format_expr(e.body)} if {format_expr(e.test)} else {format_expr(e.orelse)})"
    if isinstance(e, Subscript):
        return f"{e.array.id}[{', '.join(format_expr(i) for i in e.indices)}]"
    if isinstance(e, ArrayAttr):
        return f"{e.array.id}.{e.attr}" + (f"[{e.dim}]" if e.dim is not None else "")
    if isinstance(e, (Call, CallCompiled)):
        return f"{e.func}({', '.join(format_expr(a) for a in e.args)})"
    if isinstance(e, Cast):
        return f"{e.type.dtype if e.type else '?'}({format_expr(e.value)})"
    if isinstance(e, NamedExpr):
        return f"({e.target.id} := {format_expr(e.value)})"
    if isinstance(e, AllocArray):
        return f"np.{e.fill}(({', '.join(format_expr(s) for s in e.shape)}), {e.dtype})"
    if isinstance(e, TupleValue):
        return "(" + ", ".join(format_expr(x) for x in e.items) + ("," if len(e.items) == 1
                                                                    else "") + ")"
    if isinstance(e, TupleItem):
        return f"{format_expr(e.value)}[{e.index}]"
    if isinstance(e, Slice):
        parts = [format_expr(x) if x is not None else "" for x in (e.start, e.stop, e.step)]
        return ":".join(parts[:2]) + (f":{parts[2]}" if parts[2] else "")
    if isinstance(e, NewAxis):
        return "None"
    if isinstance(e, View):
        return f"{format_expr(e.array)}[{', '.join(format_expr(i) for i in e.indices)}]"
    if isinstance(e, Masked):
        return f"{format_expr(e.array)}[{format_expr(e.mask)}]"
    if isinstance(e, ArrayCall):
        args = [format_expr(a) for a in e.args]
        args += [f"{k}={format_expr(v)}" for k, v in e.keywords.items()]
        return f"np.{e.func}({', '.join(args)})"
    if isinstance(e, StridedView):
        offsets = ", ".join(format_expr(o) for o in e.offsets)
        dims = ", ".join(f"{'new' if a is None else a}:{format_expr(n)}:{format_expr(s)}"
                         for a, n, s in zip(e.axes, e.lengths, e.steps))
        return f"view({e.array.id}, offsets=({offsets}), dims=({dims}))"
    if isinstance(e, Reshape):
        return f"{e.array.id}.reshape({', '.join(format_expr(d) for d in e.shape)})"
    if isinstance(e, ListNew):
        return "[" + ", ".join(format_expr(x) for x in e.items) + "]"
    if isinstance(e, ListItem):
        return f"{format_expr(e.list)}[{format_expr(e.index)}]"
    if isinstance(e, ListLen):
        return f"len({format_expr(e.list)})"
    if isinstance(e, ListAppend):
        return f"{format_expr(e.list)}.append({format_expr(e.value)})"
    if isinstance(e, ListPop):
        return f"{format_expr(e.list)}.pop({'' if e.index is None else format_expr(e.index)})"
    if isinstance(e, ListInsert):
        return f"{format_expr(e.list)}.insert({format_expr(e.index)}, {format_expr(e.value)})"
    raise TypeError(f"not an expression: {e!r}")


def format_stmts(body, indent=1) -> list:
    pad = "    " * indent
    lines = []
    for s in body:
        if isinstance(s, Assign):
            lines.append(f"{pad}{format_expr(s.target)} = {format_expr(s.value)}"
                         + (f"  # atomic {s.atomic}" if s.atomic else ""))
        elif isinstance(s, AugAssign):
            lines.append(f"{pad}{format_expr(s.target)} {s.op}= {format_expr(s.value)}")
        elif isinstance(s, For):
            kind = "prange" if s.parallel else "range"
            if s.simd or s.unroll:
                lines.append(f"{pad}# {'simd' if s.simd else 'unrolled'}")
            extra = ""
            if s.reductions:
                extra += "  # reductions: " + ", ".join(f"{r.op}:{r.var}" for r in s.reductions)
            if s.nest_id is not None:
                extra += f"  # gpu nest {s.nest_id}"
            if s.fused:
                extra += f" (fused: the nests at lines {', '.join(map(str, s.fused))})"
            if s.transforms:
                lines.append(f"{pad}# loop optimisations: {', '.join(s.transforms)}")
            lines.append(f"{pad}for {s.var} in {kind}({format_expr(s.start)}, "
                         f"{format_expr(s.stop)}, {format_expr(s.step)}):{extra}")
            if s.blas:
                when = " and ".join(format_expr(c) for c in s.blas_when)
                then = ", then the nest after these loops" if s.blas_then else ""
                lines.append(f"{pad}    # the C++ path: {format_blas(s)} by a BLAS"
                             + (f" where {when}" if when else "") + f"{then}, else:")
            lines += format_stmts(s.body, indent + 1)
            if s.blas_then:
                lines.append(f"{pad}# the C++ path's nest after the BLAS:")
                lines += format_stmts(s.blas_then, indent + 1)
            lines += format_blocked(s, indent)
            if s.proof:
                lines += format_proof(s.proof, indent)
        elif isinstance(s, While):
            lines.append(f"{pad}while {format_expr(s.test)}:")
            lines += format_stmts(s.body, indent + 1)
        elif isinstance(s, If):
            lines.append(f"{pad}if {format_expr(s.test)}:")
            lines += format_stmts(s.body, indent + 1)
            if s.orelse:
                lines.append(f"{pad}else:")
                lines += format_stmts(s.orelse, indent + 1)
        elif isinstance(s, Return):
            lines.append(f"{pad}return" + (f" {format_expr(s.value)}" if s.value else ""))
        elif isinstance(s, ExprStmt):
            lines.append(f"{pad}{format_expr(s.value)}")
        elif isinstance(s, Raise):
            values = "".join(f", {format_expr(v)}" for v in s.values)
            lines.append(f"{pad}raise {s.kind}({s.message!r}{values})")
        elif isinstance(s, LocalTile):
            lines.append(f"{pad}{s.name} = tile({s.dtype}, {tuple(s.shape)})")
        else:
            lines.append(f"{pad}{type(s).__name__.lower()}")
    return lines


def format_blas(s: For) -> str:
    """`out = a @ b` of a nest's BLAS call, a centred operand as `(a - ca[:, None])`, `(b -
    cb)` (NumPy's broadcasting: a vector subtracted from each row of a, each column of b)."""
    out, a, b = (format_expr(x) for x in s.blas)
    if s.blas_centres:
        ca, cb = (c and format_expr(c.array) for c in s.blas_centres)
        a = f"({a} - {ca}[:, None])" if ca else a
        b = f"({b} - {cb})" if cb else b
    return f"{out} = {a} @ {b}"


def format_blocked(s: For, indent: int) -> list:
    if not s.blocked:
        return []
    pad = "    " * indent
    pairs = ", ".join(f"{w} and {r}" for w, r in s.disjoint)
    return ([f"{pad}# the C++ path runs instead, where the nest runs whole on "
             f"OpenMP{' and no memory is shared by ' + pairs if pairs else ''}:"]
            + format_stmts(s.blocked, indent + 1))


def format_proof(proof: IndexProof, indent: int) -> list:
    """The proof's spans and bounds; the nest it proves differs from the one printed above only
    in the indices checked (and may have a blocked form of its own)."""
    pad = "    " * indent
    lines = [f"{pad}# the C++ path runs it with these indices unchecked where, before the nest:"]
    for span in proof.spans:
        lines.append(f"{pad}#     {span.name} = span of {span.var} in [{format_expr(span.first)}"
                     f", {format_expr(span.last)}]")
    for bound in proof.bounds:
        lines.append(f"{pad}#     0 <= {format_expr(bound.index)} < "
                     f"{bound.array.id}.shape[{bound.dim}]")
    if proof.nest.transforms:
        lines.append(f"{pad}# loop optimisations where proved: "
                     f"{', '.join(proof.nest.transforms)}")
    return lines + format_blocked(proof.nest, indent)


def format_function(fn: Function) -> str:
    params = ", ".join(f"{p.name}: {p.type}" + ("" if p.default is None else f" = {p.default!r}")
                       for p in fn.params)
    head = f"{'@gpu ' if fn.gpu else ''}def {fn.name}({params}) -> {fn.return_type}:"
    local_lines = [f"    # local {k}: {v}" for k, v in fn.locals.items()]
    return "\n".join([head] + local_lines + format_stmts(fn.body))
