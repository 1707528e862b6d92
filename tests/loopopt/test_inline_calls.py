"""unpy/loopopt/inline_calls.py: which calls are replaced by the callee's returned expression
(names and constants of the parameters' types, a body of one `return` of a scalar expression
of the parameters), and that the expression reads the caller's arguments. Values against the
interpreter: tests/differential/test_index_checks.py (test_inlined_calls)."""
from unpy import ir
from unpy.loopopt.inline_calls import inline_calls
from unpy.pipeline import compile_to_ir
from unpy.typeinfer.reductions import walk_exprs

SOURCE = '''
import numpy as np
import unpython
from unpython import prange

F1 = 'ndarray[float64, 1]'


@unpython.type(F1, 'int64', 'float64')
def pair(a, i):
    return a[i] + a[i + 1]


@unpython.type(F1, 'int64', 'float64')
def with_local(a, i):
    t = a[i]
    return t * 2.0


@unpython.type(F1, 'int64', 'float64')
def drawing(a, i):
    return a[i] + np.random.random()


@unpython.type('int64', 'int64')
def countdown(n):
    return countdown(n - 1) if n > 0 else 0


@unpython.type(F1, 'float64', 'float64')
def scaled_size(a, x):
    return a.shape[0] * x


@unpython.type(F1, F1, 'int64', 'float64', 'float64')
def caller(a, out, k, x):
    for i in prange(a.shape[0] - 1):
        out[i] = pair(a, i) + with_local(a, i)
    s = pair(a, 0) + pair(a, k + 1) + countdown(k) + scaled_size(a, x) + scaled_size(a, k)
    s += drawing(a, 0)
    return s
'''


def functions():
    return {f.name: f for f in compile_to_ir("inline_calls_src.py", SOURCE).functions}


def calls(fn):
    return sorted(e.func for e in walk_exprs(fn.body) if isinstance(e, ir.CallCompiled))


def test_what_is_inlined():
    """pair(a, i), pair(a, 0), countdown(k) (one level: its own call stays) and
    scaled_size(a, x) are; with_local (two statements), pair(a, k + 1) (an expression
    argument), scaled_size(a, k) (an int for a float64 parameter: converted) and drawing (a
    call through Python) are not."""
    fns = functions()
    assert calls(fns["caller"]) == sorted(["pair", "with_local", "pair", "pair", "countdown",
                                           "scaled_size", "scaled_size", "drawing"])
    inlined = inline_calls(fns["caller"], fns)
    assert calls(inlined) == sorted(["with_local", "pair", "countdown", "scaled_size",
                                     "drawing"])


def test_the_expression_reads_the_callers_names():
    fns = functions()
    loop = inline_calls(fns["caller"], fns).body[0]
    read = [(e.array.id, type(e.indices[0]).__name__) for e in walk_exprs(loop.body)
            if isinstance(e, ir.Subscript) and e.array.id == "a"]
    assert read == [("a", "Name"), ("a", "BinOp")]      # a[i], a[i + 1] (with_local: called)
    names = {e.id for e in walk_exprs(loop.body) if isinstance(e, ir.Name)}
    assert names == {"out", "i", "a"}
