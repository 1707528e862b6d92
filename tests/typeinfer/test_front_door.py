"""NumPy code as users write it (issue 18, tests/corpus): what the frontend and typeinfer make of
loops over arrays, np.round, np.roll/np.diff, np.sort, np.bincount, np.add.at and assignment
through index arrays, and the compile errors (file:line:col, the construct, what to write) of
the forms still refused. The results are compared with the interpreter in
tests/kernels/numpy_exprs.py (tests/differential/test_numpy.py)."""
import pytest

from unpy import ir
from unpy.errors import CompileError
from unpy.ir import Array, Scalar

import irtools

# Errors' lines are counted from the `def` line (1) of the bodies below.
DEF_LINE = irtools.HEADER.count("\n") + 2


def statements(fn):
    """Every statement of `fn`, nested ones too, in order."""
    out = []

    def visit(body):
        for s in body:
            out.append(s)
            for part in ("body", "orelse"):
                visit(getattr(s, part, []) or [])
    visit(fn.body)
    return out


def test_enumerate_and_zip_bind_each_item_in_one_index_loop():
    body = irtools.lowered("""
        @unpython.type('ndarray[float64, 1]', 'ndarray[float64, 2]', 'float64')
        def f(x, a):
            s = 0.0
            for i, v in enumerate(x, 1):
                s += i * v
            for v, w, k in zip(x, a[0], range(9, 0, -2)):
                s += v * w * k
            return s
        """)["f"].body
    first, second = body[1], body[-2]
    assert isinstance(first, ir.For) and ir.format_expr(first.stop) == "x.shape[0]"
    assert [ir.format_expr(s.value) for s in first.body[:2]] == [f"({first.var} + 1)",
                                                                 f"x[{first.var}]"]
    # a[0] is bound once before its loop; the range's length joins the arrays' in a min()
    assert isinstance(second, ir.For) and ir.format_expr(second.stop).startswith(
        "min(x.shape[0], __seq")
    assert [s.target.id for s in second.body[:3]] == ["v", "w", "k"]


def test_round_follows_numpys_steps_and_keeps_float32():
    fn = irtools.typed_function("""
        @unpython.type('ndarray[float32, 1]', 'float', 'ndarray[float32, 1]')
        def f(x, y):
            return np.round(x, 2) + np.float32(np.around(y))
        """)
    assert fn.return_type == Array("float32", 1)
    nest = [s for s in statements(fn) if isinstance(s, ir.Assign) and "np.rint" in
            ir.format_expr(s.value)]
    assert len(nest) == 1 and nest[0].value.type == Scalar("float32")
    i = nest[0].target.indices[0].id
    assert ir.format_expr(nest[0].value) == (f"((np.rint((x[{i}] * float32(100.0))) / "
                                             f"float32(100.0)) + cast:float32(np.rint(y)))")


def test_roll_diff_sort_bincount_types():
    fn = irtools.typed_function("""
        @unpython.type('ndarray[uint8, 2]', 'ndarray[int32, 1]', 'ndarray[bool, 1]',
                       ('ndarray[uint8, 2]', 'ndarray[uint8, 2]', 'ndarray[bool, 1]',
                        'ndarray[int64, 1]', 'ndarray[int64, 1]', 'ndarray[int32, 1]'))
        def f(img, x, m):
            return (np.roll(img, -1, axis=0), np.diff(img, n=2, axis=0), np.diff(m),
                    np.argsort(x), np.bincount(x, minlength=4), np.sort(x))
        """)
    assert [i.type for i in fn.body[-1].value.items] == [
        Array("uint8", 2), Array("uint8", 2), Array("bool", 1), Array("int64", 1),
        Array("int64", 1), Array("int32", 1)]


def test_assignment_through_index_arrays_is_a_sequential_loop_over_a_copy():
    fn = irtools.typed_function("""
        @unpython.type('ndarray[float64, 1]', 'ndarray[int64, 1]', None)
        def f(a, idx):
            a[idx] += 1.0
            np.add.at(a, idx, 2.0)
        """)
    writes_a = [s for s in statements(fn) if isinstance(s, ir.For) and any(
        isinstance(x, ir.Assign) and isinstance(x.target, ir.Subscript) and
        x.target.array.id == "a" for x in s.body)]
    assert len(writes_a) == 2 and not any(s.parallel for s in writes_a)
    # a[idx] += 1 reads a[idx] whole first (NumPy's buffered update: a repeated index adds
    # once); np.add.at updates the elements in turn (every value added)
    allocations = [s for s in statements(fn) if isinstance(s, ir.Assign)
                   and isinstance(s.value, ir.AllocArray)]
    assert len(allocations) == 1


def test_array_literal_dtype():
    fn = irtools.typed_function("""
        @unpython.type('float32', 'int64', ('ndarray[float64, 1]', 'ndarray[int64, 2]',
                                            'ndarray[float32, 1]'))
        def f(x, k):
            return (np.array([x, k, 1]), np.array([[k, 2], [3, k]]),
                    np.asarray((x, 2.0), dtype=np.float32))
        """)
    assert [i.type for i in fn.body[-1].value.items] == [
        Array("float64", 1), Array("int64", 2), Array("float32", 1)]


REFUSED = {
    "zip into a nested target": ("""
        @unpython.type('ndarray[float64, 1]', 'float64')
        def f(x):
            s = 0.0
            for i, (a, (b, c)) in enumerate(zip(x, zip(x, x))):
                s += a
            return s
        """, 3, 9, "unpacks each item into plain names"),
    "zip of a prange": ("""
        @unpython.type('ndarray[float64, 1]', 'float64')
        def f(x):
            s = 0.0
            for a, k in zip(x, prange(3)):
                s += a
            return s
        """, 3, 24, "index the arrays with a range loop"),
    "a loop over a list of items unpacked twice": ("""
        @unpython.type('float64', 'float64')
        def f(x):
            s = 0.0
            for w, (dx, dy) in [(x, (0, 1)), (2.0, (1, 0))]:
                s += w * dx
            return s
        """, 3, 24, "unpacks items written out with one value per name into plain names"),
    "a loop over a shape": ("""
        @unpython.type('ndarray[float64, 2]', 'int64')
        def f(a):
            s = 0
            for d in a.shape:
                s += d
            return s
        """, 3, 14, "unpack it (m, n = a.shape)"),
    "a loop over a scalar expression": ("""
        @unpython.type('float64', 'float64')
        def f(x):
            s = 0.0
            for v in x * 2.0:
                s += v
            return s
        """, 3, 14, "iterates over ranges and arrays; this is float64"),
    "a loop that rebinds its array": ("""
        @unpython.type('ndarray[float64, 1]', 'float64')
        def f(x):
            s = 0.0
            for i, v in enumerate(x):
                x = x * 2.0
            return s
        """, 4, 9, "the array it iterates over"),
    "round to computed decimals": ("""
        @unpython.type('ndarray[float64, 1]', 'int64', 'ndarray[float64, 1]')
        def f(x, d):
            return np.round(x, d)
        """, 2, 24, "an integer literal"),
    "round of complex": ("""
        @unpython.type('ndarray[complex128, 1]', 'ndarray[complex128, 1]')
        def f(z):
            return np.round(z)
        """, 2, 12, "round z.real and z.imag"),
    "roll by a tuple": ("""
        @unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]')
        def f(a):
            return np.roll(a, (1, 2), axis=(0, 1))
        """, 2, 12, "roll one axis at a time"),
    "diff with prepend": ("""
        @unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]')
        def f(a):
            return np.diff(a, prepend=0.0)
        """, 2, 31, "does not take the keyword 'prepend'"),
    "sort along the first axis": ("""
        @unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]')
        def f(a):
            return np.sort(a, axis=0)
        """, 2, 28, "np.sort(a.T).T"),
    "argsort of the flattened array": ("""
        @unpython.type('ndarray[float64, 2]', 'ndarray[int64, 1]')
        def f(a):
            return np.argsort(a, axis=None)
        """, 2, 31, "sort a.ravel()"),
    "sort of a computed array in place": ("""
        @unpython.type('ndarray[float64, 1]', None)
        def f(a):
            (a * 2.0).sort()
        """, 2, 5, "write np.sort(...)"),
    "bincount of floats": ("""
        @unpython.type('ndarray[float64, 1]', 'ndarray[int64, 1]')
        def f(a):
            return np.bincount(a)
        """, 2, 24, "non-negative integers"),
    "add.at casting floats into ints": ("""
        @unpython.type('ndarray[int64, 1]', 'ndarray[int64, 1]', None)
        def f(a, idx):
            np.add.at(a, idx, 0.5)
        """, 2, 5, "casting rule 'same_kind'"),
    "array of arrays": ("""
        @unpython.type('ndarray[float64, 1]', 'ndarray[float64, 2]')
        def f(a):
            return np.array([a, a])
        """, 2, 22, "np.concatenate, np.stack or np.vstack"),
    "np.interp with a period": ("""
        @unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]')
        def f(a):
            return np.interp(a, a, a, period=2.0)
        """, 2, 12, "reduce x modulo the period"),
    "np.nanmean of complex values": ("""
        @unpython.type('ndarray[complex128, 1]', 'complex128')
        def f(z):
            return np.nanmean(z)
        """, 2, 12, "np.mean(z[~np.isnan(z)])"),
    "np.nanmax with out=": ("""
        @unpython.type('ndarray[float64, 1]', 'float64')
        def f(a):
            return np.nanmax(a, out=a)
        """, 2, 29, "does not take the keyword 'out'"),
    "np.quantile with out=": ("""
        @unpython.type('ndarray[float64, 2]', 'ndarray[float64, 1]')
        def f(a):
            return np.quantile(a, 0.5, axis=0, out=a[0])
        """, 2, 44, "not out=, overwrite_input= or weights="),
    "np.percentile with another method": ("""
        @unpython.type('ndarray[float64, 1]', 'float64')
        def f(a):
            return np.percentile(a, 50, method='nearest')
        """, 2, 40, "supports NumPy's default method='linear'"),
    "np.quantile of an array of q": ("""
        @unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]')
        def f(a):
            return np.quantile(a, a)
        """, 2, 27, "call np.quantile() once for each"),
    "np.convolve of a matrix": ("""
        @unpython.type('ndarray[float64, 2]', 'ndarray[float64, 1]', 'ndarray[float64, 1]')
        def f(a, v):
            return np.convolve(a, v)
        """, 2, 24, "convolve each row in a loop"),
    "np.convolve in another mode": ("""
        @unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]', 'ndarray[float64, 1]')
        def f(a, v):
            return np.convolve(a, v, mode='circular')
        """, 2, 35, "must be 'full', 'same' or 'valid'"),
    "np.unique with counts": ("""
        @unpython.type('ndarray[int64, 1]', 'ndarray[int64, 1]')
        def f(a):
            return np.unique(a, return_counts=True)
        """, 2, 39, "write np.bincount(a)"),
    "np.einsum with an ellipsis": ("""
        @unpython.type('ndarray[float64, 2]', 'ndarray[float64, 1]')
        def f(a):
            return np.einsum('...i->...', a)
        """, 2, 12, "name each dimension with a letter"),
    "np.einsum of subscripts not written out": ("""
        @unpython.type('ndarray[float64, 2]', 'float64')
        def f(a):
            return np.einsum(a, [0, 0])
        """, 2, 12, "its subscripts as a string literal"),
    "np.einsum of too few operands": ("""
        @unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]')
        def f(a):
            return np.einsum('ij,jk->ik', a)
        """, 2, 12, "name 2 operand(s), and 1 are given"),
    "np.einsum of a wrong number of dimensions": ("""
        @unpython.type('ndarray[float64, 2]', 'ndarray[float64, 1]')
        def f(a):
            return np.einsum('ijk->i', a)
        """, 2, 12, "operand 0 has 2 dimension(s)"),
    "np.einsum with an output letter of no operand": ("""
        @unpython.type('ndarray[float64, 2]', 'ndarray[float64, 1]')
        def f(a):
            return np.einsum('ij->k', a)
        """, 2, 12, "the output's 'k' is no operand's"),
    "np.einsum with an optimize path": ("""
        @unpython.type('ndarray[float64, 2]', 'float64')
        def f(a):
            return np.einsum('ii', a, optimize=a)
        """, 2, 40, "optimize=False, True, 'greedy' or 'optimal'"),
    "np.einsum of complex values": ("""
        @unpython.type('ndarray[complex128, 1]', 'complex128')
        def f(z):
            return np.einsum('i,i', z, z)
        """, 2, 29, "needs real numbers"),
    "np.nanmedian along an axis": ("""
        @unpython.type('ndarray[float64, 2]', 'ndarray[float64, 1]')
        def f(a):
            return np.nanmedian(a, axis=0)
        """, 2, 12, "take the middle of the numbers"),
    "np.nanpercentile along an axis": ("""
        @unpython.type('ndarray[float64, 2]', 'ndarray[float64, 1]')
        def f(a):
            return np.nanpercentile(a, 50, axis=0)
        """, 2, 41, "for rows, sort them (np.sort(a)) and interpolate"),
    "np.nanmedian of complex values": ("""
        @unpython.type('ndarray[complex128, 1]', 'complex128')
        def f(z):
            return np.nanmedian(z)
        """, 2, 25, "needs real numbers"),
    "the length of a computed array in a conditional expression": ("""
        @unpython.type('ndarray[float64, 1]', 'int64', 'int64')
        def f(a, n):
            return len(np.unique(a)) if n > 0 else 0
        """, 2, 16, "put the array in a variable first"),
    "a 2-D index array of a 2-D array's expression": ("""
        @unpython.type('ndarray[float64, 2]', 'ndarray[int64, 2]', 'ndarray[float64, 3]')
        def f(lut, img):
            return (lut * 2.0)[img]
        """, 2, 12, "bind the arrays to names first"),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_refused_with_a_precise_error(case):
    body, line, col, text = REFUSED[case]
    with pytest.raises(CompileError) as caught:
        irtools.typed(body)
    error = caught.value
    assert text in error.message
    assert (error.line - DEF_LINE + 1, error.col + 1) == (line, col), error.format()


def test_the_stages_of_a_reduction_over_axes_run_in_parallel():
    """`np.sum(a, axis=(1, 2, 3))` reduces one axis after another, each stage a new array read
    by the next stage's sequential sum: the stages are filled before the statement by prange
    nests as the statement's own (they ran on one thread, as loops inside an element); fused
    with it, one prange over the kept axis."""
    fn = irtools.typed_function("""
        @unpython.type('ndarray[float64, 4]', 'ndarray[float64, 1]')
        def f(a):
            return np.sum(a, axis=(1, 2, 3))
        """)
    top = [s for s in fn.body if isinstance(s, ir.For)]
    assert top and all(s.parallel for s in top)
    reduced = [x for x in statements(fn) if isinstance(x, ir.Assign)
               and isinstance(x.target, ir.Subscript)]
    assert len(reduced) == 3            # each stage's element, inside the parallel nest(s)
