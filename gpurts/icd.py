"""The vendor-file fix (SPEC section 9): drivers present but named by no ICD vendor file.

Two drivers are often there without a vendor file naming them, so the OpenCL loader lists no
platform for them:
- NVIDIA's driver (`libnvidia-opencl.so.1`) in containers without `/etc/OpenCL/vendors/nvidia.icd`;
- Intel's CPU runtime installed by pip (`intel-opencl-rt`, the `test` extra), whose library lands in
  `<sys.prefix>/lib/libintelocl.so` and whose own vendor file names a placeholder path.
Before the first platform enumeration of the process, `apply_icd_fix` writes a private vendor
folder with a vendor file naming each such library's full path plus a copy of every system vendor
file, and points `OCL_ICD_VENDORS` at it. It never overrides a user's `OCL_ICD_VENDORS`. It does not
look at `OCL_ICD_FILENAMES`: the ocl-icd loader in PyOpenCL's wheel ignores that variable (seen
on the H100 machine, whose image sets `OCL_ICD_FILENAMES=libpocl.so.2:libnvidia-opencl.so.1`
and still lists no NVIDIA platform without the fix).

PoCL from pip (pocl-binary-distribution) is not registered in any vendor folder: it puts
`pocl.icd` into `pyopencl/.libs`, and the ocl-icd loader shipped in PyOpenCL's wheel reads
`$PYOPENCL_HOME/.libs` (set by `import pyopencl`) in addition to `OCL_ICD_VENDORS` or
`/etc/OpenCL/vendors`, so the fix does not hide it. The private folder's name carries a hash of
its contents, so processes of different virtual environments never rewrite each other's folder.

The loader reads these variables once, at the first `clGetPlatformIDs`; so pyopencl must be
imported through `gpurts.opencl.load_opencl()`, never directly, by every part of unpy.
"""
from __future__ import annotations

import hashlib
import logging
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from typing import Iterable, Mapping, MutableMapping

log = logging.getLogger("gpurts")

NVIDIA_LIBRARY = "libnvidia-opencl.so.1"
INTEL_CPU_LIBRARY = "libintelocl.so"
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


def find_intel_cpu_library(prefix: str) -> str | None:
    """Full path of Intel's CPU runtime installed by pip into `prefix` (a virtual environment or
    the interpreter's own prefix), or None."""
    path = os.path.join(prefix, "lib", INTEL_CPU_LIBRARY)
    return path if os.path.isfile(path) else None


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
    libraries: tuple[str, ...]   # the libraries the fix registers


def plan_vendor_folder(environ: Mapping[str, str], libraries: Mapping[str, str | None],
                       system_vendors_dir: str, folder: str | None = None
                       ) -> VendorFolderPlan | None:
    """Decide whether the loader needs a private vendor folder, and what goes in it.

    `libraries` maps a vendor file name (`nvidia.icd`) to the full path of a driver found on this
    machine, or None. A library needs registering when no system vendor file names it already
    (by file name). None when the user chose the vendor folder (`OCL_ICD_VENDORS`) or nothing
    needs registering. Otherwise the plan holds a vendor file for each library that needs it and
    a copy of every system vendor file, so the platforms found today stay found; its folder is
    `folder`, by default `private_folder(files)`."""
    if environ.get("OCL_ICD_VENDORS"):
        return None
    system = _vendor_files(system_vendors_dir)
    missing = {icd: path for icd, path in libraries.items() if path and not any(
        os.path.basename(path).split(".so")[0] in contents for contents in system.values())}
    if not missing:
        return None
    files = {**system, **{icd: path + "\n" for icd, path in missing.items()}}
    return VendorFolderPlan(folder or private_folder(files), files, tuple(missing.values()))


def private_folder(files: Mapping[str, str]) -> str:
    """The default place of the private vendor folder: one per user and per contents."""
    digest = hashlib.sha256(repr(sorted(files.items())).encode()).hexdigest()[:12]
    return os.path.join(tempfile.gettempdir(), f"unpy-ocl-vendors-{os.getuid()}-{digest}")


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


def apply_icd_fix(environ: MutableMapping[str, str] = os.environ,
                  listing: str | None = None,
                  search_dirs: Iterable[str] | None = None,
                  system_vendors_dir: str | None = None,
                  folder: str | None = None,
                  prefix: str = sys.prefix) -> str | None:
    """Point the OpenCL loader at NVIDIA's driver and at Intel's pip-installed CPU runtime when no
    vendor file names them; returns what was done (a sentence) or None. The keyword arguments
    exist for tests; by default they come from the system. Never raises: a fix that cannot be
    written leaves the loader as it was."""
    if environ.get("OCL_ICD_VENDORS"):
        return None
    if search_dirs is None:
        search_dirs = [*COMMON_LIBRARY_DIRS,
                       *filter(None, environ.get("LD_LIBRARY_PATH", "").split(os.pathsep))]
    if system_vendors_dir is None:
        system_vendors_dir = environ.get("OPENCL_VENDOR_PATH") or SYSTEM_VENDORS_DIR
    libraries = {
        "nvidia.icd": find_nvidia_library(ldconfig_listing() if listing is None else listing,
                                          search_dirs),
        "intel-cpu.icd": find_intel_cpu_library(prefix),
    }
    plan = plan_vendor_folder(environ, libraries, system_vendors_dir, folder)
    if plan is None:
        return None
    names = " and ".join(plan.libraries)
    try:
        written = write_vendor_folder(plan)
    except OSError as e:
        log.info("gpurts: could not write an OpenCL vendor folder for %s: %s", names, e)
        return None
    environ["OCL_ICD_VENDORS"] = written
    note = f"pointed the OpenCL loader at {names} (OCL_ICD_VENDORS={written})"
    log.info("gpurts: %s", note)
    return note
