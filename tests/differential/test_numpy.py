"""NumPy inside compiled functions on the OpenMP path, interpreter vs compiled
(tests/kernels/numpy_exprs.py): one case per construct, and hypothesis over shapes and
layouts (views with steps, negative strides, Fortran order, transposes, empty arrays)."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from npstrategies import arrays

SETTINGS = settings(max_examples=25, deadline=None)
RNG = np.random.default_rng(7)
TOL = 1e-12


def rand(*shape, dtype=np.float64):
    if np.dtype(dtype).kind == "f":
        return (RNG.random(shape) - 0.3).astype(dtype)
    return RNG.integers(-9, 9, shape).astype(dtype)


# name -> arguments; every function of the module has at least one case.
CASES = {
    "axpy": lambda: (rand(7), rand(7), 2.0),
    "axpy mismatched": lambda: (rand(7), rand(3), 2.0),
    "ufuncs": lambda: (rand(6, 7), rand(6, 7)),
    "float32_stays": lambda: (rand(6, 7, dtype=np.float32), np.float32(1.5)),
    "int_division": lambda: (rand(4, 5, dtype=np.int32),),
    "compare_arrays": lambda: (rand(6, 7), rand(6, 7)),
    "where_clip": lambda: (rand(6, 7),),
    "outer_broadcast": lambda: (rand(7), rand(3)),
    "row_broadcast": lambda: (rand(6, 7), rand(7)),
    "row_broadcast mismatched": lambda: (rand(6, 7), rand(6)),
    "scalar_numpy_functions": lambda: (0.3, -2.0),
    "jacobi": lambda: (rand(6, 7), 3),
    "shifted_difference": lambda: (rand(9),),
    "overlapping_shift": lambda: (rand(9),),
    "column_view_of_a_view": lambda: (rand(6, 7),),
    "in_place": lambda: (rand(6, 7), rand(6, 7), 0.5),
    "add_transpose_in_place": lambda: (rand(5, 5),),
    "row_view": lambda: (rand(6, 7), 2),
    "row_view negative index": lambda: (rand(6, 7), -1),
    "row_view out of range": lambda: (rand(6, 7), 9),
    "strided_views": lambda: (rand(8, 9),),
    "transposed": lambda: (rand(6, 7),),
    "fill_slice": lambda: (rand(6, 7),),
    "masked": lambda: (rand(6, 7), rand(7)),
    "masked_pair": lambda: (rand(9), rand(9)),
    "mask_reads_target": lambda: (rand(9, dtype=np.int64), rand(9, dtype=np.int64)),
    "user_loop_with_numpy": lambda: (rand(6, 7),),
    "reductions": lambda: (rand(6, 7),),
    "reductions of nothing": lambda: (np.zeros((0, 3)),),
    "reductions with nan": lambda: (np.array([[1.0, np.nan], [2.0, 0.5]]),),
    "axis0": lambda: (rand(6, 7),),
    "axis1": lambda: (rand(6, 7),),
    "keepdims_softmax": lambda: (rand(6, 7),),
    "argmax_plus_argmin": lambda: (rand(9),),
    "argmax_plus_argmin ties and nan": lambda: (np.array([1.0, 3.0, 3.0, np.nan, -1.0]),),
    "argmax_rows": lambda: (rand(6, 7),),
    "any_all": lambda: (rand(9),),
    "int_sum": lambda: (rand(4, 5, dtype=np.int32),),
    "while_converges": lambda: (rand(9),),
    "matmul": lambda: (rand(6, 7), rand(7, 5)),
    "matmul not aligned": lambda: (rand(6, 7), rand(6, 5)),
    "matmul large enough for the BLAS": lambda: (rand(40, 50), rand(50, 30)),
    "matmul BLAS of views": lambda: (rand(80, 50)[::2], rand(30, 50).T),
    "gemv large enough for the BLAS": lambda: (rand(60, 300), rand(300), rand(60)),
    "matmul32": lambda: (rand(50, 40, dtype=np.float32), rand(40, 60, dtype=np.float32)),
    "gemv": lambda: (rand(6, 7), rand(7), rand(6)),
    "dots": lambda: (rand(7), rand(7)),
    "outer": lambda: (rand(7), rand(7)),
    "allocations": lambda: (rand(6, 7),),
    "sequences": lambda: (7,),
    "sequences empty": lambda: (0,),
    "astype_reshape": lambda: (rand(6, 7),),
    "astype_reshape of a view": lambda: (rand(6, 14)[:, ::2],),
    "cumulative": lambda: (rand(9),),
    "copy_is_new": lambda: (rand(6, 7),),
    "fill_method": lambda: (rand(9), 2.0),
    "more_ufuncs": lambda: (np.array([0.5, -1.0, np.nan, 0.0, np.inf, -np.inf]),),
    "sum_of_math": lambda: (rand(9),),
    "math_ufuncs": lambda: (rand(9),),
    "one_sided_clips": lambda: (np.append(rand(8), np.nan), RNG.integers(-9, 9, 7).astype(
        np.int32), rand(6).astype(np.float32), np.append(rand(5), np.nan)),
    "inverse_hyperbolic float32": lambda: (rand(7).astype(np.float32), RNG.integers(-9, 9, 7).astype(
        np.int32), -0.75, rand(5)),
    "logical": lambda: (rand(9), rand(9)),
    "more_reductions": lambda: (rand(5, 5), rand(4)),
    "more_reductions not square": lambda: (rand(4, 6), rand(4)),
    "rebind_to_itself": lambda: (rand(5, 5), rand(5)),
    "column_slices_broadcast": lambda: (rand(6, 3),),
    "column_slices_broadcast of nothing": lambda: (rand(6, 0),),
    "overlap_through_views": lambda: (rand(5, 5), rand(9)),
    "stats": lambda: (rand(4, 3),),
    "use_stats": lambda: (rand(4, 3),),
    "cnd": lambda: (-0.7,),
    "damped_sum": lambda: (0.4, 4),
    "helpers_in_nest": lambda: (rand(9), rand(9) * 4 - 2, 0.3, np.zeros(9)),
    "large_temporary": lambda: (2 ** 20,),
    "reduction_in_scalar_operand": lambda: (rand(9), rand(9, dtype=np.int64)),
    "converted_reduction_operand": lambda: (rand(18), rand(9, dtype=np.int64)),
    "converted_reduction_operand mismatched": lambda: (rand(9), rand(9, dtype=np.int64)),
    "ellipsis_forms": lambda: (rand(4, 5), rand(4, 5), rand(6)),
    "ellipsis_forms mismatched": lambda: (rand(4, 5), rand(4, 3), rand(6)),
    "write_through_transpose": lambda: (rand(4, 5), rand(5, 4)),
    "write_through_transpose of a view": lambda: (rand(8, 5)[::2], rand(5, 4)),
    "write_through_transpose mismatched": lambda: (rand(4, 5), rand(4, 5)),
    "row_mask": lambda: (rand(3, 7), rand(7)),
    "row_mask mismatched": lambda: (rand(3, 7), rand(5)),
    "positional_dtypes": lambda: (9, rand(3, 5)),
    "shape_tuples": lambda: (rand(3, 4, 5),),
    "shape_tuples one row": lambda: (rand(1, 1, 2),),
    "rebind_other_type": lambda: (rand(3, 2, 2, 2) - 0.5, rand(8, 3)),
    "csr_gather": lambda: (np.array([0, 2, 2, 5, 6]), np.array([3, 0, 1, 3, 2, 0]), rand(6),
                           rand(4)),
    "gather_dims": lambda: (rand(4, 4), np.array([3, -1, 0, 2], np.int32)),
    "gather_dims out of range": lambda: (rand(4, 4), np.array([3, 9, 0, 2], np.int32)),
    "transpose_axes": lambda: (rand(3, 3, 4),),
    "joined f32": lambda: (rand(5, 3), rand(5).astype(np.float32)),
    "masked_values": lambda: (rand(40), rand(40), 6),
    "ufunc_forms": lambda: (rand(4, 4) + 1j * rand(4, 4), rand(4, 4)),
    "histogram_of": lambda: (rand(30), 4),
    "unpack_into_elements": lambda: (rand(30),),
    "int_ufunc_forms": lambda: (np.arange(-6, 6), np.array([3, -2, 5, 1, -7, 2, 9, -1, 4, 6, -3, 8])),
    "tuple_item_of_a_call": lambda: (rand(30),),
    "calls_in_an_array_expression": lambda: (rand(5, 7), np.zeros(1, np.int64)),
    "calls_in_an_array_expression of a view": lambda: (rand(6, 7)[::-2, 1::3],
                                                       np.zeros(1, np.int64)),
    "calls_in_an_array_expression empty": lambda: (rand(0, 3), np.zeros(1, np.int64)),
    "one_more_call": lambda: (np.zeros(1, np.int64),),
    "masked_values mismatched": lambda: (rand(40), rand(30), 6),
    "joined f32 mismatched": lambda: (rand(5, 3), rand(2).astype(np.float32)),
    # np.linalg, np.cov, np.histogram (issue 18)
    "linalg_in_a_prange": lambda: (well(4)[None] + 1j * rand(9, 4, 4), rand(4, 3) + 0j,
                                   well(5)[None] + rand(7, 5, 5)),
    "linalg_in_a_prange singular": lambda: (np.ones((3, 2, 2)) + 0j, rand(2, 2) + 0j,
                                            rand(2, 3, 3)),
    "linalg_in_a_prange empty": lambda: (np.zeros((0, 2, 2), np.complex128), rand(2, 1) + 0j,
                                         rand(0, 3, 3)),
    "linalg_solve": lambda: (well(6), rand(6)),
    "linalg_solve of views": lambda: (well(12)[::2, ::-2].T, rand(12)[::2]),
    "linalg_solve singular": lambda: (np.ones((4, 4)), rand(4)),
    "linalg_solve not square": lambda: (rand(3, 4), rand(3)),
    "linalg_solve mismatched": lambda: (well(4), rand(5)),
    "linalg_solve of nothing": lambda: (np.zeros((0, 0)), np.zeros(0)),
    "linalg_solve with nan": lambda: (np.array([[1.0, np.nan], [0.0, 1.0]]), rand(2)),
    "linalg_solve_matrix": lambda: (well(5), rand(5, 3)),
    "linalg_solve_matrix of views": lambda: (well(5).T, rand(3, 10).T[::2]),
    "linalg_inv": lambda: (rand(6, 6),),
    "linalg_inv of a view": lambda: (rand(10, 10)[1::2, ::-2],),
    "linalg_inv singular": lambda: (np.full((3, 3), -0.5),),
    "linalg_inv not square": lambda: (rand(3, 4),),
    "linalg_cholesky": lambda: (spd(6),),
    "linalg_cholesky of a view": lambda: (spd(6)[::-1, ::-1],),
    "linalg_cholesky not positive definite": lambda: (-spd(4),),
    "linalg_cholesky not square": lambda: (rand(3, 4),),
    "linalg_det": lambda: (rand(5, 5),),
    "linalg_det_ints": lambda: (RNG.integers(-4, 5, (4, 4)).astype(np.int32),),
    "linalg_det singular": lambda: (np.ones((3, 3)),),
    "linalg_det not square": lambda: (rand(2, 3),),
    "linalg_eigh": lambda: (spd(5),),
    "linalg_eigh of a view": lambda: (spd(8)[::2, ::2],),
    "linalg_eigh not square": lambda: (rand(2, 3),),
    "linalg32": lambda: (well(5).astype(np.float32), spd(5).astype(np.float32)),
    "covariance": lambda: (rand(20, 4),),
    "covariance32": lambda: (rand(20, 4, dtype=np.float32),),
    "covariance of a view": lambda: (rand(20, 8)[::2, 1::2],),
    "covariance one observation": lambda: (rand(1, 3),),
    "histogram_counts": lambda: (rand(1000) * 3, 17),
    "histogram_counts of a view": lambda: (rand(40)[::-3], 5),
    "histogram_counts of equal values": lambda: (np.full(5, 2.0), 4),
    "histogram_counts of nothing": lambda: (np.zeros(0), 3),
    "histogram_counts with nan": lambda: (np.array([0.1, np.nan]), 3),
    "histogram_counts with inf": lambda: (np.array([0.1, np.inf]), 3),
    "histogram_counts no bins": lambda: (rand(5), 0),
    "histogram_range": lambda: (rand(6, 7), 5),
    "histogram_range on the edges": lambda: (np.linspace(0.0, 0.5, 22).reshape(2, 11), 10),
    "histogram_range32": lambda: (rand(300, dtype=np.float32), 7),
    "histogram_range32 on the edges": lambda: (np.linspace(0, 0.5, 41).astype(np.float32), 7),
    "histogram_ints": lambda: (RNG.integers(-3, 3, 50), 4),
    "histogram_ints of equal values": lambda: (np.full(3, 7), 2),
    # broadcasting of lengths 1 found at run time
    "nbody_mass (N,1)": lambda: (rand(6, 1), rand(6, 3), rand(6, 6)),
    "nbody_mass equal": lambda: (rand(6, 3), rand(6, 3), rand(6, 6)),
    "nbody_mass mismatched": lambda: (rand(6, 2), rand(6, 3), rand(6, 6)),
    "bias_rows (1,n)": lambda: (rand(5, 4), rand(4, 3), rand(1, 3)),
    "bias_rows (m,n)": lambda: (rand(5, 4), rand(4, 3), rand(5, 3)),
    "bias_rows (1,1)": lambda: (rand(5, 4), rand(4, 3), rand(1, 1)),
    "bias_rows mismatched": lambda: (rand(5, 4), rand(4, 3), rand(2, 3)),
    "outer_of_parameters": lambda: (rand(5, 1), rand(1, 4)),
    "outer_of_parameters (1,n)*(m,1)": lambda: (rand(1, 4), rand(5, 1)),
    "outer_of_parameters empty": lambda: (rand(0, 1), rand(1, 4)),
    "outer_of_parameters mismatched": lambda: (rand(5, 2), rand(3, 4)),
    "in_place_stretch": lambda: (rand(4, 5), rand(1, 5), rand(4, 5)),
    "in_place_stretch (m,1)": lambda: (rand(4, 5), rand(4, 1), rand(4, 5)),
    "in_place_stretch into a length 1": lambda: (rand(1, 5), rand(3, 5), rand(3, 5)),
    "stretch_any": lambda: (rand(2, 1, 4), rand(3, 1), rand(1)),
    "stretch_any mismatched": lambda: (rand(2, 3, 4), rand(3, 2), rand(4)),
    "stretch_in_prange": lambda: (rand(4, 5), rand(2, 5)),
    "stretch_in_prange (1,1)": lambda: (rand(4, 5), rand(1, 1)),
    "stretch_in_prange mismatched": lambda: (rand(4, 5), rand(1, 3)),
    # dtypes as arguments (a parameter of type 'type[float64]')
    "linspace_of": lambda: (0.5, 2.0, 7, np.float64),
    "linspace_of float32": lambda: (0.5, 2.0, 7, np.float32),
    "linspace_of np.dtype": lambda: (-1.0, 1.0, 4, np.dtype("float32")),
    "linspace_of string": lambda: (-1.0, 1.0, 4, "float64"),
    "ramp_of": lambda: (5,),
    "ramp_of int32": lambda: (5, np.int32),
    "dtype_passed_on": lambda: (4, np.int32),
    "dtype_arguments": lambda: (0.25, 6),
    # complex np.linalg
    "linalg_complex": lambda: (cwell(5), crand(5)),
    "linalg_complex of views": lambda: (cwell(10)[::2, ::-2].T, crand(10)[1::2]),
    "linalg_complex singular": lambda: (np.ones((3, 3)) * (1 + 1j), crand(3)),
    "linalg_complex not square": lambda: (crand(3, 4), crand(3)),
    "linalg_complex64": lambda: (cwell(4).astype(np.complex64), crand(4, 2).astype(np.complex64)),
    "contour_sums": lambda: (2, crand(3, 4, 4), np.exp(2j * np.pi * RNG.random(5)) * 1.3,
                             crand(4, 2)),
    "contour_sums square": lambda: (2, crand(3, 3, 3), np.array([0.5j, 1.5 + 0.2j]),
                                    crand(3, 3)),
    # np.histogram with the edges given
    "histogram_edges": lambda: (rand(6, 7) * 2, np.array([-0.5, 0.0, 0.25, 0.25, 1.0, 1.4])),
    "histogram_edges on the edges": lambda: (np.array([[0.0, 0.25, 1.4, np.nan, -3.0, 1.41]]),
                                             np.array([0.0, 0.25, 0.25, 1.0, 1.4])),
    "histogram_edges one edge": lambda: (rand(2, 3), np.array([0.5])),
    "histogram_edges no edges": lambda: (rand(2, 3), np.zeros(0)),
    "histogram_edges falling": lambda: (rand(2, 3), np.array([0.0, 1.0, 0.5])),
    "histogram_edges of a view": lambda: (rand(6, 8)[::2, ::-3], np.linspace(-1, 1, 9)[::2]),
    "histogram_edges_mixed": lambda: (rand(50, dtype=np.float32), np.array([-1, 0, 1, 2, 2])),
    # several index arrays in one subscript
    "gather_pairs": lambda: (rand(4, 5), np.array([0, 3, -1, 2]), np.array([4, 0, 1, -5])),
    "gather_pairs stretched": lambda: (rand(5, 5), np.array([2]), np.array([0, 4, -1])),
    "gather_pairs mismatched": lambda: (rand(5, 5), np.array([0, 1]), np.array([0, 1, 2])),
    "gather_pairs out of range": lambda: (rand(4, 5), np.array([0, 4]), np.array([0, 1])),
    "gather_pairs_rows": lambda: (rand(3, 4, 5), np.array([0, 2, 1]), np.array([3, 0, 1])),
    # the corpus's front door: roll, diff, cumsum(axis=), round, np.array of scalars, loops over
    # arrays, assignment through index arrays
    "rolled": lambda: (rand(4, 5), 2),
    "rolled negative and large": lambda: (rand(4, 5), -23),
    "rolled empty": lambda: (np.zeros((0, 3)), 1),
    "differences": lambda: (rand(4, 5), rand(7, dtype=np.int64)),
    "differences short": lambda: (rand(1, 1), np.zeros(0, np.int64)),
    "cumulative_axes": lambda: (rand(4, 5), rand(3, 4, dtype=np.int32)),
    "rounded": lambda: (np.array([0.5, 1.5, 2.5, -0.5, -1.25, 3.14159, 1234.5]),
                        np.array([0.125, 2.675, -1.005, 3.3333], np.float32)),
    "written_out": lambda: (1.5, 3),
    "iterated": lambda: (rand(5), rand(3, 4), np.array([0, -1, 3, 2, 4, 1])),
    "iterated short": lambda: (rand(5), rand(3, 4), np.array([0, -1], np.int64)),
    "iterated out of range": lambda: (rand(5), rand(3, 4), np.array([0, 7], np.int64)),
    "scattered": lambda: (rand(6), np.array([1, 3, 3, -1]), rand(4)),
    "scattered broadcast and mismatched": lambda: (rand(6), np.array([1, 3, 3, -1]), rand(2)),
    "scattered out of range": lambda: (rand(6), np.array([1, 6]), rand(2)),
    "scattered_rows": lambda: (rand(4, 5), np.array([2, 0, 2])),
    "sorted_values": lambda: (rand(40), rand(5, 33, dtype=np.int32)),
    "sorted_values nan and ties": lambda: (np.array([3.0, np.nan, 1.0, -0.0, 0.0, 1.0, np.nan,
                                                     -np.inf, 2.0]),
                                           np.array([[2, 1, 2, 1, 0], [5, 5, 5, 5, 5]],
                                                    np.int32)),
    "sorted_values short": lambda: (rand(5), np.zeros((2, 0), np.int32)),
    "unbuffered": lambda: (rand(6), np.array([1, 3, 3, -1, 3]), rand(5),
                           np.array([0, 5, 5, 7, 11, 0, 3])),
    "unbuffered out of range": lambda: (rand(6), np.array([1, 6]), rand(2), np.array([0])),
    "looked_up": lambda: (rand(256), rand(4, 3), RNG.integers(0, 256, (5, 6)).astype(np.uint8),
                          np.array([[0, 3, -1], [2, 2, 1]], np.int32)),
    "looked_up out of range": lambda: (rand(200), rand(4, 3), np.full((2, 2), 250, np.uint8),
                                       np.zeros((1, 1), np.int32)),
    "stacked": lambda: (rand(5), rand(5), rand(4, 5)),
    "stacked mismatched": lambda: (rand(5), rand(4), rand(4, 5)),
    "accumulated": lambda: (rand(4, 5), rand(6, dtype=np.int64)),
    "accumulated nan": lambda: (np.array([[1.0, 2.0], [np.nan, 0.5], [3.0, 1.0]]),
                                np.array([3, -2, 5], np.int64)),
    "compared_closely": lambda: (np.array([1.0, np.inf, np.nan, 1e-9, 2.0, -np.inf]),
                                 np.array([1.0 + 1e-9, np.inf, np.nan, 0.0, 2.1, np.inf]),
                                 np.array([1.0, np.nan, 1e-3], np.float32)),
    "compared_closely nan first": lambda: (np.array([np.nan, 1.0]), np.array([1.0, 1.0]),
                                           np.zeros(2, np.float32)),
    "diagonals": lambda: (rand(4), rand(5, 4)),
    "diagonals short": lambda: (rand(1), rand(2, 2)),
    "medians": lambda: (rand(7), rand(3, 4, dtype=np.float32), rand(9, dtype=np.int32)),
    "medians even": lambda: (rand(8), rand(3, 5, dtype=np.float32), rand(4, dtype=np.int32)),
    # int32 maxima (added in float64, not wrapped), an odd count of huge values (not doubled)
    "medians extreme": lambda: (np.full(3, 1.7e308), np.array([[1.0, 2.0]], np.float32),
                                np.array([2**31 - 1, 0, 2**31 - 1], np.int32)),
    # no element: NaN, as NumPy's (which also warns)
    "medians empty": lambda: (np.zeros(0), np.zeros((3, 0), np.float32)[::-1],
                              np.zeros(1, np.int32)[1:]),
    "medians nan": lambda: (np.array([1.0, np.nan, 3.0, 2.0]),
                            np.array([[1.0, 2.0], [np.nan, 0.0]], np.float32),
                            np.array([3], np.int32)),
    "nan_reductions with float32 sums": lambda: (rand(3, 4), rand(5, dtype=np.float32),
                                                 rand(2, 3, dtype=np.int32)),
    "nan_reductions some nan, float32 sums": lambda: (
        np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, 2.0]]),
        np.array([np.nan, 1.0, 2.0], np.float32), rand(1, 2, dtype=np.int32)),
    "nan_reductions all nan, float32 too": lambda: (
        np.full((2, 2), np.nan), np.full(2, np.nan, np.float32), rand(1, 1, dtype=np.int32)),
    "nan_reductions empty, float32 too": lambda: (np.zeros((0, 2)), np.zeros(0, np.float32),
                                                  rand(1, 1, dtype=np.int32)),
    "quantiles": lambda: (rand(3, 4), rand(5, dtype=np.float32),
                          np.array([-100, 100, 3, 120, -128], np.int8), np.float64(0.3)),
    "quantiles above the middle": lambda: (rand(4, 2), rand(3, dtype=np.float32),
                                           np.array([7, -3], np.int8), np.float64(0.8)),
    "quantiles nan": lambda: (np.array([[1.0, np.nan, 3.0]]), np.array([np.nan, 1.0], np.float32),
                              np.array([1], np.int8), np.float64(1.0)),
    "quantiles out of range": lambda: (rand(3, 1), rand(2, dtype=np.float32),
                                       np.array([1], np.int8), np.float64(1.5)),
    "quantiles negative": lambda: (rand(1, 3), rand(2, dtype=np.float32), np.array([1], np.int8),
                                   np.float64(-0.1)),
    "quantiles empty": lambda: (np.zeros((0, 2)), rand(2, dtype=np.float32),
                                np.array([1], np.int8), np.float64(0.5)),
    "nan_quantiles": lambda: (np.array([[1.0, np.nan, 3.0, 0.5], [np.nan, 2.0, -1.0, 4.0]]),
                              np.array([np.nan, 1.0, 0.5, 2.0], np.float32),
                              np.array([-100, 100, 3, 120, -128], np.int8), np.float64(0.3)),
    "nan_quantiles no nan": lambda: (rand(3, 4), rand(5, dtype=np.float32),
                                     np.array([7, -3], np.int8), np.float64(0.8)),
    "nan_quantiles all nan": lambda: (np.full((2, 3), np.nan),
                                      np.full(3, np.nan, np.float32), np.array([1], np.int8),
                                      np.float64(0.5)),
    "nan_quantiles empty": lambda: (np.zeros((0, 2)), np.zeros(0, np.float32),
                                    np.array([1], np.int8), np.float64(0.5)),
    "nan_quantiles out of range": lambda: (rand(3, 1), rand(2, dtype=np.float32),
                                           np.array([1], np.int8), np.float64(1.5)),
    "computed_shapes": lambda: (rand(3, 4), np.array([3, 1, 3, 0, -1], np.int32)),
    "computed_shapes empty": lambda: (np.zeros((0, 2)), np.zeros(0, np.int32)),
    "convolutions": lambda: (rand(5), rand(3), np.array([-100, 100, 3, 120], np.int8),
                             rand(2, dtype=np.int32)),
    "convolutions v longer": lambda: (rand(2), rand(6), np.array([7], np.int8),
                                      rand(4, dtype=np.int32)),
    "convolutions even": lambda: (rand(4), rand(4), rand(2, dtype=np.int8),
                                  rand(2, dtype=np.int32)),
    "convolutions empty": lambda: (np.zeros(0), rand(3), rand(2, dtype=np.int8),
                                   rand(2, dtype=np.int32)),
    "convolutions empty v": lambda: (rand(3), np.zeros(0), rand(2, dtype=np.int8),
                                     rand(2, dtype=np.int32)),
    "einsums": lambda: (rand(2, 3), rand(3, 4), rand(4), rand(3, 3),
                        np.array([[-100, 100], [120, 90]], np.int8), rand(2, dtype=np.int32)),
    "einsums broadcast": lambda: (rand(2, 3), rand(1, 4), rand(4), rand(3, 3),
                                  rand(2, 2, dtype=np.int8), rand(1, dtype=np.int32)),
    "einsums empty": lambda: (np.zeros((0, 2)), rand(2, 3), rand(3), rand(2, 2),
                              np.zeros((0, 0), np.int8), np.zeros(0, np.int32)),
    "einsums mismatched": lambda: (rand(2, 3), rand(2, 4), rand(4), rand(3, 3),
                                   rand(2, 2, dtype=np.int8), rand(2, dtype=np.int32)),
    "einsums not square": lambda: (rand(2, 3), rand(3, 4), rand(4), rand(3, 2),
                                   rand(2, 2, dtype=np.int8), rand(2, dtype=np.int32)),
    "uniques": lambda: (np.array([[2.0, np.nan, 1.0], [1.0, np.inf, np.nan]]),
                        np.array([3, -1, 3, 0, -1], np.int32),
                        np.array([np.nan, 1.0, 0.5, 1.0], np.float32)),
    "uniques empty": lambda: (np.zeros((1, 0)), np.zeros(0, np.int32), np.zeros(0, np.float32)),
    "indices_where": lambda: (np.array([[0.9, 0.0, 0.1], [0.6, np.nan, 0.3]]),
                              np.array([0, 3, 0, -1, 2], np.int32), rand(5)),
    "indices_where none": lambda: (np.zeros((0, 3)), np.zeros(2, np.int32), rand(2)),
    "indices_where views": lambda: (rand(4, 5)[::-1, ::2], np.arange(4, dtype=np.int32)[::-1],
                                    rand(4)),
    "repeated": lambda: (rand(2, 3), 3, np.array([4, -1, 7], np.int32)),
    "repeated once": lambda: (rand(3, 1)[::-1], 1, np.zeros(0, np.int32)),
    "repeated none": lambda: (rand(2, 2), 0, np.array([1], np.int32)),
    "repeated negative": lambda: (rand(2, 2), -1, np.array([1], np.int32)),
    "polynomials": lambda: (rand(4), np.array([[0.5, -1.0, np.inf], [np.nan, 2.0, -0.0]]),
                            np.array([3, -2, 1]), 1.5),
    "grids": lambda: (rand(3), rand(4, dtype=np.float32), np.array([2, -1])),
    "grids empty": lambda: (np.zeros(0), rand(2, dtype=np.float32), np.zeros(0, np.int64)),
    "inserted": lambda: (np.array([-np.inf, 0.0, 1.0, 1.0, 2.0, 3.0, np.nan, np.nan]),
                         np.array([-1, 0, 1, 1.5, 2, 3, 4, np.nan, np.inf, -np.inf]),
                         np.array([1, 3, 3, 7], np.int32), RNG.integers(-1, 9, (3, 4))),
    "inserted empty": lambda: (np.zeros(0), rand(3), np.zeros(0, np.int32),
                               np.zeros((2, 0), np.int64)),
    "interpolated": lambda: (np.concatenate([rand(9) * 2, [np.nan, np.inf, -0.3, 0.7]]),
                             np.array([-0.3, 0.1, 0.1, 0.4, 0.7]), rand(5),
                             RNG.integers(-1, 2, (3, 4)).astype(np.int32),
                             rand(5, dtype=np.float32)),
    "interpolated one point": lambda: (np.array([0.1, 0.5, np.nan, 2.0]), np.array([0.5]),
                                       np.array([3.0]), np.zeros((2, 2), np.int32),
                                       np.array([1.5], np.float32)),
    "interpolated infinite values": lambda: (np.array([0.5, 1.5, 2.5]),
                                             np.array([0.0, 1.0, 2.0, 3.0]),
                                             np.array([0.0, np.inf, np.inf, 1.0]),
                                             np.ones((1, 1), np.int32), rand(4, dtype=np.float32)),
    "interpolated empty": lambda: (rand(3), np.zeros(0), np.zeros(0), np.zeros((1, 1), np.int32),
                                   np.zeros(0, np.float32)),
    "interpolated mismatched": lambda: (rand(3), rand(4), rand(3), np.zeros((1, 1), np.int32),
                                       rand(4, dtype=np.float32)),
    "integrals": lambda: (rand(7), rand(3, 7), np.sort(rand(7)), np.array([1.5, np.nan, 2.0])),
    "integrals short": lambda: (rand(1), rand(2, 1), rand(1), np.array([np.nan])),
    "counted": lambda: (np.array([3, 0, 3, 7, 1]), rand(5), 0),
    "counted minlength": lambda: (np.array([3, 0, 3, 7, 1]), rand(5), 12),
    "counted negative": lambda: (np.array([3, -1]), rand(2), 0),
    "counted negative minlength": lambda: (np.array([3, 1]), rand(2), -1),
    "counted weights mismatched": lambda: (np.array([3, 1]), rand(3), 0),
}


def well(n):
    """A well-conditioned n x n matrix."""
    return rand(n, n) + n * np.eye(n)


def crand(*shape):
    return rand(*shape) + 1j * rand(*shape)


def cwell(n):
    """A well-conditioned complex n x n matrix."""
    return crand(n, n) + n * np.eye(n)


def spd(n):
    """A symmetric positive definite n x n matrix."""
    m = rand(n, n)
    return m @ m.T + n * np.eye(n)


def test_every_function_has_a_case(numpy_exprs_kernels):
    functions = {f["name"] for f in numpy_exprs_kernels.compiled.__unpy_functions__.values()}
    assert functions and functions <= {case.split()[0] for case in CASES}


@pytest.mark.parametrize("case", list(CASES))
def test_construct(numpy_exprs_kernels, case):
    rtol = 1e-4 if "32" in case else TOL     # a float32 product sums in another order
    numpy_exprs_kernels.check(case.split()[0], *CASES[case](), rtol=rtol)


@SETTINGS
@given(arrays(np.float64, 2, max_side=6), st.floats(-2, 2))
def test_elementwise_any_layout(numpy_exprs_kernels, a, alpha):
    numpy_exprs_kernels.check("where_clip", a, rtol=TOL)
    numpy_exprs_kernels.check("transposed", a, rtol=TOL)
    numpy_exprs_kernels.check("axpy", a.ravel(), a.ravel()[::-1].copy(), alpha, rtol=TOL)


@SETTINGS
@given(arrays(np.float64, 2, max_side=7), st.integers(0, 3))
def test_stencil_any_layout(numpy_exprs_kernels, a, steps):
    numpy_exprs_kernels.check("jacobi", a, steps, rtol=TOL)
    if a.size and a.shape[0] % 2 == 0:      # a[::2] and a[1::2] of one length
        numpy_exprs_kernels.check("strided_views", a, rtol=TOL)
    numpy_exprs_kernels.check("in_place", a, a[::-1, ::-1].copy(), 0.5, rtol=TOL)


@SETTINGS
@given(arrays(np.float64, 2, max_side=6))
def test_reductions_any_layout(numpy_exprs_kernels, a):
    numpy_exprs_kernels.check("reductions", a, rtol=1e-9)
    numpy_exprs_kernels.check("axis0", a, rtol=1e-9)
    numpy_exprs_kernels.check("axis1", a, rtol=1e-9)
    numpy_exprs_kernels.check("argmax_rows", a)
    numpy_exprs_kernels.check("masked", a, a[0].copy() if a.shape[0] else np.zeros(0))


@SETTINGS
@given(arrays(np.float64, 2, min_side=1, max_side=5), arrays(np.float64, 2, min_side=1,
                                                             max_side=5))
def test_products_any_layout(numpy_exprs_kernels, a, b):
    numpy_exprs_kernels.check("matmul", a, b, rtol=1e-9)
    numpy_exprs_kernels.check("outer_broadcast", a.ravel(), b.ravel(), rtol=TOL)


@SETTINGS
@given(arrays(np.float64, 1, max_side=8), arrays(np.float64, 1, max_side=8))
def test_broadcasting_by_rank_and_new_axes(numpy_exprs_kernels, x, y):
    numpy_exprs_kernels.check("outer_broadcast", x, y, rtol=TOL)
    a = np.add.outer(y, x)
    numpy_exprs_kernels.check("row_broadcast", a, x, rtol=TOL)
    numpy_exprs_kernels.check("masked_pair", x, x[::-1].copy(), rtol=TOL)


@st.composite
def broadcastable(draw, ndims):
    """Arrays of the ranks `ndims` (aligned at the right) whose lengths are each the
    dimension's own or, at random, 1; now and then one is neither (NumPy's ValueError). Some
    are strided views."""
    full = draw(st.lists(st.integers(0, 4), min_size=max(ndims), max_size=max(ndims)))
    clash = draw(st.sampled_from([None] * 6 + list(range(len(full)))))
    out = []
    for n in ndims:
        shape = [1 if draw(st.booleans()) else d for d in full[len(full) - n:]]
        if clash is not None and clash >= len(full) - n and draw(st.booleans()):
            shape[clash - len(full) + n] = full[clash] + 2
        step = draw(st.sampled_from([1, 2, -1]))
        base = draw(hnp.arrays(np.float64, [abs(step) * d for d in shape],
                               elements=st.floats(-4, 4)))
        out.append(base[tuple(slice(None, None, step) for _ in shape)])
    return out


@SETTINGS
@given(broadcastable((3, 2, 1)), broadcastable((2, 2)))
def test_lengths_of_one_found_at_run_time(numpy_exprs_kernels, abc, pair):
    """Every length may be 1 at run time: the result is NumPy's broadcast (or its ValueError)."""
    numpy_exprs_kernels.check("stretch_any", *abc, rtol=1e-9)
    numpy_exprs_kernels.check("outer_of_parameters", *pair, rtol=TOL)
    a, b = pair
    numpy_exprs_kernels.check("in_place_stretch", a, b, a.copy(), rtol=TOL)


def test_broadcast_errors_name_the_shapes(numpy_exprs_kernels):
    """The ValueError of lengths that do not broadcast names the shapes, as NumPy's does."""
    error = numpy_exprs_kernels.check("outer_of_parameters", rand(5, 2), rand(3, 4))
    assert "could not be broadcast together with shapes (5,2) (3,4)" in str(error)
    error = numpy_exprs_kernels.check("in_place_stretch", rand(1, 5), rand(3, 5), rand(3, 5))
    assert "could not broadcast input array from shape (3,5) into shape (1,5)" in str(error)


@settings(max_examples=15, deadline=None)
@given(arrays(np.float64, 2, min_side=33, max_side=48), arrays(np.float64, 2, min_side=33,
                                                                max_side=48),
       arrays(np.float32, 2, min_side=33, max_side=40))
def test_blas_products_any_layout(numpy_exprs_kernels, a, b, c):
    """Products large enough for the BLAS, in every layout (a transposed operand is the BLAS's
    'T'; one without a unit stride, or with a negative one, runs the loops)."""
    k = min(a.shape[1], b.shape[0])
    numpy_exprs_kernels.check("matmul", a[:, :k], b[:k], rtol=1e-9)
    numpy_exprs_kernels.check("gemv", a, a[0].copy(), a[:, 0].copy(), rtol=1e-9)
    numpy_exprs_kernels.check("matmul32", c, c.T, rtol=1e-4)


@SETTINGS
@given(st.integers(0, 12), st.integers(1, 4), st.integers(0, 2 ** 32 - 1))
def test_solve_and_inv_any_size(numpy_exprs_kernels, n, k, seed):
    """np.linalg.solve and inv against NumPy's over sizes (0 included), right-hand sides of
    several columns, and matrices that may be singular (both sides raise LinAlgError)."""
    rng = np.random.default_rng(seed)
    a = rng.integers(-3, 4, (n, n)).astype(np.float64)
    if seed % 2:
        a += n * np.eye(n)
    numpy_exprs_kernels.check("linalg_solve_matrix", a, rng.random((n, k)), rtol=TOL)
    numpy_exprs_kernels.check("linalg_inv", a, rtol=TOL)


def test_the_blas_call_leaves_numpy_threads_as_they_were(numpy_exprs_kernels):
    """unpy's product sets the BLAS NumPy ships to one thread per OpenMP thread for its own
    call only: NumPy's later products keep their thread count."""
    import ctypes
    import glob
    import os
    libs = glob.glob(os.path.join(os.path.dirname(np.__file__), "..", "numpy.libs",
                                  "libscipy_openblas64_*.so*"))
    if not libs:
        pytest.fail("NumPy ships no scipy-openblas here: the BLAS path is not tested")
    count = ctypes.CDLL(libs[0]).scipy_openblas_get_num_threads64_
    before = count()
    numpy_exprs_kernels.check("matmul", rand(64, 64), rand(64, 64), rtol=1e-9)
    assert count() == before


def test_large_blocks_are_reused_by_the_next_call(numpy_exprs_kernels):
    """A freed block of 1 MiB or more goes back to unpy's pool (unpy_runtime.hpp, BlockPool)
    and the next allocation of its size takes it: no new pages to fault in."""
    f = numpy_exprs_kernels.compiled.large_temporary
    first = f(2 ** 20)
    address = first.ctypes.data
    del first
    second = f(2 ** 20)
    assert second.ctypes.data == address and np.all(second == 3.0)


def test_a_dtype_of_no_signature_raises_type_error(numpy_exprs_kernels):
    """A dtype argument is taken as np.dtype() reads it (the cases above: np.float32,
    np.dtype('float32'), 'float64'); another dtype raises TypeError naming the parameter."""
    compiled = numpy_exprs_kernels.compiled
    with pytest.raises(TypeError, match=r"dtype_passed_on\(\) argument 'dtype': expected the "
                                        r"dtype int32 \(np.int32\), got <class 'numpy.int64'>"):
        compiled.dtype_passed_on(3, np.int64)
    with pytest.raises(TypeError, match=r"linspace_of\(\) argument 'dtype': expected "
                                        r"type\[float64\] or type\[float32\], got type\[int64\]"):
        compiled.linspace_of(0.0, 1.0, 3, np.int64)
    with pytest.raises(TypeError, match=r"argument 'dtype'"):
        compiled.linspace_of(0.0, 1.0, 3, "no such dtype")
    assert compiled.ramp_of(3).dtype == np.float32          # the default, np.float32
    assert compiled.ramp_of(3, "int32").dtype == np.int32


def with_nans(draw, shape, dtype):
    """An array of `shape` of small numbers, infinities and NaNs (anywhere, or everywhere)."""
    values = [-2.5, -1.0, 0.0, 0.5, 1.0, 4.0, np.inf, -np.inf, np.nan, np.nan]
    flat = draw(st.lists(st.sampled_from(values), min_size=int(np.prod(shape)),
                         max_size=int(np.prod(shape))))
    return np.array(flat, dtype).reshape(shape)


@SETTINGS
@given(st.data(), st.integers(0, 4), st.integers(1, 4), st.integers(1, 6))
def test_nan_reductions_any_nan_placement(numpy_exprs_kernels, data, m, n, size):
    """NaNs anywhere (whole rows and columns of them too), empty arrays, views."""
    a = data.draw(st.sampled_from([lambda a: a, lambda a: a[::-1], lambda a: a.T.copy().T]))(
        with_nans(data.draw, (m, n), np.float64))
    x = with_nans(data.draw, (size,), np.float32)
    numpy_exprs_kernels.check("nan_reductions", a, x, rand(2, 2, dtype=np.int32), rtol=1e-6)


@SETTINGS
@given(st.data(), st.integers(1, 40), st.integers(1, 5), st.integers(1, 5),
       st.integers(1, 30))
def test_medians_any_data(numpy_exprs_kernels, data, size, m, n, count):
    """np.median by selection (lower_sorting.select_middle): repeated values, sorted and
    reversed data, NaNs anywhere, infinities, odd and even counts, views; int32 near the
    limits (the mean of the middle two in float64)."""
    x = with_nans(data.draw, (size,), np.float64)
    x = data.draw(st.sampled_from([lambda v: v, np.sort, lambda v: np.sort(v)[::-1]]))(x)
    a = with_nans(data.draw, (m, n), np.float32)
    a = data.draw(st.sampled_from([lambda v: v, lambda v: v.T, lambda v: v[::-1, ::2]]))(a)
    k = np.array(data.draw(st.lists(st.integers(-2 ** 31, 2 ** 31 - 1), min_size=count,
                                    max_size=count)), np.int32)
    numpy_exprs_kernels.check("medians", x, a, k)


@SETTINGS
@given(st.data(), st.integers(0, 4), st.integers(1, 4), st.integers(1, 6),
       st.one_of(st.sampled_from([0.0, 0.5, 1.0, 1 / 3, 0.999, -1e-9, 1.0000001, np.nan]),
                 st.floats(0, 1)))
def test_quantiles_any_data_and_q(numpy_exprs_kernels, data, m, n, size, q):
    """q anywhere in [0, 1] (and outside: ValueError), NaNs anywhere, repeated values,
    infinities, empty data (IndexError), int8 data that overflow b - a as NumPy's do."""
    a = with_nans(data.draw, (m, n), np.float64)
    x = with_nans(data.draw, (size,), np.float32)
    k = np.array(data.draw(st.lists(st.integers(-128, 127), min_size=1, max_size=7)), np.int8)
    numpy_exprs_kernels.check("quantiles", a, x, k, np.float64(q))


@SETTINGS
@given(st.data(), st.integers(0, 4), st.integers(1, 4), st.integers(0, 6),
       st.one_of(st.sampled_from([0.0, 0.5, 1.0, 1 / 3, 0.999, -1e-9, np.nan]),
                 st.floats(0, 1)))
def test_nan_quantiles_any_nan_placement(numpy_exprs_kernels, data, m, n, size, q):
    """NaNs anywhere (all of them too), infinities, repeats, no element (NaN), q anywhere in
    [0, 1] and outside (ValueError), int8 data."""
    a = with_nans(data.draw, (m, n), np.float64)
    x = with_nans(data.draw, (size,), np.float32)
    k = np.array(data.draw(st.lists(st.integers(-128, 127), min_size=1, max_size=7)), np.int8)
    numpy_exprs_kernels.check("nan_quantiles", a, x, k, np.float64(q))


@SETTINGS
@given(st.data(), st.integers(0, 7), st.integers(0, 7))
def test_convolve_any_lengths(numpy_exprs_kernels, data, n, m):
    """Every pair of lengths (either longer, equal, empty: ValueError), views, int8 sums that
    wrap."""
    step = data.draw(st.sampled_from([1, -1, 2]))
    a = (RNG.random(abs(step) * n) - 0.5)[::step]
    v = RNG.random(m) - 0.5
    k = RNG.integers(-128, 128, n).astype(np.int8)
    j = RNG.integers(-999, 999, m).astype(np.int32)
    numpy_exprs_kernels.check("convolutions", a, v, k, j, rtol=1e-12)


@SETTINGS
@given(st.data(), st.integers(0, 4), st.integers(0, 4), st.integers(0, 4))
def test_einsum_any_shapes(numpy_exprs_kernels, data, m, n, p):
    """Any lengths (empty, 1: broadcast), views with steps, int8 sums that wrap; lengths that
    differ raise ValueError as NumPy's."""
    step = data.draw(st.sampled_from([1, -1, 2]))
    a = rand(m, abs(step) * n)[:, ::step]
    b = rand(data.draw(st.sampled_from([n, 1, n + 1])), p)
    s = rand(n, data.draw(st.sampled_from([n, n, n + 1])))
    k = RNG.integers(-128, 128, (m, m)).astype(np.int8)
    j = RNG.integers(-999, 999, data.draw(st.sampled_from([m, 1]))).astype(np.int32)
    numpy_exprs_kernels.check("einsums", a, b, rand(p), s, k, j, rtol=1e-12)


@SETTINGS
@given(st.data(), st.integers(0, 4), st.integers(0, 5))
def test_unique_any_values(numpy_exprs_kernels, data, m, n):
    """Repeats, NaNs anywhere (one NaN comes out), infinities, empty arrays, views."""
    a = with_nans(data.draw, (m, n), np.float64)
    if a.shape[0] == 0:
        a = np.zeros((1, n))       # a[0] is read
    k = np.array(data.draw(st.lists(st.integers(-3, 3), max_size=8)), np.int32)
    x = with_nans(data.draw, (n,), np.float32)
    numpy_exprs_kernels.check("uniques", a, k, x)


@SETTINGS
@given(st.lists(st.sampled_from([-2.0, -0.5, 0.0, 0.25, 1.0, 3.0]), min_size=1, max_size=6),
       arrays(np.float64, 1, max_side=6), st.lists(
           st.sampled_from([-2.5, -2.0, -0.5, -0.1, 0.0, 0.25, 0.6, 1.0, 3.0, 4.0, np.nan]),
           min_size=0, max_size=9))
def test_interp_any_sample_points(numpy_exprs_kernels, points, values, x):
    """Rising sample points with repeats, values at, between and outside them, NaN."""
    xp = np.sort(np.array(points))
    fp = np.resize(values if values.size else np.ones(1), xp.size)
    numpy_exprs_kernels.check("interpolated", np.array(x), xp, fp, np.zeros((1, 2), np.int32),
                              fp.astype(np.float32))


@SETTINGS
@given(st.lists(st.sampled_from([-2.0, -0.5, 0.0, 0.25, 1.0, 3.0, np.inf, np.nan]),
                max_size=7),
       st.lists(st.sampled_from([-3.0, -0.5, 0.0, 0.1, 1.0, 3.0, 5.0, np.inf, np.nan]),
                max_size=6))
def test_searchsorted_any_sorted_array(numpy_exprs_kernels, points, values):
    """Sorted arrays with repeats, infinities and NaNs (last, as np.sort puts them)."""
    a = np.sort(np.array(points))
    k = np.sort(np.array([int(x) for x in points if np.isfinite(x)], np.int32))
    numpy_exprs_kernels.check("inserted", a, np.array(values), k,
                              np.array(values[:4] or [0.0]).astype(np.int64).reshape(1, -1)
                              if all(np.isfinite(values[:4])) else np.zeros((1, 1), np.int64))
