"""Matrix products written as loops under --fastmath (unpy/loopopt/matmul_loops.py): the BLAS
where the nest is one of the forms, the loops otherwise, interpreter vs compiled. The operands
hold small integers, so that every order of the additions (the BLAS's, with FMA) gives the
interpreter's result exactly; sizes on both sides of the BLAS's threshold (32^3
multiplications), every layout (a strided, reversed or transposed operand or result runs the
loops where no BLAS takes it)."""
import diffcheck
from npstrategies import matrices
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from unpy import ir
from unpy.cli import main
from unpy.loopopt import optimise_for_cpu
from unpy.pipeline import compile_to_ir

SETTINGS = settings(max_examples=25, deadline=None)
sides = st.one_of(st.integers(0, 9), st.integers(30, 70))


@st.composite
def operands(draw, a_shape, b_shape, out_shape, dtype=np.float64):
    m, n, p = draw(sides), draw(sides), draw(sides)
    dims = {"m": m, "n": n, "p": p}
    return tuple(draw(matrices(tuple(dims[d] for d in shape), dtype, ints=True)).astype(dtype)
                 for shape in (a_shape, b_shape, out_shape))


@SETTINGS
@given(operands("mp", "pn", "mn"))
def test_dot_order(matmul_loops_kernels, args):
    matmul_loops_kernels.check("dot_order", *args)


@SETTINGS
@given(operands("mp", "pn", "mn", np.float32))
def test_dot_order_float32(matmul_loops_kernels, args):
    matmul_loops_kernels.check("dot_order_f32", *args)


@SETTINGS
@given(operands("pm", "pn", "mm"))
def test_gram_matrix_reads_the_transpose(matmul_loops_kernels, args):
    x, _, g = args
    matmul_loops_kernels.check("gram", x, g)


@SETTINGS
@given(operands("mp", "np", "mn"))
def test_second_operand_transposed(matmul_loops_kernels, args):
    matmul_loops_kernels.check("times_transposed", *args)


@SETTINGS
@given(operands("pm", "np", "mn"))
def test_both_operands_transposed(matmul_loops_kernels, args):
    matmul_loops_kernels.check("both_transposed", *args)


@SETTINGS
@given(operands("mp", "pn", "mn"), operands("nn", "nn", "mn"))
def test_chained_products(matmul_loops_kernels, first, second):
    """Two nests, each a product, the second reading the first's result; both take the names
    s, i, j and k (assigned in each prange's iterations, so neither reads the other's)."""
    a, b, _ = first
    c, _, d = second
    if b.shape[1] == c.shape[0] and d.shape[1] == c.shape[1] and d.shape[0] == a.shape[0]:
        matmul_loops_kernels.check("chained", a, b, c, d)
    matmul_loops_kernels.check("chained", a, b, np.ones((b.shape[1], 5)),
                               np.zeros((a.shape[0], 5)))


@SETTINGS
@given(operands("mp", "pn", "mn"))
def test_scaled_store(matmul_loops_kernels, args):
    matmul_loops_kernels.check("scaled_store", *args)


@st.composite
def centred(draw, dtype=np.float64):
    """(data, its columns' centres, the result): n x m, m, m x m in any layout (a vector a row
    of a matrix: a step where that is strided or transposed), small integers; n - 1 zero or a
    power of two, for `s / (n - 1)` (-ffast-math multiplies by the reciprocal: exact then)."""
    m, n = draw(sides), draw(st.sampled_from([1, 2, 3, 5, 9, 17, 33, 65]))
    data = draw(matrices((n, m), dtype, ints=True)).astype(dtype)
    mean = draw(matrices((1, m), dtype, ints=True))[0].astype(dtype)
    return data, mean, draw(matrices((m, m), dtype, ints=True)).astype(dtype)


@SETTINGS
@given(centred())
def test_covariance_triangle_mirrored(matmul_loops_kernels, args):
    matmul_loops_kernels.check("covariance", *args)


@SETTINGS
@given(centred())
def test_covariance_full(matmul_loops_kernels, args):
    matmul_loops_kernels.check("covariance_full", *args)


@SETTINGS
@given(operands("mp", "pn", "mn", np.float32), st.data())
def test_centred_and_plain_operands(matmul_loops_kernels, args, data):
    x, y, c = args
    mx = data.draw(matrices((1, x.shape[0]), np.float32, ints=True))[0].astype(np.float32)
    matmul_loops_kernels.check("centred_cross", x, mx, y, c, np.float32(3.0))


@SETTINGS
@given(operands("pm", "pn", "mn"), st.data())
def test_two_centred_operands_triangle(matmul_loops_kernels, args, data):
    x, y, c = args
    mx, my = (data.draw(matrices((1, d), np.float64, ints=True))[0]
              for d in (x.shape[1], y.shape[1]))
    matmul_loops_kernels.check("centred_both", x, mx, y, my, c)


@pytest.mark.parametrize("name", ["covariance", "covariance_full"])
def test_covariance_of_strided_views(matmul_loops_kernels, name):
    """Views with steps as the data, the centres and the result: the centred copies read
    them, the nest writes the view."""
    rng = np.random.default_rng(5)
    base = rng.integers(-50, 50, (129, 200)).astype(np.float64)
    data, mean = base[::2, 2::4], base[1::2, 3][:50]        # 65 x 50, a column's part
    out = np.zeros((2 * data.shape[1], 3 * data.shape[1]))
    matmul_loops_kernels.check(name, data, mean, out[::2, 1::3])
    matmul_loops_kernels.check(name, data[::-1].T.copy().T, mean[::-1], out[::2, ::3].T)


def test_centres_shorter_than_the_data(matmul_loops_kernels):
    """A vector one short: the BLAS declines, the loops raise IndexError as Python does."""
    data = np.ones((65, 40))
    matmul_loops_kernels.check("covariance", data, np.zeros(39), np.zeros((40, 40)))
    matmul_loops_kernels.check("covariance", data, np.zeros(41), np.zeros((40, 40)))


@SETTINGS
@given(operands("mp", "pn", "mn"))
def test_near_misses_run_their_loops(matmul_loops_kernels, args):
    for name in ("columns_reversed", "from_row_one", "starts_at_one"):
        matmul_loops_kernels.check(name, *args)
    matmul_loops_kernels.check("integers", *(x.astype(np.int64) for x in args))


@SETTINGS
@given(centred())
def test_centred_near_misses_run_their_loops(matmul_loops_kernels, args):
    """Centres read with k or with the other factor's variable, a centre less the element, a
    float32 operand less a float64 centre."""
    data, mean, cov = args
    matmul_loops_kernels.check("centred_by_k", data, np.resize(mean, data.shape[0]), cov)
    for name in ("centred_by_the_other_loop", "centre_first"):
        matmul_loops_kernels.check(name, data, mean, cov)
    matmul_loops_kernels.check("centred_by_wider", data.astype(np.float32), mean, cov)


@pytest.mark.parametrize("shape", [(40, 50), (64, 33)])
def test_result_larger_than_the_product(matmul_loops_kernels, shape):
    """A result of another shape than the product's: the BLAS declines it
    (unpy::blas_matmul), the loops write their part of it."""
    rng = np.random.default_rng(3)
    a = rng.integers(-9, 9, shape).astype(np.float64)
    b = rng.integers(-9, 9, shape[::-1]).astype(np.float64)
    matmul_loops_kernels.check("dot_order", a, b, np.zeros((shape[0] + 3, shape[0] + 1)))


TRANSPOSED = "view({0}, offsets=(0, 0), dims=(1:{0}.shape[1]:1, 0:{0}.shape[0]:1))"
BLAS = {"dot_order": "c = a @ b", "dot_order_f32": "c = a @ b",
        "scaled_store": "unpy_product = a @ b",
        "covariance": f"unpy_product = ({TRANSPOSED.format('data')} - mean[:, None]) @ "
                      "(data - mean)",
        "covariance_full": f"unpy_product = ({TRANSPOSED.format('data')} - mean[:, None]) @ "
                           "(data - mean)",
        "centred_cross": "unpy_product = (x - mx[:, None]) @ y",
        "centred_both": f"unpy_product = ({TRANSPOSED.format('x')} - mx[:, None]) @ (y - my)",
        "chained": "tmp = a @ b; d = tmp @ c",
        "gram": "g = view(x, offsets=(0, 0), dims=(1:x.shape[1]:1, 0:x.shape[0]:1)) @ x",
        "times_transposed": "c = a @ view(b, offsets=(0, 0), dims=(1:b.shape[1]:1, "
                            "0:b.shape[0]:1))",
        "both_transposed": "c = view(a, offsets=(0, 0), dims=(1:a.shape[1]:1, "
                           "0:a.shape[0]:1)) @ view(b, offsets=(0, 0), dims=(1:b.shape[1]:1, "
                           "0:b.shape[0]:1))"}


def test_which_nests_call_the_blas():
    """Under --fastmath the forms get their product, the near misses none; the default
    build (results equal to the interpreter's bit for bit) gives none to any."""
    path = diffcheck.KERNELS / "matmul_loops.py"
    module = compile_to_ir(str(path), path.read_text())
    for fn in module.functions:
        for fastmath in (True, False):
            nests = [s for s in optimise_for_cpu(fn, "unproved", fastmath).body
                     if isinstance(s, ir.For) and s.parallel]
            products = [ir.format_blas(s) for s in nests if s.blas]
            assert "; ".join(products) == (BLAS.get(fn.name, "") if fastmath else ""), \
                (fn.name, fastmath)


def test_show_prints_the_centred_product(capsys):
    """`unpy show --fastmath` prints a covariance's BLAS call, its centring, and the nest that
    runs after it on the product."""
    assert main(["show", "--fastmath", str(diffcheck.KERNELS / "matmul_loops.py")]) == 0
    shown = capsys.readouterr().out
    assert (f"# the C++ path: {BLAS['covariance']} by a BLAS where (m == data.shape[1]) and "
            "(n == data.shape[0]), then the nest after these loops, else:") in shown
    after = shown[shown.index("def covariance("):].split("# the C++ path's nest after the BLAS:")
    assert after[1].splitlines()[1:6] == [
        "        for i in prange(0, m, 1):",
        "            for j in range(i, m, 1):",
        "                s = unpy_product[i, j]",
        "                cov[i, j] = (s / float64((n - 1)))",
        "                cov[j, i] = cov[i, j]"]
