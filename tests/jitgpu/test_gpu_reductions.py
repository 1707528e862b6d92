"""Reductions of @gpu nests on the device (tree reduction per work-group, partial results combined
with the initial value on the host) against the interpreter: every operator on integers
(bit-identical), float sums and extrema (sums within reordering rounding), non-zero initial
values, several reductions in one nest, 2 and 3 collapsed levels, sizes around the work-group
size."""
import numpy as np
import pytest

RNG = np.random.default_rng(99)

INT_REDUCTIONS = ["red_sum_i64", "red_sub_i64", "red_prod_i64", "red_min_i64", "red_max_i64",
                  "red_or_i64", "red_and_i64", "red_xor_i64"]
# Sizes below, at and above one work-group (256 work-items), and several groups.
SIZES = [1, 7, 255, 256, 257, 1000]


def int_values(func, n):
    if func == "red_prod_i64":
        return RNG.choice(np.array([-1, 1, 1, 1, 3, -2], np.int64), n)   # wraps at large n
    if func in ("red_and_i64",):
        return (~RNG.integers(0, 2 ** 20, n) | 0x5).astype(np.int64)
    return RNG.integers(-2 ** 40, 2 ** 40, n).astype(np.int64)


@pytest.mark.parametrize("func", INT_REDUCTIONS)
@pytest.mark.parametrize("n", SIZES)
def test_int64_reductions(gpu, func, n):
    x = int_values(func, n)
    for init in (0, 1, -12345):
        gpu.check(func, x, np.int64(init))


@pytest.mark.parametrize("func", INT_REDUCTIONS)
def test_int64_reduction_edges(gpu, func):
    x = np.array([2 ** 63 - 1, -2 ** 63, 0, -1, 1, 2 ** 62], np.int64)
    gpu.check(func, x[::-1], np.int64(-2 ** 63))
    gpu.check(func, x[::2], np.int64(2 ** 63 - 1))


def test_int32_sum_wraps(gpu):
    x = np.full(1000, 2 ** 30, np.int32)
    gpu.check("red_sum_i32", x, np.int32(5))


def test_uint8_max(gpu):
    x = RNG.integers(0, 200, 600).astype(np.uint8)
    gpu.check("red_max_u8", x, np.uint8(3))
    gpu.check("red_max_u8", x, np.uint8(250))


@pytest.mark.parametrize("n", SIZES)
def test_float_sums(gpu, n):
    x = RNG.uniform(-1, 1, n)
    gpu.check("red_sum_f64", x, 2.5, rtol=1e-12)
    x32 = x.astype(np.float32)
    gpu.check("red_sum_f32", x32[::-1], np.float32(-3.0), rtol=1e-4)


def test_float_extrema(gpu):
    x = RNG.uniform(-100, 100, 777)
    gpu.check("red_min_f64", x, 0.0)
    gpu.check("red_min_f64", x, -1000.0)
    gpu.check("red_max_f32", x.astype(np.float32)[::3], np.float32(0.5))
    gpu.check("red_max_f32", x.astype(np.float32), np.float32(np.inf))


def test_several_reductions_in_one_nest(gpu):
    gpu.check("red_several", RNG.uniform(-1, 1, 999), rtol=1e-12)


def test_bool_or_reduction(gpu):
    x = RNG.uniform(0, 1, 300)
    gpu.check("red_any_negative", x)
    x[123] = -1.0
    gpu.check("red_any_negative", x)


def test_count_with_stores(gpu):
    gpu.check("threshold_count", RNG.uniform(-1, 1, 513), 0.0, np.zeros(513, bool))


@pytest.mark.parametrize("shape", [(1, 1), (17, 33), (40, 3), (3, 300)])
def test_two_level_reduction(gpu, shape):
    a = RNG.uniform(-1, 1, shape)
    gpu.check("red_sum_2d", a, rtol=1e-12)
    gpu.check("red_sum_2d", np.asfortranarray(a)[::-1], rtol=1e-12)


@pytest.mark.parametrize("shape", [(2, 3, 4), (9, 17, 5), (1, 1, 40)])
def test_three_level_reduction(gpu, shape):
    a = RNG.integers(-1000, 1000, shape).astype(np.int64)
    gpu.check("red_sum_3d", a)
    gpu.check("red_sum_3d", a.transpose(2, 0, 1))
