"""Files written so that a reader in another process sees all of them or none: the build
cache's (unpy/cpp_emit/build.py) and the runtime's caches (gpurts)."""
from __future__ import annotations

import os
import tempfile


def write_atomically(path: str, data: bytes) -> None:
    """Write `data` to `path` so that a reader in another process sees all of it or none (the
    folder made if missing). Raises OSError."""
    folder = os.path.dirname(path)
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
