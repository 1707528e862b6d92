"""Loops as Numba users write them, interpreter vs compiled (tests/kernels/iteration.py): over
`a.flat` (and its elements by position, read and written), over a tuple or list written out, over
`np.ndindex`; on the OpenMP path and, in `@unpython.gpu` functions, on the GPU path forced onto the
tested OpenCL device."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import diffcheck
from diffcheck import assert_ran_on
from npstrategies import arrays

SETTINGS = settings(max_examples=30, deadline=None)
RNG = np.random.default_rng(23)


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    return diffcheck.load_kernel_pair("iteration", tmp_path_factory.mktemp("iteration"))




# --- a.flat ------------------------------------------------------------------------------------

@SETTINGS
@given(arrays(np.float64, 2, max_side=5), arrays(np.float64, 3, max_side=4),
       arrays(np.float64, 3, max_side=4))
def test_flat_loops(kernels, a, b, c):
    """Any layout (reversed, strided, transposed, Fortran), zero-length dimensions."""
    kernels.check("flat_sum", a, rtol=1e-12)
    kernels.check("flat_zip_enumerate", b, c, rtol=1e-12)
    kernels.check("flat_running_sum", a, rtol=1e-12)


@SETTINGS
@given(arrays(np.float64, 3, max_side=4), st.integers(-70, 70))
def test_flat_item(kernels, a, i):
    """Negative positions count from the end; outside, IndexError with NumPy's message."""
    got = kernels.check("flat_item", a, i)
    if not -a.size <= i < a.size:
        assert str(got) == f"index {i} is out of bounds for size {a.size}"


@SETTINGS
@given(arrays(np.int32, 2, max_side=5, values=st.integers(-100, 100)), st.integers(-30, 30),
       st.integers(-5, 5))
def test_flat_store(kernels, a, i, v):
    kernels.check("flat_store", a, i, np.int32(v))


@SETTINGS
@given(arrays(np.float64, 2, min_side=1, max_side=5), st.integers(0, 30))
def test_flat_name(kernels, a, n):
    kernels.check("flat_name", a, np.int32(n), rtol=1e-12)


def test_flat_slice_is_a_copy(kernels):
    a = np.arange(12.0).reshape(3, 4)
    for view in (a, a[::-1, ::2], a.T):
        kernels.check("flat_slice", view)


def test_flat_in_a_gpu_nest(kernels, device):
    for a in (RNG.standard_normal((7, 9)), RNG.standard_normal((9, 14))[::-2, 1::3],
              RNG.standard_normal((6, 5)).T):
        w = RNG.standard_normal((4, 6))[:, ::-1]
        kernels.check("flat_in_a_prange", a, w, np.zeros(a.size), np.zeros(11), rtol=1e-12)
    assert_ran_on(kernels, "flat_in_a_prange", device)


def test_flat_written_in_a_gpu_nest(kernels, device):
    for a in (np.zeros((0, 3, 2)), np.zeros((6, 8, 10))[::-2, 1::3, ::4],
              np.zeros((2, 3, 4)).transpose(2, 0, 1), np.zeros((3, 4, 5))):
        b = RNG.standard_normal(a.shape)[..., ::-1]
        kernels.check("flat_written_in_a_prange", a, b, rtol=1e-12)
    assert_ran_on(kernels, "flat_written_in_a_prange", device)


# --- a tuple or list written out ----------------------------------------------------------------

@SETTINGS
@given(st.integers(-50, 50), st.floats(-1e6, 1e6))
def test_tuple_and_list_loops(kernels, i, x):
    kernels.check("tuple_of_ints", i)
    kernels.check("tuple_items_named", i)
    kernels.check("items_evaluated_once", x, rtol=1e-12)


@SETTINGS
@given(arrays(np.float64, 2, min_side=3, max_side=5), st.data())
def test_loop_over_tuples_unpacked(kernels, a, data):
    """continue, break and else; an item an expression of i (breaking where i > 4)."""
    i = data.draw(st.integers(1, a.shape[0] - 2))
    j = data.draw(st.integers(1, a.shape[1] - 2))
    kernels.check("neighbours", a, i, j, rtol=1e-12)
    kernels.check("neighbours", a, i + 4, j, rtol=1e-12)


def test_offsets_written_out_in_a_gpu_nest(kernels, device):
    for a in (RNG.uniform(-5, 5, (1, 6)), RNG.uniform(-5, 5, (3, 3)),
              RNG.uniform(-5, 5, (12, 15))[::-1, 1::2], RNG.uniform(-5, 5, (9, 12))):
        kernels.check("stencil_of_offsets", a, np.zeros(a.shape), rtol=1e-12)
    assert_ran_on(kernels, "stencil_of_offsets", device)


# --- np.ndindex ---------------------------------------------------------------------------------

@SETTINGS
@given(arrays(np.float64, 3, max_side=4))
def test_ndindex_of_a_shape(kernels, a):
    kernels.check("ndindex_of_a_shape", a, rtol=1e-12)


@SETTINGS
@given(st.integers(-2, 6), st.integers(-2, 6))
def test_ndindex_of_lengths(kernels, n, m):
    """A negative length raises ValueError, as NumPy's."""
    kernels.check("ndindex_of_lengths", n, m)


def test_ndindex_in_a_gpu_nest(kernels, device):
    for a, w in ((RNG.standard_normal((3, 0, 2)), RNG.standard_normal((1, 1))),
                 (RNG.standard_normal((5, 3, 4)), RNG.standard_normal((2, 3))),
                 (RNG.standard_normal((6, 8, 5))[::-1, 1::2, ::-2],
                  RNG.standard_normal((4, 6)).T)):
        kernels.check("ndindex_in_a_prange", a, w, np.zeros(a.shape[0]), rtol=1e-12)
    assert_ran_on(kernels, "ndindex_in_a_prange", device)


@SETTINGS
@given(arrays(np.float64, 2, max_side=6), st.integers(-3, 3))
def test_enumerate_of_zip_unpacked(kernels, a, k):
    kernels.check("enumerated_pairs", a, k, rtol=1e-12)


# --- positions unravelled by hand ---------------------------------------------------------------

@SETTINGS
@given(arrays(np.float64, 2, max_side=5), st.integers(-20, 20), st.integers(-20, 40),
       st.integers(-4, 4))
def test_positions_unravelled_by_hand(kernels, a, start, stop, m):
    """Divisors of any sign (0: ZeroDivisionError), any start, any layout of a."""
    kernels.check("positions_unravelled", a, start, stop, m, rtol=1e-12)


@SETTINGS
@given(arrays(np.float64, 3, max_side=4), st.integers(-80, 80))
def test_position_written_out(kernels, a, k):
    """A C-contiguous array's data[k] only where 0 <= k < size; else NumPy's indexing: rows
    counted from the end, IndexError (ZeroDivisionError for a zero length)."""
    kernels.check("position_written_out", a, k)
