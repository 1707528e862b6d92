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
    when a time is asked for, so recording never waits for the device."""
    h2d_bytes: int = 0
    d2h_bytes: int = 0
    _events: dict[str, list] = field(default_factory=lambda: {"h2d": [], "kernel": [], "d2h": []},
                                     repr=False)

    def record(self, phase: str, event, nbytes: int = 0) -> None:
        """Note an event of phase 'h2d', 'kernel' or 'd2h' that moved `nbytes` bytes."""
        self._events[phase].append(event)
        if phase == "h2d":
            self.h2d_bytes += nbytes
        elif phase == "d2h":
            self.d2h_bytes += nbytes

    def seconds(self, phase: str) -> float:
        return sum(elapsed(e) for e in self._events[phase])

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
