"""The NVIDIA vendor-file fix (SPEC section 9).

Containers often carry NVIDIA's OpenCL driver (`libnvidia-opencl.so.1`) but no ICD vendor file
(`/etc/OpenCL/vendors/nvidia.icd`) naming it, so the OpenCL loader finds no NVIDIA platform. Before
the first platform enumeration of the process, `apply_nvidia_icd_fix` writes a private vendor folder
with an `nvidia.icd` naming the library's full path plus a copy of every system vendor file, and
points `OCL_ICD_VENDORS` at it. It never overrides a user's `OCL_ICD_VENDORS`. It does not
look at `OCL_ICD_FILENAMES`: the ocl-icd loader in PyOpenCL's wheel ignores that variable (seen
on the H100 machine, whose image sets `OCL_ICD_FILENAMES=libpocl.so.2:libnvidia-opencl.so.1`
and still lists no NVIDIA platform without the fix).

PoCL from pip (pocl-binary-distribution) is not registered in any vendor folder: it puts
`pocl.icd` into `pyopencl/.libs`, and the ocl-icd loader shipped in PyOpenCL's wheel reads
`$PYOPENCL_HOME/.libs` (set by `import pyopencl`) in addition to `OCL_ICD_VENDORS` or
`/etc/OpenCL/vendors`, so the fix does not hide it.

The loader reads these variables once, at the first `clGetPlatformIDs`; so pyopencl must be
imported through `gpurts.opencl.load_opencl()`, never directly, by every part of unpy.
"""
from __future__ import annotations

import logging
import os
import shutil
import stat
import subprocess
import tempfile
from dataclasses import dataclass
from typing import Iterable, Mapping, MutableMapping

log = logging.getLogger("gpurts")

NVIDIA_LIBRARY = "libnvidia-opencl.so.1"
SYSTEM_VENDORS_DIR = "/etc/OpenCL/vendors"
COMMON_LIBRARY_DIRS = (
    "/usr/lib/x86_64-linux-gnu",
    "/usr/local/nvidia/lib64",
    "/usr/local/nvidia/lib",
    "/usr/lib64",
    "/usr/lib",
    "/usr/lib/aarch64-linux-gnu",
)


def ldconfig_listing() -> str:
    """The text of `ldconfig -p`, or '' where it cannot be run."""
    exe = shutil.which("ldconfig", path=os.pathsep.join([os.environ.get("PATH", ""), "/sbin",
                                                         "/usr/sbin"]))
    if exe is None:
        return ""
    try:
        return subprocess.run([exe, "-p"], capture_output=True, text=True, timeout=5).stdout
    except (OSError, subprocess.SubprocessError):
        return ""


def find_nvidia_library(listing: str, search_dirs: Iterable[str]) -> str | None:
    """Full path of `libnvidia-opencl.so.1`: from an `ldconfig -p` listing (64-bit entries
    first), else the first of `search_dirs` that holds it."""
    found = []
    for line in listing.splitlines():
        name, _, path = line.strip().partition(" => ")
        if name.split(" ", 1)[0] == NVIDIA_LIBRARY and os.path.isfile(path.strip()):
            found.append((("64" not in name), path.strip()))
    if found:
        return min(found, key=lambda f: f[0])[1]   # ldconfig's order among 64-bit entries
    for folder in search_dirs:
        path = os.path.join(folder, NVIDIA_LIBRARY)
        if os.path.isfile(path):
            return os.path.abspath(path)
    return None


def _vendor_files(vendors_dir: str) -> dict[str, str]:
    """name -> contents of the `.icd` files of a vendor folder (empty when it does not exist)."""
    try:
        names = sorted(n for n in os.listdir(vendors_dir) if n.endswith(".icd"))
    except OSError:
        return {}
    files = {}
    for name in names:
        try:
            with open(os.path.join(vendors_dir, name)) as f:
                files[name] = f.read()
        except OSError:
            continue
    return files


@dataclass(frozen=True)
class VendorFolderPlan:
    """What the private vendor folder must hold: file name -> contents."""
    folder: str
    files: dict[str, str]
    library: str


def plan_vendor_folder(environ: Mapping[str, str], nvidia_library: str | None,
                       system_vendors_dir: str, folder: str) -> VendorFolderPlan | None:
    """Decide whether the loader needs a private vendor folder, and what goes in it.

    None when the user chose the vendor folder (`OCL_ICD_VENDORS`), when there is no NVIDIA
    library, or when a system vendor file already names it. Otherwise the plan holds
    `nvidia.icd` with the library's full path and a copy of every system vendor file, so the
    platforms found today stay found."""
    if environ.get("OCL_ICD_VENDORS") or not nvidia_library:
        return None
    system = _vendor_files(system_vendors_dir)
    if any("libnvidia-opencl" in contents for contents in system.values()):
        return None
    files = {name: contents for name, contents in system.items() if name != "nvidia.icd"}
    files["nvidia.icd"] = nvidia_library + "\n"
    return VendorFolderPlan(folder, files, nvidia_library)


def private_folder() -> str:
    """The default place of the private vendor folder, one per user."""
    return os.path.join(tempfile.gettempdir(), f"unpy-ocl-vendors-{os.getuid()}")


def _usable_private_folder(path: str) -> bool:
    """A folder the loader may trust: ours, a real directory, not writable by others."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        try:
            os.mkdir(path, 0o700)
        except OSError:
            return False
        st = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid() and not st.st_mode & 0o022


def write_vendor_folder(plan: VendorFolderPlan) -> str:
    """Write the plan's files (atomically, removing stale `.icd` files) and return the folder:
    `plan.folder`, or a fresh one from `tempfile.mkdtemp` when that path is not safely ours."""
    folder = plan.folder if _usable_private_folder(plan.folder) else tempfile.mkdtemp(
        prefix="unpy-ocl-vendors-")
    for stale in set(_vendor_files(folder)) - set(plan.files):
        os.unlink(os.path.join(folder, stale))
    for name, contents in plan.files.items():
        fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
        with os.fdopen(fd, "w") as f:
            f.write(contents)
        os.replace(tmp, os.path.join(folder, name))
    return folder


def apply_nvidia_icd_fix(environ: MutableMapping[str, str] = os.environ,
                         listing: str | None = None,
                         search_dirs: Iterable[str] | None = None,
                         system_vendors_dir: str | None = None,
                         folder: str | None = None) -> str | None:
    """Point the OpenCL loader at NVIDIA's library when no vendor file names it; returns what was
    done (a sentence) or None. The keyword arguments exist for tests; by default they come from
    the system. Never raises: a fix that cannot be written leaves the loader as it was."""
    if environ.get("OCL_ICD_VENDORS"):
        return None
    if search_dirs is None:
        search_dirs = [*COMMON_LIBRARY_DIRS,
                       *filter(None, environ.get("LD_LIBRARY_PATH", "").split(os.pathsep))]
    if system_vendors_dir is None:
        system_vendors_dir = environ.get("OPENCL_VENDOR_PATH") or SYSTEM_VENDORS_DIR
    library = find_nvidia_library(ldconfig_listing() if listing is None else listing, search_dirs)
    plan = plan_vendor_folder(environ, library, system_vendors_dir, folder or private_folder())
    if plan is None:
        return None
    try:
        written = write_vendor_folder(plan)
    except OSError as e:
        log.info("gpurts: could not write an OpenCL vendor folder for %s: %s", plan.library, e)
        return None
    environ["OCL_ICD_VENDORS"] = written
    note = f"pointed the OpenCL loader at {plan.library} (OCL_ICD_VENDORS={written})"
    log.info("gpurts: %s", note)
    return note
