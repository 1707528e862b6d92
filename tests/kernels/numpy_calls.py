"""NumPy library functions that published kernels call (tests/corpus): np.tensordot,
np.take_along_axis, np.ndarray(shape, dtype) as an allocation, ... Every function is
`@unpython.gpu`, so that one module is compared with the interpreter on the OpenMP path and on
the GPU path (tests/differential/test_numpy_calls.py)."""
import numpy as np

import unpython

F1 = 'ndarray[float64, 1]'
F2 = 'ndarray[float64, 2]'
F3 = 'ndarray[float64, 3]'


@unpython.gpu
@unpython.type(F3, F2, F1, 'ndarray[int8, 2]',
               (F3, F2, F1, F2, 'ndarray[int8, 2]', F2))
def tensordots(t, w, v, k):
    """axes=1, a pair of lists (a negative axis too), axes=2 by default, axes=0 (an outer
    product), int8 sums wrapping as NumPy's; lengths summed together that differ raise
    ValueError (a length 1 too: tensordot does not broadcast)."""
    return (np.tensordot(t, w, axes=1), np.tensordot(t, v, axes=([1], [0])),
            np.tensordot(t, w, ([-1, 0], [0, 1])), np.tensordot(t, np.transpose(t, (1, 2, 0))),
            np.tensordot(k, k.T, axes=1), np.tensordot(v, v, 0))


@unpython.gpu
@unpython.type(F3, 'ndarray[float64, 4]', F1, 'ndarray[int16, 3]',
               (F3, 'ndarray[float64, 4]', F2, F2, 'ndarray[float64, 4]', 'ndarray[int16, 3]'))
def stacked_products(s, q, v, k):
    """`@` of stacks of matrices (npbench's doitgen: `A.reshape(NR, NQ, 1, NP) @ C4`), the
    leading dimensions broadcast, a vector on either side, np.dot of N-D arrays (a's last axis
    with b's second to last), int16 sums wrapping as NumPy's; a summed length that differs
    raises ValueError (a length 1 too: matmul broadcasts no length 1 there)."""
    return (s @ s.transpose((0, 2, 1)), q @ s, v @ s, s @ v, np.dot(s, q[0]),
            np.matmul(k, k))


@unpython.gpu
@unpython.type('float64', 'float64', 'int64', 'ndarray[int64, 2]', F2)
def gathered_grid(lo, hi, n, xi):
    """npbench's mandelbrot2 (Pythran's): a 2-D index array of a computed 1-D array."""
    return np.linspace(lo, hi, n, dtype=np.float64)[xi] * 2.0


@unpython.gpu
@unpython.type(F2, 'ndarray[int64, 2]', (F1, 'ndarray[int64, 2]', F2))
def matrix_powers(a, k):
    """np.linalg.matrix_power with literal powers (Pythran's rand_mat_stat:
    trace(matrix_power(dot(P.T, P), 4))), NumPy's products in NumPy's order; of 1 the matrix
    itself; a matrix that is not square raises LinAlgError."""
    traces = np.empty(6)
    traces[0] = np.trace(np.linalg.matrix_power(np.dot(a.T, a), 4))
    traces[1] = np.trace(np.linalg.matrix_power(a, 0))
    traces[2] = np.trace(np.linalg.matrix_power(a, 3))
    traces[3] = np.trace(np.linalg.matrix_power(a, 5))
    traces[4] = np.trace(np.linalg.matrix_power(a, 12))
    same = np.linalg.matrix_power(a, 1)
    same[0, 0] = 0.5            # a itself, as NumPy's
    traces[5] = a[0, 0]
    return traces, np.linalg.matrix_power(k, 6), np.linalg.matrix_power(a, 2)


@unpython.gpu
@unpython.type('int64', 'int64', ('ndarray[int32, 2]', F1, 'ndarray[float32, 1]'))
def ndarrays(n, m):
    """np.ndarray(shape, dtype) allocates as np.empty: filled by the function."""
    a = np.ndarray((n, m), dtype=np.int32)
    a[...] = 7
    b = np.ndarray(m)
    b[:] = np.arange(m) * 0.5
    c = np.ndarray(shape=(n,), dtype='float32')
    c.fill(1.5)
    return a, b, c


@unpython.gpu
@unpython.type(F2, 'ndarray[int32, 2]', 'ndarray[int8, 2]', F1, 'ndarray[int64, 1]',
               (F2, F2, F1, F2, F2, F1))
def taken_along(a, idx, idx0, v, j):
    """np.take_along_axis along each axis, axis=None (of a vector, of a flattened matrix),
    of a reversed view, of argsort's order; negative indices count from the end, those out
    of range raise IndexError, a length 1 broadcasts (IndexError where lengths differ
    otherwise)."""
    return (np.take_along_axis(a, idx, axis=1), np.take_along_axis(a, idx0, 0),
            np.take_along_axis(v, j, axis=None), np.take_along_axis(a[::-1], idx, axis=-1),
            np.take_along_axis(a, np.argsort(a, axis=1), axis=1),
            np.take_along_axis(a, j, axis=None))


@unpython.gpu
@unpython.type(F2, F2, F1, 'ndarray[int32, 1]', 'ndarray[float32, 2]',
               ('float64', F1, F1, F2, 'float64', F2, 'ndarray[float32, 1]', 'float64'))
def averages(a, w, w0, k, s):
    """np.average with weights of a's shape (all of it, along an axis, keepdims), 1-D weights
    along an axis, without weights (np.mean), of float32 and integers (float64); weights
    summing to 0 raise ZeroDivisionError, weights of another shape ValueError."""
    return (np.average(a, weights=w), np.average(a, axis=1, weights=w),
            np.average(a, axis=0, weights=w0), np.average(a, 1, w, keepdims=True),
            np.average(k), np.average(a, axis=0, keepdims=True),
            np.average(s, axis=0, weights=s), np.average(k, weights=k))


@unpython.gpu
@unpython.type(F2, 'float64', 'ndarray[int32, 1]', 'ndarray[float32, 2]',
               (F2, F2, F1, 'ndarray[float32, 2]', F2, F2, 'ndarray[float32, 2]'))
def gradients(a, h, k, s):
    """np.gradient of every axis (a tuple, unpacked), with one spacing, one per axis,
    edge_order=2, along one axis, of integers (float64) and float32 (a float64 spacing
    computes in float64, stored as float32); an axis shorter than edge_order + 1 raises
    ValueError."""
    gy, gx = np.gradient(a, h)
    g2 = np.gradient(a, 2.0, h, edge_order=2)
    return (gy, gx, np.gradient(k), np.gradient(s, axis=1), g2[0],
            np.gradient(a[::-1], axis=-1, edge_order=2), np.gradient(s, h, axis=0))


@unpython.gpu
@unpython.type(F2, F1, 'ndarray[int32, 1]', 'float64',
               ('ndarray[int64, 2]', 'ndarray[int64, 2]', 'ndarray[int64, 1]', 'int64',
                'ndarray[int64, 1]'))
def digitized(x, bins, k, s):
    """np.digitize of arrays and a scalar, right=False and True, rising and falling bins (of
    another dtype than x too); bins that neither rise nor fall raise ValueError."""
    return (np.digitize(x, bins), np.digitize(x, bins, right=True), np.digitize(k, bins),
            np.digitize(s, bins, True), np.digitize(x[0], k))


@unpython.gpu
@unpython.type(F2, F2, F1, 'ndarray[int32, 2]', (F2, F2, F1, 'ndarray[int64, 2]'))
def crosses(a, b, v, k):
    """np.cross of rows, of rows and one vector (broadcast), of two vectors, of integers
    (NumPy's dtype); vectors of 2 components with 3 (the missing one left out of the
    products), lengths other than 2 or 3 raise ValueError, as do leading lengths that do not
    broadcast."""
    return (np.cross(a, b), np.cross(a, v), np.cross(v, v[::-1]),
            np.cross(k, a.astype(np.int64)))


@unpython.gpu
@unpython.type(F1, F1, F2, 'int64', 'ndarray[int32, 1]', (F1, F2, F1, F1))
def polyfits(x, y, ys, deg, k):
    """np.polyfit of a 1-D y, of a 2-D y (a column per data set), of integers, the trend
    removed by np.polyval; a negative degree raises ValueError."""
    p = np.polyfit(x, y, deg)
    return p, np.polyfit(x, ys, 2), np.polyfit(k, k * k, 1), y - np.polyval(p, x)


@unpython.gpu
@unpython.type(F2, 'float64', 'ndarray[int32, 3]', 'ndarray[float32, 2]',
               (F1, F1, F2, 'ndarray[float32, 1]', F2, 'float64', 'ndarray[int32, 2]'))
def quantiles_along(a, q, k, s):
    """np.quantile and np.percentile along an axis (each, the last, keepdims, of a 1-D array:
    a number), of integers, of float32 (a Python q: float32), an integer q (an element); q
    out of range raises ValueError, empty rows IndexError."""
    return (np.quantile(a, q, axis=1), np.percentile(a, 100 * q, axis=0),
            np.quantile(k, 0.25, axis=-1), np.quantile(s, 0.3, axis=1),
            np.quantile(a, q, axis=0, keepdims=True), np.quantile(a[0], q, axis=0),
            np.quantile(k, 1, axis=1))


@unpython.gpu
@unpython.type(F2, 'ndarray[int8, 2]', 'ndarray[float32, 1]',
               ('float64', F1, 'ndarray[int8, 2]', 'float32'))
def ptps(a, k, s):
    """np.ptp (peak to peak): NumPy's np.max(a, axis) - np.min(a, axis), of the whole array,
    along an axis, with keepdims, of int8 (wrapping, as NumPy's), of float32; NaN propagates;
    an empty array raises ValueError."""
    return np.ptp(a), np.ptp(a * 2, axis=0), np.ptp(k, axis=1, keepdims=True), np.ptp(s)


@unpython.gpu
@unpython.type(F2, 'float64', 'ndarray[float32, 1]',
               ('float64', F1, F2, F1, F1))
def quantile_lists(a, q, s):
    """A list or tuple of q written out (the interquartile range of
    `q1, q3 = np.percentile(x, [25, 75])`): NumPy's array of one result per q, of the whole
    array, along an axis (a new first axis), by keyword, of float32
    (float64, as NumPy's q array makes it), NaN-skipping; a q out of range raises ValueError."""
    q1, q3 = np.percentile(a, [25, 75])
    return (q3 - q1, np.quantile(a * 2, (q, 0.5, 1.0)), np.quantile(a, [0.1, q], axis=1),
            np.percentile(s, q=[10, 90.0]), np.quantile(a, [q, 0.9], axis=0)[1] + np.nanquantile(
                a, [q, 0.9]).sum())


@unpython.gpu
@unpython.type(F3, 'ndarray[int32, 3]', 'ndarray[bool, 2]',
               (F1, F3, 'float64', 'ndarray[int64, 1]', 'ndarray[bool, 2]', F1))
def over_axes(a, k, m):
    """Reductions over a tuple of axes (in any order, negative ones, keepdims): one axis after
    another, the highest first: sum, mean of integers (a float64), max of all three, prod of
    integers (NumPy's int64), any keeping dims, nanmax."""
    return (np.sum(a, axis=(0, 1)), a.mean(axis=(2, 0), keepdims=True),
            np.max(a, axis=(0, 1, 2)), np.prod(k, axis=(-1, 0)), m.any(axis=(1,), keepdims=True),
            np.nanmax(a, axis=(1, 2)))


@unpython.gpu
@unpython.type(F1, F2, 'ndarray[int32, 2]', 'ndarray[float32, 2]', (F1, F1, F1, 'ndarray[float32, 2]'))
def norms_ordered(x, a, k, s):
    """np.linalg.norm with ord: of a vector inf, -inf, 1, 0 (nonzeros), 3, -2 (a zero gives
    0), 2; of a matrix 1, -1, inf, -inf, 'fro'; of integers along an axis (float64); of float32
    along an axis with keepdims (float32)."""
    vector = np.array([np.linalg.norm(x, np.inf), np.linalg.norm(x, ord=-np.inf),
                       np.linalg.norm(x, 1), np.linalg.norm(x, 0), np.linalg.norm(x, ord=3),
                       np.linalg.norm(x, -2), np.linalg.norm(x, 2)])
    matrix = np.array([np.linalg.norm(a, 1), np.linalg.norm(a, -1), np.linalg.norm(a, np.inf),
                       np.linalg.norm(a, -np.inf), np.linalg.norm(a, 'fro')])
    return vector, matrix, np.linalg.norm(k, ord=np.inf, axis=1), \
        np.linalg.norm(s, 3, axis=0, keepdims=True)


@unpython.gpu
@unpython.type(F2, 'int64', 'ndarray[int32, 2]', 'ndarray[float32, 1]', 'int64',
               (F2, 'ndarray[int32, 2]', 'ndarray[float32, 1]', F2, F1))
def pads(a, k, m, v, n):
    """np.pad with mode 'constant' (the default): one width for every side, (before, after) per
    axis with a constant converted to int32, (before, after) for every axis with a float32
    constant, a width by keyword, np.full of a negative length beside an array; a negative
    width raises ValueError, as NumPy does."""
    return (np.pad(a, k), np.pad(m, ((1, 2), (0, k)), constant_values=7),
            np.pad(v, (2, 1), 'constant', constant_values=-1.5),
            np.pad(a, pad_width=((k,), (1,)), mode="constant", constant_values=2.5),
            np.concatenate((np.full(n, 1.0), a.ravel())))


@unpython.gpu
@unpython.type(F2, 'int64', 'int64', 'ndarray[int32, 1]', 'ndarray[float32, 3]',
               (F2, F2, F2, F2, 'ndarray[int32, 1]', 'ndarray[float32, 3]'))
def pad_modes(a, b, c, v, t):
    """np.pad's modes that read the array's own elements: 'edge' with (before, after) per axis,
    'wrap' with one width, 'reflect' by position with (before, after), 'symmetric' with
    ((before,), (after,)); of an int32 vector, and of a 3-D float32 array (one axis unpadded),
    then used in an expression; widths larger than the array repeat the mode as NumPy does; a
    negative width, and a width on an empty axis, raise ValueError as NumPy's."""
    return (np.pad(a, ((b, c), (c, b)), mode='edge'), np.pad(a, b, mode='wrap'),
            np.pad(a, (b, c), 'reflect'), np.pad(a, ((b,), (c,)), mode="symmetric"),
            np.pad(v, c, mode='reflect') * 2, np.pad(t, ((b, c), (0, 0), (c, 1)), 'symmetric'))


@unpython.gpu
@unpython.type(F1, F1, 'int64', 'ndarray[float32, 2]', 'ndarray[int32, 2]',
               (F1, 'ndarray[float32, 1]', 'ndarray[int32, 1]', F1))
def weighted_histograms(radius, data, n, a, k):
    """np.histogram with weights= (npbench's azimint_hist): float64 sums of the weights per
    bin, float32 weights over a range (the sums in float64, each block's cast to float32),
    integer weights (int32 sums); weights of another shape raise ValueError."""
    histw = np.histogram(radius, n, weights=data)[0]
    return (histw / np.histogram(radius, n)[0],
            np.histogram(a, 4, range=(-0.25, 0.5), weights=a * 2)[0],
            np.histogram(a, bins=3, weights=k)[0], np.histogram(radius, n, weights=data)[1])


@unpython.gpu
@unpython.type(F1, 'ndarray[float32, 2]', 'ndarray[int32, 2]', 'float64',
               (F3, 'ndarray[bool, 2]', F2, F1, 'ndarray[int32, 2]'))
def ufunc_outers(x, m, p, s):
    """np.<ufunc>.outer(a, b): a given b.ndim new last axes (shape a.shape + b.shape), for the
    operator ufuncs, a comparison, np.maximum of a reversed view, a scalar first; and npbench's
    Floyd-Warshall step, whose product reads rows and columns of the array it overwrites."""
    for j in range(p.shape[0]):
        p[:] = np.minimum(p[:], np.add.outer(p[:, j], p[j, :]))
    return (np.multiply.outer(x, m), np.less.outer(x, x), np.maximum.outer(x[::-1], x),
            np.subtract.outer(s, x), p)


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'int64', 'int32',
               ('float64', 'ndarray[int64, 2]', 'ndarray[int64, 1]', 'ndarray[int32, 2]',
                'ndarray[int64, 3]'))
def grids(img, step, m):
    """np.mgrid of integer slices unpacked (an image's centroid row), a negative step, one
    slice; np.ogrid's sparse grids in int32 (an int32 stop with Python ints), three axes; a
    negative length of mgrid raises ValueError as NumPy's."""
    yy, xx = np.mgrid[:img.shape[0], 1:img.shape[1] + 1:step]
    cy = (yy * img[:, :xx.shape[1]]).sum()
    a, b = np.ogrid[0:m, 0:m]
    c, d, e = np.ogrid[0:2, 0:step, -1:2]
    return cy, xx - yy, np.mgrid[img.shape[0]:-1:-step], a * 10 + b, c + d * e


@unpython.gpu
@unpython.type(F2, ('float64', F1, F1))
def positional_nones(items):
    """NumPy's parameters given by position with None for the defaults between (Pythran's
    cronbach: `a.var(1, None, None, 1)` is `a.var(1, ddof=1)`)."""
    itemvars = items.var(1, None, None, 1)
    tscores = items.sum(0)
    n = len(items)
    alpha = n / (n - 1) * (1 - itemvars.sum() / tscores.var(None, None, None, 1))
    return alpha, np.sum(items, 1, None), np.std(items, None, None, None, 0, True)[0]


@unpython.gpu
@unpython.type('int64', 'float64', 'float64')
def lists_as_arrays(n, x):
    """A list of values written out where NumPy takes an array (np.max([a, b, c]))."""
    return np.sum([1, n]) + np.max([abs(x), 2.0 * x, x - 1]) + np.mean([x, n])


@unpython.gpu
@unpython.type('int64', 'ndarray[int64, 1]')
def collatz_steps(n_max):
    """`a[mask] = values` of one value per selected element (Pythran's collatz)."""
    n = np.arange(1, n_max + 1)
    steps = np.zeros(n_max, dtype=np.int64)
    for _ in range(100):
        indices = n != 1
        x = n[indices]
        if x.shape[0] == 0:
            break
        n[indices] = np.where(x & 1, 3 * x + 1, x // 2)
        steps[indices] += 1
    return steps


@unpython.gpu
@unpython.type(F1, F1, F1)
def selected_stores(a, v):
    """`a[mask] = values`: one value per selected element, or one value for all; NumPy's
    ValueError where the lengths differ."""
    out = a.copy()
    out[out > 0.5] = v
    return out


@unpython.gpu
@unpython.type(F2, 'ndarray[int64, 1]', F1, ('float64', F2, F2))
def row_masks(dat, labels, w):
    """A 1-D mask of a matrix's rows (Pythran's matrix_class_distance: dat[labels == i]):
    read, the selected rows; written, every selected row."""
    first = dat[labels == labels[0]]
    out = dat.copy()
    out[w > 0.5] = 0.0
    out[w < 0.2] = dat[0]
    return first.sum(), first, out


@unpython.gpu
@unpython.type('ndarray[float64, 3]', 'ndarray[int64, 1]', 'int64', ('float64', F1, F2))
def masked_rows_indexed(a, labels, j):
    """A mask of the leading axis then other indices (k-means: A[labels == i, j]): NumPy's
    selected rows, each indexed so (a[mask][:, j])"""
    col = a[labels == 1, 0, j]
    return np.mean(a[labels == 0, 1, 0]), col, a[labels == 2, 1:, j] * 2.0


@unpython.gpu
@unpython.type(F2, 'int64', (F1, F2, 'ndarray[int64, 1]'))
def triangle_indices(d, k):
    """np.triu_indices & co (distance matrices: d[np.triu_indices(n, 1)]): the triangle's rows
    and columns in C order, as NumPy gives them."""
    upper = d[np.triu_indices(d.shape[0], k, d.shape[1])]
    zeroed = d.copy()
    zeroed[np.tril_indices_from(zeroed, k=k)] = 0.0
    i, j = np.triu_indices(d.shape[1] + 1)
    u, v = np.tril_indices(3, -k)
    return upper, zeroed, np.concatenate((i * 1000 + j, u * 7 + v))


@unpython.gpu
@unpython.type(F1, 'float64', F1)
def simplex_projection(v, z):
    """The result of a mask indexed again (Pythran's projection_simplex: ind[cond][-1])."""
    u = np.sort(v)[::-1]
    cssv = np.cumsum(u) - z
    ind = np.arange(v.shape[0]) + 1
    cond = u - cssv / ind > 0
    rho = ind[cond][-1]
    theta = cssv[cond][-1] / float(rho)
    return np.maximum(v - theta, 0)


@unpython.gpu
@unpython.type('ndarray[float64, 3]', 'ndarray[int64, 1]', F1)
def indexed_again(a, idx):
    """a[idx][j] is (a[idx])[j], not a[idx, j]; a[i][idx][j] and a[idx, j][k] likewise."""
    return a[idx][0][1] + a[1][idx][0] + a[idx, 0][1] + a[a[:, 0, 0] > 0.3][0, 1]
