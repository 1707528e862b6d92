"""Lime's memory spaces (SPEC section 7): constant_space and structure_loads on bound nests, and
every UNPY_GPU_OPT level against the interpreter on the tested OpenCL device at odd sizes,
aligned and unaligned structures."""
import dataclasses

import numpy as np
import pytest

from bound import bound
from jitgpu import offload
from jitgpu.loopopt import optimise, passes
from jitgpu.loopopt.constant_space import constant_space
from jitgpu.loopopt.cost import GpuModel
from jitgpu.loopopt.nodes import VectorLoad
from unpy.loopopt.nest import accesses_of
from unpy.loopopt.rewrite import transform
from jitgpu.loopopt.unroll_inner import unroll_inner
from jitgpu.loopopt.vector_loads import structure_loads
from jitgpu.opencl_emit import print_kernel

F = np.float32
LIMITS = GpuModel(constant_space=(65536, 8))
RNG = np.random.default_rng(5)


def _vectors(kernel):
    found = []
    transform(list(kernel.body), lambda n: found.append(n) or n
              if isinstance(n, VectorLoad) else n)
    return found


def _constant(kernel):
    return {p.name for p in kernel.params if p.kind == "buffer" and p.constant}


def _buffers_of(kernel, array):
    """The buffer parameters of the accesses to `array` (a group per region it reads)."""
    return {f"g{kernel.access(e.aid).buffer}" for e in accesses_of(list(kernel.body))
            if e.array.id == array}


def _unaligned_atoms(n):
    """(atoms, x): atoms' structures start one element into the buffer that x views too (one
    device buffer, the whole span: no vector loads)."""
    base = RNG.uniform(-2, 2, 4 * n + 1).astype(F)
    return base[1:].reshape(n, 4), base[:n]


def test_structures_at_an_invariant_index_are_constant(spaces):
    kernel = bound(spaces, "structs4", np.ones((7, 4), F), np.ones(5, F), np.zeros(5, F))
    out = constant_space(structure_loads(kernel), LIMITS)
    assert _constant(out) == _buffers_of(kernel, "atoms") == {"g1"}    # not x, not out
    (vector,) = _vectors(out)
    assert vector.width == 4 and vector.aligned                    # offset 0, stride 4
    source = print_kernel(out)
    assert "__constant float* restrict" in source
    assert "(*((__constant float4*)(" in source


def test_unaligned_structures_use_vload(spaces):
    # As if atoms' group began one element before atoms[0, 0] (offsets 1 + 4k .. 4 + 4k).
    kernel = bound(spaces, "structs4", np.ones((7, 4), F), np.ones(5, F), np.zeros(5, F))
    offsets = {kernel.access(e.aid).offset for e in accesses_of(list(kernel.body))
               if e.array.id == "atoms"}
    kernel = kernel.replace(params=tuple(
        dataclasses.replace(p, value=p.value + 1) if p.name in offsets else p
        for p in kernel.params))
    (vector,) = _vectors(structure_loads(kernel))
    assert vector.width == 4 and not vector.aligned
    assert "vload4(0, " in print_kernel(structure_loads(kernel))


def test_columns_of_a_wider_array_are_packed_then_aligned(spaces):
    # The transfer groups pack the touched columns 1..4 of each row: 4 consecutive elements.
    wide = np.ones((7, 6), F)[:, 1:5]
    (vector,) = _vectors(structure_loads(bound(spaces, "structs4", wide, np.ones(5, F),
                                               np.zeros(5, F))))
    assert vector.width == 4 and vector.aligned


def test_structure_loads_do_not_join_unrolled_copies(gpu):
    # inner_dot's a[i, k..k+3] after unroll_inner: vector_loads joins them, structure_loads not.
    kernel = unroll_inner(bound(gpu, "inner_dot", np.ones((5, 17)), np.ones(17), np.zeros(5), 17))
    assert structure_loads(kernel) is kernel


def test_structures_of_two_at_the_work_items_row(spaces):
    kernel = bound(spaces, "structs2_rows", np.ones((5, 2)), np.zeros((5, 3)))
    out = structure_loads(kernel)
    assert out.transforms[-1] == "structure_loads(vload2 1)"
    assert "double2" in print_kernel(out)
    assert constant_space(out, LIMITS) is out                 # pts[i, ...] differs per work-item


def test_literal_and_inner_loop_indices_are_constant(spaces):
    kernel = bound(spaces, "poly", np.ones(6), np.ones(9), np.zeros(9))
    out = constant_space(kernel, LIMITS)
    # coeffs[0], coeffs[1] and coeffs[2:] are three groups (their regions do not overlap).
    assert _constant(out) == _buffers_of(kernel, "coeffs") and len(_constant(out)) == 3
    assert out.transforms[-1].startswith("constant_space(")


def test_written_buffers_and_no_limits_stay_global(spaces):
    kernel = bound(spaces, "double_once", np.ones(3), np.ones(9))
    assert constant_space(kernel, LIMITS) is kernel
    kernel = bound(spaces, "poly", np.ones(6), np.ones(9), np.zeros(9))
    assert GpuModel().constant_space == (0, 0) and constant_space(kernel) is kernel


def test_device_limits_bound_size_and_count(spaces):
    # Three buffers of coeffs: 8, 8 and 32 bytes; the smallest first.
    kernel = bound(spaces, "poly", np.ones(6), np.ones(9), np.zeros(9))
    sizes = sorted(p.nbytes for p in kernel.params if p.name in _buffers_of(kernel, "coeffs"))
    assert sizes == [8, 8, 32]
    def limited(limits):
        return constant_space(kernel, GpuModel(constant_space=limits))
    assert len(_constant(limited((48, 8)))) == 3
    assert len(_constant(limited((47, 8)))) == 2
    assert len(_constant(limited((48, 1)))) == 1
    assert limited((1 << 20, 0)) is not None
    assert not _constant(limited((1 << 20, 0)))


def test_levels():
    names = {level: [name for name, _ in passes(level)] for level in
             ("none", "load", "unroll", "all")}
    assert names["none"] == []
    assert "structure_loads" in names["unroll"] and "vector_loads" not in names["unroll"]
    assert all("constant_space" in names[level] for level in ("load", "unroll", "all"))
    assert all(names[level][-1] == "constant_space" for level in ("load", "unroll", "all")) \
        or "local_tiles" in names["all"]


def test_default_level_for_structs4(spaces):
    kernel = bound(spaces, "structs4", np.ones((7, 4), F), np.ones(5, F), np.zeros(5, F))
    out = optimise(kernel, "unroll", LIMITS)
    assert any(t.startswith("structure_loads") for t in out.transforms)
    assert any(t.startswith("constant_space") for t in out.transforms)


# --- on the tested device, against the interpreter -------------------------------------------

LEVELS = ("none", "load", "unroll", "all")


def cases(n):
    rand = lambda *s, dtype=np.float64: RNG.uniform(-2, 2, s).astype(dtype)   # noqa: E731
    return [
        ("structs4", (rand(n, 4, dtype=F), rand(n + 2, dtype=F), np.zeros(n + 2, F)), 1e-5),
        ("structs4", (rand(n, 6, dtype=F)[:, 1:5], rand(n, dtype=F), np.zeros(n, F)), 1e-5),
        ("structs4", _unaligned_atoms(n) + (np.zeros(n, F),), 1e-5),
        ("structs4", (rand(n, 8, dtype=F)[::-1, ::2], rand(3, dtype=F), np.zeros(3, F)), 1e-5),
        ("structs2_rows", (rand(n, 2), np.zeros((n, n + 1))), 1e-12),
        ("structs2_rows", (rand(n, 3)[:, 1:], np.zeros((n, 2))), 1e-12),
        ("poly", (rand(n + 2), rand(n), np.zeros(n)), 1e-12),
        ("double_once", (rand(3), rand(n)), 1e-12),
        ("structs4_steps", (rand(n, 4, dtype=F), rand(n + 1, dtype=F), np.zeros(n + 1, F), 2),
         1e-5),
    ]


CASE_NAMES = [c[0] + f"#{k}" for k, c in enumerate(cases(1))]


@pytest.fixture
def fresh_preparations(monkeypatch):
    monkeypatch.setattr(offload, "_PREPARED", type(offload._PREPARED)())


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("n", (1, 5, 17))
@pytest.mark.parametrize("case", range(len(CASE_NAMES)), ids=CASE_NAMES)
def test_levels_match_interpreter(spaces, device_env, fresh_preparations, level, n, case):
    device_env.setenv("UNPY_GPU_OPT", level)
    func, args, rtol = cases(n)[case]
    _, report = spaces.check(func, *args, rtol=rtol)
    # The atoms in a group of their own (not beside x): constant where no local tile takes them.
    if level in ("load", "unroll") and CASE_NAMES[case] in ("structs4#0", "structs4#1", "poly#5",
                                                             "structs4_steps#7"):
        assert "constant_space" in report.nests[0].reason, str(report)
    if level == "unroll" and func.startswith("structs4") and CASE_NAMES[case] != "structs4#3" \
            and n > 1:      # one atom: four groups of one element
        assert "structure_loads" in report.nests[0].reason, str(report)
