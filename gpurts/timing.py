"""Time and bytes of one call's device work, read from profiling events (the device's queue is
made with profiling on), for `unpython.explain` and the profitability decision."""
from __future__ import annotations

from dataclasses import dataclass, field


def elapsed(event) -> float:
    """Seconds the command of `event` ran on the device (waits for it to finish)."""
    event.wait()
    return (event.profile.end - event.profile.start) * 1e-9


@dataclass
class Timings:
    """Host-to-device, kernel and device-to-host work of one call. Events are kept and read only
    when a time is asked for, so recording never waits for the device; `settle()`, once they are
    done, reads them into seconds and lets them go (and the host memory they keep alive)."""
    h2d_bytes: int = 0
    d2h_bytes: int = 0
    _events: dict[str, list] = field(default_factory=lambda: {"h2d": [], "kernel": [], "d2h": []},
                                     repr=False)
    _settled: dict[str, float] = field(default_factory=lambda: {"h2d": 0.0, "kernel": 0.0,
                                                                "d2h": 0.0}, repr=False)

    def record(self, phase: str, event, nbytes: int = 0) -> None:
        """Note an event of phase 'h2d', 'kernel' or 'd2h' that moved `nbytes` bytes."""
        self._events[phase].append(event)
        if phase == "h2d":
            self.h2d_bytes += nbytes
        elif phase == "d2h":
            self.d2h_bytes += nbytes

    def settle(self) -> None:
        """Read the times of the recorded events, which must be complete (after a `finish`),
        and drop the events."""
        from .opencl import load_opencl
        cl, _ = load_opencl()
        start, end = cl.profiling_info.START, cl.profiling_info.END
        for phase, events in self._events.items():
            self._settled[phase] += sum(e.get_profiling_info(end) - e.get_profiling_info(start)
                                        for e in events) * 1e-9
            events.clear()

    def seconds(self, phase: str) -> float:
        return self._settled[phase] + sum(elapsed(e) for e in self._events[phase])

    @property
    def h2d_seconds(self) -> float:
        return self.seconds("h2d")

    @property
    def kernel_seconds(self) -> float:
        return self.seconds("kernel")

    @property
    def d2h_seconds(self) -> float:
        return self.seconds("d2h")

    def __str__(self):
        return (f"h2d {self.h2d_bytes} B in {self.h2d_seconds * 1e3:.3f} ms, "
                f"kernel {self.kernel_seconds * 1e3:.3f} ms, "
                f"d2h {self.d2h_bytes} B in {self.d2h_seconds * 1e3:.3f} ms")
