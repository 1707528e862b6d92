"""The device probe (SPEC section 9): a device is used only after it has built and run a small
kernel and returned the right numbers.

A driver that lists a device may still fail on it: PoCL 3.0 (LLVM 14) cannot name a Zen 5 CPU,
and every `clBuildProgram` then fails with "unknown target CPU 'generic'"; a driver may crash
outright. So each candidate device is probed in a child process (running `gpurts.probe.main`): a
crash there is a reason, never the caller's crash, and the caller never holds objects made by a
failing driver. Where no child can be started the probe runs in this process.

Each result is kept for the process and on disk, `$UNPY_CACHE_DIR/probes` (default
`~/.cache/unpy/probes`), keyed by the device's platform, name and versions: a machine pays for one
probe per driver (about 0.3 s for a child, 1 s on a cold disk). A probe that timed out or could not
run is not kept. `unpy devices` probes afresh and rewrites the entries.

`UNPY_PROBE_FAIL=<substring>` is for tests: the probe of a device whose platform or device name
(or platform version: `pocl`) contains it builds a kernel with a syntax error, so it fails as on
a driver that cannot build.
"""
from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
from typing import NamedTuple

from unpy.settings import current as current_settings

from .errors import BuildError
from .kernel_cache import build_program
from .opencl import load_opencl, platforms

PROBE_VERSION = 1
PROBE_SOURCE = """
__kernel void unpy_probe(__global int *a, __global float *b, const int n) {
    int i = get_global_id(0);
    if (i < n) { a[i] = 3 * i + 1; b[i] = 0.5f * (float)i; }
}
"""
BROKEN_SOURCE = "__kernel void unpy_probe(__global int *a) { a[0] = ; }"
PROBE_N = 1000
PROBE_TIMEOUT_S = 120


class ProbeResult(NamedTuple):
    works: bool
    reason: str | None    # why the device does not work; None when it does
    fresh: bool           # probed by this process (not read from the disk cache)


_lock = threading.Lock()
_results: dict[int, ProbeResult] = {}   # cl device pointer -> its probe result


def probe_device(cl_device, fresh: bool = False) -> ProbeResult:
    """Whether `cl_device` builds and runs the probe kernel, and if not why. Cached for the
    process and on disk; `fresh` probes again and rewrites both."""
    key = cl_device.int_ptr
    with _lock:
        if fresh or key not in _results:
            path = _cache_path(cl_device)
            result = None if fresh else _read_cached(path)
            if result is None:
                result, keep = _probe_in_child(cl_device)
                if keep:
                    _write_cached(path, result)
            _results[key] = result
        return _results[key]


def probe_here(cl_device) -> str | None:
    """Probe `cl_device` in this process, through the same `Device` resources and program build
    as a real call: None when it works, else why not. Every OpenCL object made here is released
    when it returns, failure or not."""
    import numpy as np
    from .device import Device
    cl, _ = load_opencl()
    try:
        device = Device(cl_device)
        program = build_program(device, [], source=BROKEN_SOURCE if _told_to_fail(cl_device)
                                else PROBE_SOURCE)
        kernel = cl.Kernel(program, "unpy_probe")
        ints = cl.Buffer(device.context, cl.mem_flags.WRITE_ONLY, PROBE_N * 4)
        floats = cl.Buffer(device.context, cl.mem_flags.WRITE_ONLY, PROBE_N * 4)
        kernel.set_args(ints, floats, np.int32(PROBE_N))
        cl.enqueue_nd_range_kernel(device.queue, kernel, (PROBE_N,), None)
        got_ints, got_floats = np.empty(PROBE_N, np.int32), np.empty(PROBE_N, np.float32)
        cl.enqueue_copy(device.queue, got_ints, ints)
        cl.enqueue_copy(device.queue, got_floats, floats)
        device.queue.finish()
        ints.release()
        floats.release()
    except BuildError as e:
        return _first_error_line(f"{e.log}\n{e.message}", "build failed")
    except Exception as e:  # a cl.Error from any other step, or a driver's odd exception
        return _first_error_line(str(e), type(e).__name__)
    i = np.arange(PROBE_N)
    if not (np.array_equal(got_ints, 3 * i + 1) and np.array_equal(got_floats, 0.5 * i)):
        return "the probe kernel ran but returned wrong numbers"
    return None


def _told_to_fail(cl_device) -> bool:
    word = current_settings().probe_fail.lower()
    names = (cl_device.name, cl_device.platform.name, cl_device.platform.version)
    return bool(word) and any(word in name.lower() for name in names)


def _first_error_line(message: str, kind: str) -> str:
    """The line of a build log or error message that says what went wrong, briefly."""
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    errors = [line for line in lines if "error" in line.lower()]
    line = (errors or lines or [kind])[0]
    return line if len(line) <= 300 else line[:297] + "..."


def _position(cl_device) -> tuple[int, int]:
    """(platform index, device index) of `cl_device` in the loader's enumeration, which a child
    process with the same environment repeats."""
    plats, _ = platforms()
    for p, plat in enumerate(plats):
        if plat.int_ptr == cl_device.platform.int_ptr:
            for d, dev in enumerate(plat.get_devices()):
                if dev.int_ptr == cl_device.int_ptr:
                    return p, d
    raise LookupError(f"{cl_device.name} is not among the listed devices")


def child_command(module: str, cl_device) -> tuple[list, dict]:
    """(command, environment) of a child process running `gpurts.<module>.main` for
    `cl_device`, which it finds by its place in the loader's list and checks by its name."""
    package_parent = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [package_parent, *filter(None, [os.environ.get("PYTHONPATH")])]))
    where = _position(cl_device)
    return [sys.executable, "-c", f"import sys; from gpurts.{module} import main; "
            "sys.exit(main(sys.argv[1:]))", str(where[0]), str(where[1]), cl_device.name], env


def _probe_in_child(cl_device) -> tuple[ProbeResult, bool]:
    """(result, whether it may be kept on disk)."""
    command, env = child_command("probe", cl_device)
    try:
        done = subprocess.run(command, env=env, capture_output=True, text=True,
                              timeout=PROBE_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return ProbeResult(False, f"the probe did not finish in {PROBE_TIMEOUT_S} s", True), False
    except OSError:   # no interpreter to start (an embedded Python): probe here instead
        reason = probe_here(cl_device)
        return ProbeResult(reason is None, reason, True), True
    if done.returncode < 0:
        try:
            name = signal.Signals(-done.returncode).name
        except ValueError:
            name = f"signal {-done.returncode}"
        return ProbeResult(False, f"the driver crashed during the probe ({name})", True), True
    try:
        answer = json.loads(done.stdout.strip().splitlines()[-1])
        return ProbeResult(answer["reason"] is None, answer["reason"], True), True
    except (ValueError, IndexError, KeyError, TypeError):
        last = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
        return ProbeResult(False, f"the probe could not run ({last})", True), False


def cache_key(cl_device) -> str:
    """The device's key in `probes`: its platform, name and versions (the calibration of
    `gpurts.calibration` is kept beside the probe's result under it)."""
    plat = cl_device.platform
    fields = [PROBE_VERSION, plat.name, plat.vendor, plat.version, cl_device.name,
              cl_device.vendor, cl_device.version, cl_device.driver_version,
              current_settings().probe_fail]
    return hashlib.sha256(json.dumps([str(f).strip() for f in fields]).encode()).hexdigest()


def _cache_path(cl_device) -> str:
    return os.path.join(current_settings().cache_root, "probes", cache_key(cl_device) + ".json")


def _read_cached(path: str) -> ProbeResult | None:
    try:
        with open(path) as f:
            answer = json.load(f)
        return ProbeResult(bool(answer["works"]), answer["reason"], False)
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _write_cached(path: str, result: ProbeResult) -> None:
    """Write the entry atomically; a cache that cannot be written is skipped."""
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".tmp")
        with os.fdopen(fd, "w") as f:
            json.dump({"works": result.works, "reason": result.reason}, f)
        os.replace(tmp, path)
    except OSError:
        pass


def main(argv: list[str]) -> int:
    """The child: probe device `argv[1]` of platform `argv[0]` (named `argv[2]`) and print
    `{"reason": ...}` as the last line."""
    plats, reason = platforms()
    if reason is None:
        try:
            device = plats[int(argv[0])].get_devices()[int(argv[1])]
            if device.name != argv[2]:
                reason = f"the child process lists {device.name!r} in place of {argv[2]!r}"
            else:
                reason = probe_here(device)
        except (IndexError, ValueError) as e:
            reason = f"the child process does not list the device ({e})"
    print(json.dumps({"reason": reason}), flush=True)
    return 0


