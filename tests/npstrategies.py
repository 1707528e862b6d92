"""Hypothesis strategies for the differential tests: NumPy scalars of a dtype (edges included) and
arrays in every layout (C, Fortran, strided and reversed views, transposes, zero-size)."""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

LAYOUTS = ("C", "F", "strided", "reversed", "transposed")


def _edges(dtype):
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        values = [info.min, info.max, 0, 1, 2, info.max - 1]
        if dtype.kind == "i":
            values += [-1, -2, info.min + 1]
        return values
    if dtype.kind == "f":
        info = np.finfo(dtype)
        return [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, float(info.max), float(-info.max),
                float(info.tiny), float(info.smallest_subnormal), np.inf, -np.inf, np.nan]
    return [False, True]


def scalars(dtype, finite=False, min_value=None, max_value=None):
    """NumPy scalars of `dtype`, often at the edges of its range (for floats: +-0, subnormals,
    the extremes, and unless `finite` infinities and NaN)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return st.booleans().map(np.bool_)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        lo = info.min if min_value is None else max(min_value, info.min)
        hi = info.max if max_value is None else min(max_value, info.max)
        edges = [v for v in _edges(dtype) if lo <= v <= hi]
        return st.one_of(st.sampled_from(edges), st.integers(lo, hi)).map(dtype.type)
    edges = [v for v in _edges(dtype) if not finite or np.isfinite(v)]
    floats = st.floats(width=8 * dtype.itemsize, allow_nan=not finite,
                       allow_infinity=not finite)
    small = st.integers(-20, 20).map(float)      # exact quotients and remainders are common too
    return st.one_of(st.sampled_from(edges), floats, small).map(dtype.type)


def elements(dtype, finite=True):
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return st.one_of(st.floats(-1e6, 1e6, width=8 * dtype.itemsize),
                         st.sampled_from([0.0, -0.0, -1.0, 1.0]))
    if dtype.kind == "c":
        return st.complex_numbers(max_magnitude=1e6, allow_nan=False, allow_infinity=False,
                                  width=8 * dtype.itemsize)
    return hnp.from_dtype(dtype)


@st.composite
def arrays(draw, dtype, ndim, min_side=0, max_side=4, values=None, layouts=LAYOUTS,
           writeable=True):
    """An ndarray of `dtype` and `ndim` in one of `layouts`: C- or Fortran-ordered, a view with
    steps (offset start, step 2 or 3), a reversed view (negative strides), or a transpose."""
    dtype = np.dtype(dtype)
    shape = draw(st.tuples(*[st.integers(min_side, max_side)] * ndim))
    layout = draw(st.sampled_from(layouts))
    steps = [1] * ndim
    if layout == "strided":
        steps = draw(st.tuples(*[st.sampled_from([1, 2, 3])] * ndim))
    elif layout == "reversed":
        steps = draw(st.tuples(*[st.sampled_from([-1, -2, 1])] * ndim))
    perm = list(range(ndim))
    if layout == "transposed":
        perm = draw(st.permutations(range(ndim)))
    base_shape = [max(1, (n - 1) * abs(s) + 1) + (1 if layout == "strided" else 0)
                  for n, s in zip(_unpermute(shape, perm), steps)]
    base = draw(hnp.arrays(dtype, tuple(base_shape),
                           elements=values if values is not None else elements(dtype)))
    if layout == "F":
        base = np.asfortranarray(base)
    slices = []
    for n, s, b in zip(_unpermute(shape, perm), steps, base_shape):
        if s > 0:
            start = b - ((n - 1) * s + 1) if layout == "strided" else 0
            slices.append(slice(start, start + n * s, s) if n else slice(0, 0))
        else:
            slices.append(slice(b - 1, None, s) if n else slice(0, 0))
    view = base[tuple(slices)]
    if layout == "transposed":
        view = view.transpose(perm)
    assert view.shape == tuple(shape), (view.shape, shape, layout)
    if not writeable:
        view.flags.writeable = False
    return view


def _unpermute(shape, perm):
    """The shape before `transpose(perm)` that gives `shape`."""
    out = [0] * len(shape)
    for k, p in enumerate(perm):
        out[p] = shape[k]
    return out


@st.composite
def matrices(draw, shape, dtype=np.float64, ints=False):
    """A matrix of `shape` in one of LAYOUTS, values of a few significant bits each (floats:
    uniform in [-1, 1), ints in [-50, 50)) so that any change in the order of the additions
    shows in the results. The loop optimisations of the C++ path compile their forms for
    contiguous rows: the strided and transposed layouts run the loops as written."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    layout = draw(st.sampled_from(LAYOUTS))
    rows, cols = shape
    big = {"strided": (2 * rows + 1, 3 * cols + 1), "transposed": (cols, rows)}.get(
        layout, (rows, cols))
    base = (rng.integers(-50, 50, big) if ints else rng.uniform(-1, 1, big)).astype(dtype)
    if layout == "F":
        return np.asfortranarray(base)
    if layout == "reversed":
        return base[::-1, ::-1]
    if layout == "strided":
        return base[1::2, ::3][:rows, :cols]
    if layout == "transposed":
        return base.T
    return base
