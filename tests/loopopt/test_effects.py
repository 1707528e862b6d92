"""unpy/loopopt/effects.py: whether statements can raise in each back end's code (the C++
path's vectorised blocks, an OpenCL kernel), the arrays they store into, and the scalars each
run keeps to itself."""
import textwrap

import pytest

from described import function
from unpy import ir
from unpy.loopopt.effects import (CPP, OPENCL, cannot_raise, private_scalars, stored_accesses,
                                  stored_arrays)
from unpy.typeinfer.reductions import walk_exprs, walk_stmts

SOURCE = '''
import math
import numpy as np
import unpython
from unpython import prange


@unpython.type('ndarray[float64,2]', 'ndarray[float64,2]', None)
def products(a, c):
    for i in prange(c.shape[0]):
        for j in prange(c.shape[1]):
            s = 0.0
            for k in range(a.shape[1]):
                s += a[i, k] * a[j, k]
            c[i, j] = s


@unpython.type('ndarray[float64,2]', 'ndarray[float64,2]', None)
def quotients(a, c):
    for i in prange(c.shape[0]):
        for j in prange(c.shape[1]):
            c[i, j] = a[i, j] / a[j, i]


@unpython.type('ndarray[int64,1]', 'ndarray[int64,1]', None)
def floor_quotients(a, c):
    for i in prange(c.shape[0]):
        c[i] = a[i] // a[0]


@unpython.type('ndarray[float64,1]', 'ndarray[float64,1]', None)
def roots(a, c):
    for i in prange(c.shape[0]):
        c[i] = np.sqrt(a[i]) + math.sqrt(a[0])


@unpython.type('ndarray[float64,1]', 'ndarray[float64,1]', None)
def halvings(a, c):
    for i in prange(c.shape[0]):
        x = a[i]
        while x > 1.0:
            x = x / 2.0
        c[i] = x


@unpython.type('ndarray[float64,1]', 'ndarray[float64,1]', None)
def carried(a, c):
    t = 0.0
    for i in range(c.shape[0]):
        if a[i] > 0.0:
            t = a[i]
        c[i] = t
'''


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    path = tmp_path_factory.mktemp("effects") / "effect_kernels.py"
    path.write_text(textwrap.dedent(SOURCE))
    return path


def _body(source, name):
    """The statements inside the function's first loop."""
    return next(s for s in walk_stmts(function(source, name).body) if isinstance(s, ir.For)).body


@pytest.mark.parametrize("name, cpp, opencl", [
    ("products", True, True),
    ("quotients", True, False),          # a float division: NaN or inf in C++, a flag in OpenCL
    ("floor_quotients", False, False),   # an integer division by zero raises
    ("halvings", True, False),           # a kernel's while may loop forever
])
def test_each_back_end_has_its_policy(source, name, cpp, opencl):
    body = _body(source, name)
    assert (cannot_raise(body, CPP), cannot_raise(body, OPENCL)) == (cpp, opencl)


def test_math_functions_check_their_domain(source):
    body = _body(source, "roots")
    assert not cannot_raise(body, CPP) and not cannot_raise(body, OPENCL)
    calls = [e.func for e in walk_exprs(body) if isinstance(e, ir.Call)]
    assert "np.sqrt" in calls and CPP.safe_call("np.sqrt") and OPENCL.safe_call("np.sqrt")


def test_checked_accesses_can_raise(source):
    body = _body(source, "products")
    assert not cannot_raise(body, OPENCL, unchecked=lambda e: e.array.id != "c")


def test_stored_arrays(source):
    body = _body(source, "products")
    assert stored_arrays(body) == {"c"}
    assert [e.array.id for e in stored_accesses(body)] == ["c"]


def test_private_scalars_are_assigned_before_read(source):
    inner = _body(source, "products")[0].body
    assert private_scalars(inner, {"s"})
    assert not private_scalars(_body(source, "carried"), {"t"})
