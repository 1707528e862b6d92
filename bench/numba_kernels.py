"""Numba versions of the example kernels: the very same loops, compiled by
`numba.njit(parallel=True)`.

Each function is the example's own Python function (as the interpreter runs it) with its global
`prange` bound to `numba.prange` instead of `range`, so the Numba column runs exactly the loops that
unpy compiles, with no second copy to drift. Numba parallelises the outermost prange of a nest and
runs inner ones as plain loops."""
import types

import numba

import _harness


def njit_parallel(func):
    """`func` compiled by `numba.njit(parallel=True)`, with `prange` meaning `numba.prange`."""
    with_numba_prange = dict(func.__globals__, prange=numba.prange)
    twin = types.FunctionType(func.__code__, with_numba_prange, func.__name__,
                              func.__defaults__, func.__closure__)
    return numba.njit(parallel=True)(twin)


def kernel(case):
    """The Numba-compiled function of `case` (an example's `_harness.Case`); compiles on first
    call."""
    return njit_parallel(getattr(_harness.interpreted(case.kernel), case.func))
