"""jitgpu.lmad: host<->device transfers of a loop nest from live NumPy strides.

The paper's section 4 (Garg & Amaral, jit4GPU): CSLMADs of the affine accesses, the overlap
graph, the transfer region and address map of each group (4.3.1-4.3.4, ILP), loop tiling (4.4);
SPEC section 5 for what unpy adds (bounds check, whole-span and whole-extent groups).
"""
from .bounds import check_bounds
from .nest import Access, AffineForm, LiveArray, LoopDim
from .plan import analyse
from .tiling import tile_plan
from .transfer import DeviceMap, Refusal, TransferGroup, TransferPlan

__all__ = [
    "AffineForm", "LoopDim", "LiveArray", "Access",
    "analyse", "check_bounds", "tile_plan",
    "TransferPlan", "TransferGroup", "DeviceMap", "Refusal",
]
