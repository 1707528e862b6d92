"""check_bounds: interval arithmetic over the loop box against the arrays' shapes."""
import numpy as np
from hypothesis import given, settings

from jitgpu.lmad import Access, AffineForm, LoopDim, Refusal, analyse, check_bounds

from .oracle import live, out_of_bounds
from .strategies import nests

F = AffineForm


def one_access(shape, indices, extents):
    loops = [LoopDim(v, e, True) for v, e in zip("ijk", extents)]
    return loops, [live("a", np.zeros(shape))], [Access(0, "a", indices, True, False)]


def test_index_past_the_end_is_refused_with_the_array_named():
    reason = check_bounds(*one_access((10,), [F(1, {"i": 1})], [10]))
    assert reason == "a[i + 1]: index i + 1 may reach 10, outside [0, 10)"


def test_negative_index_is_refused_because_python_wraps_it():
    reason = check_bounds(*one_access((4, 10), [F(0, {"i": 1}), F(-1, {"j": 1})], [4, 10]))
    assert reason == "a[i, j - 1]: index j - 1 (dimension 1) may reach -1, outside [0, 10)"


def test_c_style_row_overflow_of_section_4_2_is_refused():
    # A[i+j+1][2i+2] is legal C for char A[P][80], i < 100, j < i + 5 (bounding box j < 104),
    # but the column index reaches 200: NumPy would raise, so the nest stays on the CPU.
    loops, arrays, accesses = one_access((210, 80), [F(1, {"i": 1, "j": 1}), F(2, {"i": 2})],
                                         [100, 104])
    result = analyse(loops, arrays, accesses)
    assert isinstance(result, Refusal)
    assert result.reason.startswith("a[i + j + 1, 2*i + 2]: index 2*i + 2 (dimension 1) may "
                                    "reach 200, outside [0, 80)")


def test_in_range_non_affine_and_empty_nests_pass():
    assert check_bounds(*one_access((10,), [F(0, {"i": 1})], [10])) is None
    assert check_bounds(*one_access((10,), [None], [50])) is None
    assert check_bounds(*one_access((10,), [F(20, {"i": 1})], [0])) is None


@settings(max_examples=150, deadline=None)
@given(nests(in_bounds=False))
def test_check_bounds_agrees_with_brute_force(nest):
    reason = check_bounds(nest.loops, nest.arrays, nest.accesses)
    assert (reason is not None) == out_of_bounds(nest.loops, nest.arrays, nest.accesses)


def test_guarded_index_is_checked_over_its_domain():
    """a[i, j - 1] under `if j >= 1`: the domain j in [1, 10) keeps it inside."""
    loops, arrays, [acc] = one_access((4, 10), [F(0, {"i": 1}), F(-1, {"j": 1})], [4, 10])
    loops[1].parallel = False
    guarded = Access(0, "a", acc.indices, True, False, domain=(("j", 1, 10),))
    assert check_bounds(loops, arrays, [guarded]) is None
    wide = Access(0, "a", acc.indices, True, False, domain=(("j", 0, 10),))
    assert "may reach -1" in check_bounds(loops, arrays, [wide])
