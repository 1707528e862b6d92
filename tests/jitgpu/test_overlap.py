"""Tiles whose copies overlap the other tiles' kernels (jitgpu/overlap.py, the executor's
overlapped run): results equal to the interpreter's on the OpenCL device, with the tiles
planned only where they are legal and pay (OVERLAP_BYTES lowered so that small arrays qualify)."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from jitgpu import overlap, session
from test_gpu_hypothesis import SETTINGS, make_view_2d, view_2d
from unpy.host_memory import shared_groups

RNG = np.random.default_rng(11)


@pytest.fixture(autouse=True)
def small_calls_overlap(device_env):
    """Every call moving 256 bytes or more is tiled; layouts are planned afresh (no plan or replay
    of another test's calls)."""
    device_env.setattr(overlap, "OVERLAP_BYTES", 256)
    session.forget()
    device_env.setenv("UNPY_REPLAY", "0")


def _plan(gpu, func):
    return gpu.explain(func).nests[0].plan


@pytest.mark.parametrize("shape", [(4, 9), (13, 7), (64, 33), (2048, 300)])
def test_overlapped_tiles_match_the_interpreter(gpu, shape):
    a, b = RNG.random(shape), RNG.random(shape)
    gpu.check("add2", a, b, np.zeros(shape), rtol=1e-15)
    plan = _plan(gpu, "add2")
    assert plan.overlap and len(plan.parts) == overlap.TILES, str(plan)
    assert "tiles overlapped" in str(plan)
    assert "4 overlapped tiles" in gpu.explain("add2").nests[0].details["ndrange"]
    # The next call on the layout reuses the tiles' kits.
    gpu.check("add2", a, b, np.full(shape, 7.0), rtol=1e-15)
    assert _plan(gpu, "add2").overlap


@given(a=view_2d(), b=view_2d(), out=view_2d(), seed=st.integers(0, 2 ** 32 - 1))
@SETTINGS
def test_any_layouts(gpu, a, b, out, seed):
    """Views stepped, flipped and transposed: tiled where the tiles' byte spans keep apart,
    whole otherwise, the interpreter's result either way."""
    session.forget()
    rng = np.random.default_rng(seed)
    av = make_view_2d(rng, a)
    gpu.check("add2", av, make_view_2d(rng, b, av.shape), make_view_2d(rng, out, av.shape),
              rtol=1e-12)


def test_strided_views(gpu):
    """Every other row of a matrix as the destination: strided tiles, overlapped. The column
    halves of one matrix as destination and source: each tile's byte span of the one meets
    the other's, so the call stays whole."""
    gpu.check("copy_plus_one", np.zeros((80, 16))[::2], RNG.random((40, 16)), rtol=1e-15)
    assert _plan(gpu, "copy_plus_one").overlap
    m = RNG.random((40, 16))
    gpu.check("copy_plus_one", m[:, 8:], m[:, :8], rtol=1e-15)
    assert not _plan(gpu, "copy_plus_one").overlap


@pytest.mark.parametrize("rows", [4, 17])
def test_shared_group_copied_once(gpu, rows):
    """mmult's b, which every tile reads whole, is copied by the first tile only."""
    a, b = RNG.random((rows, 12)), RNG.random((12, 10))
    gpu.check("matmul", a, b, np.zeros((rows, 10)), rtol=1e-12)
    plan = _plan(gpu, "matmul")
    groups = plan.parts[0].transfers.groups
    assert plan.overlap and [groups[k].arrays for k in shared_groups(plan.parts)] == [("b",)]
    report = gpu.explain("matmul").nests[0]
    moved = rows * 12 * 8 + 12 * 10 * 8 + rows * 10 * 8
    assert report.timings["bytes_moved"] == report.timings["bytes_touched"] == moved, str(report)
    gpu.check("matmul", a, b, np.ones((rows, 10)), rtol=1e-12)


def test_not_overlapped_where_illegal_or_unprofitable(gpu, device_env):
    # Each tile reads its rows of x and those half an array further: the tiles would copy
    # x 4/3 times or more.
    gpu.check("shifted_sum", RNG.random(96), np.zeros(64), np.int64(32), rtol=1e-12)
    assert not _plan(gpu, "shifted_sum").overlap
    # dst is read and written: a failed call's rerun needs it intact.
    x = RNG.random(300)
    gpu.check("scale_into", x.copy(), x, rtol=1e-15)
    assert not _plan(gpu, "scale_into").overlap
    # A reduction is combined after every part.
    gpu.check("red_sum_f64", RNG.random(500), 1.5, rtol=1e-12)
    assert not _plan(gpu, "red_sum_f64").overlap
    # A kernel that may set its error flag (a run-time step).
    gpu.check("strided_row_sum", RNG.random((20, 30)), np.int64(2), np.zeros(20), rtol=1e-12)
    assert not _plan(gpu, "strided_row_sum").overlap
    # Small calls stay whole.
    device_env.setattr(overlap, "OVERLAP_BYTES", 1 << 30)
    gpu.check("add2", RNG.random((8, 8)), RNG.random((8, 8)), np.zeros((8, 8)), rtol=1e-15)
    assert not _plan(gpu, "add2").overlap
