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
def test_near_misses_run_their_loops(matmul_loops_kernels, args):
    for name in ("columns_reversed", "from_row_one", "starts_at_one", "scaled_store"):
        matmul_loops_kernels.check(name, *args)
    matmul_loops_kernels.check("integers", *(x.astype(np.int64) for x in args))


@pytest.mark.parametrize("shape", [(40, 50), (64, 33)])
def test_result_larger_than_the_product(matmul_loops_kernels, shape):
    """A result of another shape than the product's: the BLAS declines it
    (unpy::blas_matmul), the loops write their part of it."""
    rng = np.random.default_rng(3)
    a = rng.integers(-9, 9, shape).astype(np.float64)
    b = rng.integers(-9, 9, shape[::-1]).astype(np.float64)
    matmul_loops_kernels.check("dot_order", a, b, np.zeros((shape[0] + 3, shape[0] + 1)))


BLAS = {"dot_order": "c = a @ b", "dot_order_f32": "c = a @ b",
        "chained": "tmp = a @ b; d = tmp @ c",
        "gram": "g = view(x, offsets=(0, 0), dims=(1:x.shape[1]:1, 0:x.shape[0]:1)) @ x",
        "times_transposed": "c = a @ view(b, offsets=(0, 0), dims=(1:b.shape[1]:1, "
                            "0:b.shape[0]:1))",
        "both_transposed": "c = view(a, offsets=(0, 0), dims=(1:a.shape[1]:1, "
                           "0:a.shape[0]:1)) @ view(b, offsets=(0, 0), dims=(1:b.shape[1]:1, "
                           "0:b.shape[0]:1))"}


def test_which_nests_call_the_blas():
    """Under --fastmath the five forms get their product, the near misses none; the default
    build (results equal to the interpreter's bit for bit) gives none to any."""
    path = diffcheck.KERNELS / "matmul_loops.py"
    module = compile_to_ir(str(path), path.read_text())
    for fn in module.functions:
        for fastmath in (True, False):
            nests = [s for s in optimise_for_cpu(fn, "unproved", fastmath).body
                     if isinstance(s, ir.For) and s.parallel]
            products = [" = ".join([ir.format_expr(s.blas[0]),
                                    " @ ".join(ir.format_expr(x) for x in s.blas[1:])])
                        for s in nests if s.blas]
            assert "; ".join(products) == (BLAS.get(fn.name, "") if fastmath else ""), \
                (fn.name, fastmath)
