"""Hypothesis strategies: small loop nests over real NumPy views (steps, negative steps,
transposes, Fortran order, views of one buffer, other item sizes, misaligned views)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from hypothesis import strategies as st

from jitgpu.lmad import Access, AffineForm, LoopDim

from .oracle import live

ELEMS_F8 = 48                 # elements of a float64 view of a whole buffer
RAW_BYTES = ELEMS_F8 * 8 + 8  # room for a misaligned view


@dataclass
class Nest:
    loops: list
    views: dict        # key -> np.ndarray (kept alive: the addresses must stay valid)
    arrays: list       # LiveArray
    accesses: list


@st.composite
def views(draw, raw: np.ndarray, mixed: bool, min_ndim: int = 1):
    """A view of the byte buffer `raw`, reshaped, sliced and maybe transposed."""
    dtype = np.dtype(draw(st.sampled_from(["float64", "int32", "int16"])) if mixed else "float64")
    offset = draw(st.sampled_from([0, 0, 0, 4])) if mixed else 0
    count = ELEMS_F8 * 8 // dtype.itemsize
    flat = raw[offset:offset + count * dtype.itemsize].view(dtype)
    shapes = [(count,), (count // 8, 8), (6, count // 6), (count // 24, 4, 6), (2, 3, count // 6)]
    shape = draw(st.sampled_from([s for s in shapes if len(s) >= min_ndim]))
    arr = draw(strided(flat.reshape(shape, order=draw(st.sampled_from("CF")))))
    return arr


@st.composite
def coefficients(draw, loops: list):
    """Mostly one loop variable per dimension, as in `a[i, j]`; sometimes none or several."""
    count = min(len(loops), draw(st.sampled_from([1, 1, 1, 1, 0, 2])))
    chosen = draw(st.lists(st.sampled_from(loops), min_size=count, max_size=count,
                           unique_by=lambda loop: loop.var))
    return {loop.var: draw(st.sampled_from([1, 1, 1, -1, 2, -2, 3])) for loop in chosen}


@st.composite
def index_forms(draw, n: int, loops: list, in_bounds: bool, coeffs=None):
    """An affine index over the loops that stays in [0, n) (when in_bounds), or None; with
    `coeffs` given only the constant is drawn (stencils: one pattern, shifted)."""
    if coeffs is None:
        if draw(st.integers(0, 11)) == 0:
            return None
        coeffs = draw(coefficients(loops))
    extents = {loop.var: max(loop.extent, 1) for loop in loops}
    coeffs = dict(coeffs)
    for var in list(coeffs):  # drop terms until the index fits the dimension
        if sum(abs(c) * (extents[v] - 1) for v, c in coeffs.items()) <= n - 1:
            break
        coeffs[var] = 0
    form = AffineForm(0, coeffs)
    lo, hi = form.value_range(extents)
    slack = 0 if in_bounds else 2
    return AffineForm(draw(st.integers(-lo - slack, n - 1 - hi + slack)), coeffs)


@st.composite
def nests(draw, in_bounds: bool = True, max_extent: int = 4):
    nloops = draw(st.integers(1, 3))
    loops = [LoopDim(var, draw(st.integers(1, max_extent)), draw(st.booleans()))
             for var in "ijk"[:nloops]]
    if draw(st.integers(0, 15)) == 0:
        loops[-1].extent = 0
    raw = np.zeros(RAW_BYTES, dtype=np.uint8)
    shared = draw(st.booleans())
    arrays = {"a": draw(views(raw, mixed=shared))}
    if draw(st.booleans()):
        other = raw if shared else np.zeros(RAW_BYTES, dtype=np.uint8)
        arrays["b"] = draw(views(other, mixed=shared))
    accesses = []
    for key, arr in arrays.items():
        stencil = [draw(coefficients(loops)) for _ in arr.shape] if draw(st.booleans()) else None
        for _ in range(draw(st.integers(1, 4))):
            indices = [draw(index_forms(n, loops, in_bounds, stencil and stencil[d]))
                       for d, n in enumerate(arr.shape)]
            if sum(ix is None for ix in indices) > 1:   # keep the brute force small
                indices = [ix or AffineForm(0) for ix in indices]
            read, write = draw(st.sampled_from([(True, False), (False, True), (True, True)]))
            accesses.append(Access(len(accesses), key, indices, read, write,
                                   unconditional=draw(st.booleans())))
    return Nest(loops, arrays, [live(k, a) for k, a in arrays.items()], accesses)


@st.composite
def strided(draw, arr: np.ndarray, max_trim: int = 2) -> np.ndarray:
    """`arr` sliced with a step per dimension (maybe negative) and maybe transposed."""
    slices = []
    for n in arr.shape:
        step = draw(st.sampled_from([1, 1, 2, 3, -1, -2]))
        trim = [draw(st.integers(0, min(max_trim, n - 1))) for _ in range(2)]
        lo, hi = min(trim[0], n - 1), max(n - trim[1], min(trim[0], n - 1) + 1)
        slices.append(slice(lo, hi, step) if step > 0 else
                      slice(hi - 1, lo - 1 if lo > 0 else None, step))
    arr = arr[tuple(slices)]
    if draw(st.booleans()):
        arr = arr.transpose(draw(st.permutations(range(arr.ndim))))
    return arr


@st.composite
def stencil_nests(draw):
    """A 2-D or 3-D view read at several shifts of `a[c_0*i + k_0, c_1*j + k_1, ...]`: the
    groups of equal strides that Theorem 2 and the ILP are for."""
    base = np.zeros(draw(st.sampled_from([(12, 14), (16, 10), (5, 6, 7)])),
                    order=draw(st.sampled_from("CF")))
    arr = draw(strided(base, max_trim=1))
    loops, steps, radii = [], [], []
    for var, n in zip("ijk", arr.shape):
        step = draw(st.sampled_from([1, 1, 2, -1]))
        radius = draw(st.integers(0, min(2, n - 1)))
        most = (n - 1 - radius) // abs(step) + 1
        loops.append(LoopDim(var, draw(st.integers(min(2, most), most)), True))
        steps.append(step)
        radii.append(radius)
    accesses = []
    for ref in range(draw(st.integers(1, 5))):
        indices = []
        for loop, step, radius in zip(loops, steps, radii):
            shift = draw(st.integers(0, radius))
            first = 0 if step > 0 else -step * (loop.extent - 1)
            indices.append(AffineForm(first + shift, {loop.var: step}))
        read, write = draw(st.sampled_from([(True, False), (False, True), (True, True)]))
        accesses.append(Access(ref, "a", indices, read, write, draw(st.booleans())))
    return Nest(loops, {"a": arr}, [live("a", arr)], accesses)
