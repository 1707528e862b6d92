"""unpy/loopopt/load_elimination.py under the C++ path's rule (CpuLoads) on the statements of a
prange nest's body: a repeated load reads a temporary, until a store that may change its
element, an assignment to a variable of its index, or a call with effects ends the reuse.
(The OpenCL path's rule: tests/jitgpu/loopopt/test_load_elimination.py.)"""
from unpy import ir
from unpy.loopopt.load_elimination import CpuLoads, eliminate_loads
from unpy.loopopt.nest import cpu_nest
from unpy.pipeline import compile_to_ir
from unpy.typeinfer.reductions import outermost_pranges

SOURCE = '''
import numpy as np
import unpython
from unpython import prange

F1 = 'ndarray[float64, 1]'
F2 = 'ndarray[float64, 2]'


@unpython.type(F2, F1, F2, F2, None)
def stencil(a, w, out, low):
    for i in prange(1, a.shape[0]):
        for j in range(a.shape[1]):
            out[i, j] = a[i, j] * w[j]
            low[i, j] = a[i, j] + a[i - 1, j]


@unpython.type(F2, F1, None)
def shifted(a, w):
    for i in prange(a.shape[0]):
        j = 0
        w[i] = a[i, j] * 2.0
        j = 1
        w[i] = w[i] + a[i, j]


@unpython.type(F2, F1, None)
def bump(a, w):
    for i in prange(a.shape[0]):
        w[i] = a[i, 0] * 2.0
        a[i, 0] = w[i] + 1.0
        w[i] = a[i, 0] + w[i]
'''


def _body(name):
    module = compile_to_ir("load_kernels.py", SOURCE)
    fn = next(f for f in module.functions if f.name == name)
    return list(cpu_nest(next(outermost_pranges(fn.body)), with_middle=False).body)


def _eliminated(name, disjoint=()):
    body = _body(name)
    found = eliminate_loads(body, CpuLoads(frozenset(disjoint)), set())
    return found, "\n".join(ir.format_stmts(found.body))


def test_a_repeated_load_reads_a_temporary_where_the_store_is_disjoint():
    found, text = _eliminated("stencil", {("out", "a"), ("out", "w")})
    assert found.temporaries == [("a_ld1", "float64")] and found.reused == 1
    assert "a_ld1 = a[i, j]" in text
    assert "low[i, j] = (a_ld1 + a[(i - 1), j])" in text


def test_a_store_that_may_alias_ends_the_reuse():
    # out may be a view of a: after the store into out, a[i, j] is loaded again.
    found, text = _eliminated("stencil", {("out", "w")})
    assert found.reused == 0
    assert ("out[i, j] = (a_ld1 * w[j])\n        a_ld4 = a[i, j]\n"
            "        low[i, j] = (a_ld4 + a[(i - 1), j])") in text


def test_a_store_to_the_array_and_an_index_variable_end_the_reuse():
    # a[i, j] before and after `j = 1` are different elements.
    found, text = _eliminated("shifted", {("w", "a")})
    assert found.reused == 0
    assert "j = 1\n    a_ld4 = a[i, j]\n    w[i] = (w[i] + a_ld4)" in text
    # A store into a itself ends the reuse of a[i, 0], the pairs apart; w[i] is reused
    # past it (a and w disjoint).
    found, text = _eliminated("bump", {("w", "a"), ("a", "w")})
    assert found.reused == 1
    assert ("a[i, 0] = (w_ld3 + 1.0)\n    a_ld5 = a[i, 0]\n    w[i] = (a_ld5 + w_ld3)"
            in text)
