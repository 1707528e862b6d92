"""Builds of OpenCL programs in a child process, for the builds off a call's path (the kernel
search's candidates, jitgpu/search.py): this process only loads the binary the child made.

NVIDIA's OpenCL builds one program at a time in a process, and a launch or copy waits while it
builds: on an H200, a 0.14-ms kernel launched in a loop took up to 29 ms while a thread of the
same process built 80-ms programs, and nbody f32 65536's calls that overlapped a search
candidate's build took 92-157 ms against 3-4 ms. While another process built them, the loop's
slowest call took 1.6 ms, and loading each program's binary here took 0.1-0.4 ms
(bench/results/first-calls-build-aside-h200-2026-11-27.md).

One child per device (`Device.build_aside`), started at its first build and kept while builds
come (it exits after IDLE_EXIT_S without one, or when this process closes its pipe), opens its
own context on the same device (found by its place in the loader's list and its name, as the
probe's child is) and answers each request with the program's binary or its build log. Where
the child cannot start, dies or lists another device, the build runs in this process
(`BuildAside.build` returns None) and the child is not started again.
"""
from __future__ import annotations

import json
import logging
import select
import struct
import subprocess
import sys
import threading

from .errors import BuildError

log = logging.getLogger("gpurts")

# A child left without a build this long exits (its context holds device memory).
IDLE_EXIT_S = 60.0
# How long a build may take in the child before this process gives up on it.
BUILD_TIMEOUT_S = 300.0


def _write_message(stream, header: dict, payload: bytes) -> None:
    text = json.dumps(header).encode()
    stream.write(struct.pack("<II", len(text), len(payload)) + text + payload)
    stream.flush()


def _read_exactly(stream, n: int) -> bytes:
    data = b""
    while len(data) < n:
        chunk = stream.read(n - len(data))
        if not chunk:
            raise EOFError("the other side closed the pipe")
        data += chunk
    return data


def _read_message(stream) -> tuple[dict, bytes]:
    lengths = _read_exactly(stream, 8)
    text_n, payload_n = struct.unpack("<II", lengths)
    return json.loads(_read_exactly(stream, text_n)), _read_exactly(stream, payload_n)


class BuildAside:
    """The child process that builds programs for one device (see the module docstring)."""

    def __init__(self, device):
        self.device = device
        self._lock = threading.Lock()
        self._child = None
        self.unusable = None        # why builds run in this process instead, once known

    def build(self, source: str, options: list) -> bytes | None:
        """The binary of `source` built with `options` by the child, or None where the child
        cannot build (the caller builds here); raises BuildError with the log where the
        source does not build."""
        with self._lock:
            if self.unusable is not None:
                return None
            failed = None
            for _ in range(2):          # a child that exited idle is started again
                try:
                    child = self._started()
                    _write_message(child.stdin, {"options": options}, source.encode())
                    ready, _, _ = select.select([child.stdout], [], [], BUILD_TIMEOUT_S)
                    if not ready:
                        raise TimeoutError(f"no answer in {BUILD_TIMEOUT_S:.0f} s")
                    header, payload = _read_message(child.stdout)
                except (OSError, EOFError, ValueError, LookupError, struct.error,
                        TimeoutError) as e:
                    self._close()
                    failed = f"{type(e).__name__}: {e}"
                    continue
                if "unusable" in header:
                    self._give_up(header["unusable"])
                    return None
                if not header["built"]:
                    raise BuildError(f"OpenCL build failed on {self.device.label} "
                                     f"({header['status']})", payload.decode(errors="replace"))
                return payload
            self._give_up(failed)
            return None

    def _started(self):
        if self._child is not None and self._child.poll() is None:
            return self._child
        from .probe import child_command
        command, env = child_command("build_aside", self.device.cl_device)
        command[-1] = self.device.name        # (the name this process knows it by)
        self._child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                       stderr=subprocess.DEVNULL, env=env)
        return self._child

    def _give_up(self, why: str) -> None:
        self.unusable = why
        self._close()
        log.info("gpurts: builds for %s run in this process (the build process: %s)",
                 self.device.label, why)

    def _close(self) -> None:
        child, self._child = self._child, None
        if child is None:
            return
        try:
            child.stdin.close()
            child.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            child.kill()

    def stop(self) -> None:
        """Let the child go (it exits when its pipe closes)."""
        with self._lock:
            self._close()


def main(argv: list[str]) -> int:
    """The child: build each program this process is sent for device `argv[1]` of platform
    `argv[0]` (named `argv[2]`) and send back its binary or its build log."""
    from .opencl import load_opencl, platforms
    cl, _ = load_opencl()
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    plats, reason = platforms()
    device = None
    if reason is None:
        try:
            device = plats[int(argv[0])].get_devices()[int(argv[1])]
            if device.name.strip() != argv[2].strip():
                reason, device = f"it lists {device.name!r} in place of {argv[2]!r}", None
        except (IndexError, ValueError, cl.Error) as e:
            reason = f"it does not list the device ({e})"
    context = cl.Context([device]) if device is not None else None
    while True:
        ready, _, _ = select.select([stdin], [], [], IDLE_EXIT_S)
        if not ready:
            return 0
        try:
            header, source = _read_message(stdin)
        except EOFError:
            return 0
        if context is None:
            _write_message(stdout, {"unusable": reason}, b"")
            continue
        program = cl._cl._Program(context, source.decode())
        try:
            program._build(options=" ".join(header["options"]).encode(), devices=[device])
            binary = program.get_info(cl.program_info.BINARIES)[0]
            for kernel in program.all_kernels():
                # Finished for the device here: NVIDIA's driver compiles the program's PTX
                # for the GPU when first asked (a launch, a query), and keeps the result in
                # its own cache on disk, which the parent's load then finds.
                kernel.get_work_group_info(cl.kernel_work_group_info.WORK_GROUP_SIZE, device)
            _write_message(stdout, {"built": True}, bytes(binary))
        except cl.Error as e:
            try:
                build_log = program.get_build_info(device, cl.program_build_info.LOG).strip()
            except cl.Error:
                build_log = ""
            _write_message(stdout, {"built": False, "status": str(e)}, build_log.encode())
        del program
