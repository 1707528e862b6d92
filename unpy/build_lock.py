"""One build of a module at a time: processes (and threads) building the same source file wait
for the one that builds it, then find its result in the build cache instead of compiling again.

`one_build_at_a_time` wraps `unpy.cpp_emit.build.build`. The lock is an fcntl lock on a file
in `UNPY_CACHE_DIR/build-locks`, one per source path, so the operating system releases it when
the process holding it ends, however it ends. Where no lock file can be made (an unusable cache
folder) the build goes ahead unlocked and reports the folder itself.
"""
from __future__ import annotations

import fcntl
import functools
import hashlib
import os
import threading
from contextlib import contextmanager
from pathlib import Path

_held = threading.local()      # the lock files this thread holds (a build inside a build)


def lock_path(source: str) -> Path:
    from unpy.cpp_emit.build import cache_dir
    name = hashlib.sha256(os.path.abspath(source).encode()).hexdigest()[:24]
    return cache_dir().parent / "build-locks" / f"{Path(source).stem}-{name}.lock"


@contextmanager
def build_lock(source: str, progress=None):
    """Held while this process builds `source`; waits (saying so through `progress`, if given)
    while another process or thread builds it."""
    path = lock_path(source)
    held = _held.__dict__.setdefault("paths", set())
    if path in held:
        yield
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        f = open(path, "a+")
    except OSError:
        yield       # the build names the unusable cache folder
        return
    with f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if progress:
                f.seek(0)
                who = f.read().strip()
                progress(f"waiting for another build of this module"
                         f"{f' (process {who})' if who.isdigit() else ''} ...")
            fcntl.flock(f, fcntl.LOCK_EX)
        held.add(path)
        try:
            f.seek(0)
            f.truncate()
            f.write(str(os.getpid()))
            f.flush()
            yield
        finally:
            held.discard(path)
            fcntl.flock(f, fcntl.LOCK_UN)


def one_build_at_a_time(build):
    """`build(path, ..., progress=None)` under `build_lock(path)`."""
    @functools.wraps(build)
    def locked(path, *args, **kwargs):
        progress = kwargs.get("progress")
        if progress is None and len(args) >= 4:
            progress = args[3]
        with build_lock(path, progress):
            return build(path, *args, **kwargs)
    return locked
