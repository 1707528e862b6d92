"""The one door to pyopencl. Every part of unpy gets the module from `load_opencl()`, so the
vendor-file fix (`gpurts.icd`) runs before the OpenCL loader first reads its vendor files,
and a missing or broken OpenCL becomes a reason, never an exception."""
from __future__ import annotations

import threading

from .icd import apply_icd_fix

_lock = threading.Lock()
_loaded: tuple | None = None      # (pyopencl module or None, reason or None)
_platforms: tuple | None = None   # (list of cl.Platform, reason or None)
icd_fix_note: str | None = None   # what the vendor-file fix did in this process, if anything


def load_opencl():
    """(pyopencl, None), or (None, why it cannot be used). Cached for the process."""
    global _loaded, icd_fix_note
    with _lock:
        if _loaded is None:
            icd_fix_note = apply_icd_fix()
            try:
                import pyopencl
                import pyopencl.tools  # noqa: F401  (MemoryPool, ImmediateAllocator)
                _loaded = (pyopencl, None)
            except Exception as e:  # ImportError, or a broken shared library underneath it
                _loaded = (None, f"pyopencl cannot be imported ({type(e).__name__}: {e}; "
                                 "pip install 'unpy[gpu]')")
        return _loaded


def platforms():
    """(platforms, None), or ([], why none can be listed). Cached: the loader enumerates once."""
    global _platforms
    cl, reason = load_opencl()
    with _lock:
        if _platforms is None:
            if cl is None:
                _platforms = ([], reason)
            else:
                try:
                    found = cl.get_platforms()
                    _platforms = (found, None if found else "no OpenCL platform found")
                except Exception as e:  # e.g. clGetPlatformIDs -1001 PLATFORM_NOT_FOUND_KHR
                    _platforms = ([], f"no OpenCL platform found ({type(e).__name__}: {e})")
        return _platforms
