"""What the call path remembers between calls of this process, and the one way to forget it.

`forget()` makes every nest's next call prepare and decide anew, as in a fresh process: the
prepared layouts of one device (`jitgpu.offload`) and of splits (`jitgpu.multi`), the measured
GPU-or-OpenMP decisions of nests (`jitgpu.decide`) and of whole calls (`jitgpu.calls`), the
launches kept for relaunching (`jitgpu.relaunch`), the shares of splits (`jitgpu.shares`), and
the replays from C++ of calls they decided. What a fresh process would find again unchanged stays:
the devices and their probes (`gpurts.device`), built kernels (`gpurts.kernel_cache`), the
settings (`unpy.settings`), pinned memory, resident arrays and the reports `explain` shows.

Tests and benchmarks call it instead of clearing the modules' private caches by hand.
"""
from __future__ import annotations


def forget() -> None:
    """Forget every prepared layout and measured decision of the call path (see above)."""
    from jitgpu import calls, decide, multi, offload, relaunch, shares
    calls.forget()
    offload.forget()
    relaunch.forget()
    multi.forget()
    shares.forget()
    decide.forget()      # last: it also stops the replays of the calls decided so far
