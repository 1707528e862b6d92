"""The constructs the loop optimisations add to a kernel nest, beside the IR of unpy/ir.py:
printable, and printed by jitgpu/opencl_emit.py."""
from __future__ import annotations

from dataclasses import dataclass, field

from jitgpu.bind import Level
from unpy.ir import Scalar


@dataclass(frozen=True)
class UnrolledLevel(Level):
    """An NDRange level whose work-item computes `1 + len(copies)` consecutive iterations
    (unroll-and-jam): copy 0 is `var`, copy u is `copies[u - 1]`, at normalised index
    `w * U + u` for work-item index w. A copy beyond the iteration space (or outside a
    triangular guard) computes the iteration of the first valid copy again, and its side
    effects are guarded by `CopyValid(u)`."""
    copies: tuple = ()

    @property
    def factor(self) -> int:
        return 1 + len(self.copies)


@dataclass
class CopyValid:
    """Expression: whether copy `copy` of the unrolled level is a real iteration."""
    copy: int
    loc: tuple = (0, 0)
    type: object = field(default_factory=lambda: Scalar("bool"))


@dataclass
class VectorLoad:
    """Expression: `width` consecutive elements from the device index of access `aid` (its
    first lane), as an OpenCL vector: vloadN (no alignment beyond the element's), or where
    `aligned` (the element's index is a multiple of `width` in a buffer of the element's dtype,
    whose start OpenCL aligns) a load through a vector pointer."""
    aid: int
    width: int
    aligned: bool = False
    loc: tuple = (0, 0)
    type: object = None          # Scalar of the element dtype (of each lane)


@dataclass
class Lane:
    """Expression: lane `lane` of the vector private `vector` (its `.sN`)."""
    vector: str
    lane: int
    loc: tuple = (0, 0)
    type: object = None


def vector_dtype(dtype: str, width: int) -> str:
    """The dtype of a vector private, as `KernelNest.privates` holds it: `float32x4`."""
    return f"{dtype}x{width}"
