"""The vendor-file fix (NVIDIA's driver, Intel's pip CPU runtime): the decision, the folder, and
that PoCL stays visible."""
import os

import pytest

from gpurts.icd import (INTEL_CPU_LIBRARY, NVIDIA_LIBRARY, apply_icd_fix,
                        find_intel_cpu_library, find_nvidia_library, plan_vendor_folder,
                        private_folder, write_vendor_folder)


def fake_library(folder, name=NVIDIA_LIBRARY):
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_bytes(b"not a real library")
    return str(path)


def test_find_library_from_ldconfig_prefers_64_bit(tmp_path):
    lib64 = fake_library(tmp_path / "lib64")
    lib32 = fake_library(tmp_path / "lib32")
    listing = (f"3 libs found in cache `/etc/ld.so.cache'\n"
               f"\t{NVIDIA_LIBRARY} (libc6) => {lib32}\n"
               f"\t{NVIDIA_LIBRARY} (libc6,x86-64) => {lib64}\n"
               f"\tlibc.so.6 (libc6,x86-64) => /lib/x86_64-linux-gnu/libc.so.6\n")
    assert find_nvidia_library(listing, []) == lib64


def test_find_library_skips_missing_paths_and_searches_dirs(tmp_path):
    lib = fake_library(tmp_path / "nvidia" / "lib64")
    listing = f"\t{NVIDIA_LIBRARY} (libc6,x86-64) => {tmp_path}/gone/{NVIDIA_LIBRARY}\n"
    dirs = [str(tmp_path / "empty"), str(tmp_path / "nvidia/lib64")]
    assert find_nvidia_library(listing, dirs) == lib
    assert find_nvidia_library("", [str(tmp_path / "empty")]) is None


def test_plan_names_library_and_keeps_system_vendor_files(tmp_path):
    lib = fake_library(tmp_path / "lib")
    vendors = tmp_path / "vendors"
    vendors.mkdir()
    (vendors / "pocl.icd").write_text("libpocl.so.2\n")
    (vendors / "intel.icd").write_text("/opt/intel/libintelocl.so\n")
    (vendors / "README").write_text("not a vendor file")
    plan = plan_vendor_folder({}, {"nvidia.icd": lib}, str(vendors), str(tmp_path / "private"))
    assert plan.files == {"nvidia.icd": lib + "\n", "pocl.icd": "libpocl.so.2\n",
                          "intel.icd": "/opt/intel/libintelocl.so\n"}
    assert plan.folder == str(tmp_path / "private")


def test_plan_without_system_folder_has_only_nvidia(tmp_path):
    lib = fake_library(tmp_path / "lib")
    plan = plan_vendor_folder({}, {"nvidia.icd": lib}, str(tmp_path / "no-such-dir"),
                              str(tmp_path / "p"))
    assert plan.files == {"nvidia.icd": lib + "\n"}


def test_no_plan_when_user_chose_vendors_or_nothing_to_fix(tmp_path):
    lib = {"nvidia.icd": fake_library(tmp_path / "lib")}
    folder = str(tmp_path / "p")
    assert plan_vendor_folder({"OCL_ICD_VENDORS": "/mine"}, lib, "/nonexistent", folder) is None
    # The loader in PyOpenCL's wheel ignores OCL_ICD_FILENAMES: it is no reason to leave things.
    assert plan_vendor_folder({"OCL_ICD_FILENAMES": "/x.so"}, lib, "/nonexistent", folder)
    assert plan_vendor_folder({}, {"nvidia.icd": None}, "/nonexistent", folder) is None
    vendors = tmp_path / "vendors"
    vendors.mkdir()
    (vendors / "nvidia.icd").write_text("libnvidia-opencl.so.1\n")
    assert plan_vendor_folder({}, lib, str(vendors), folder) is None


def test_plan_registers_intel_cpu_runtime_beside_nvidia(tmp_path):
    """Intel's runtime from pip: its library in the environment's lib folder, named by no vendor
    file (the wheel's own names a placeholder path); a system vendor file naming it wins."""
    assert find_intel_cpu_library(str(tmp_path)) is None
    intel = fake_library(tmp_path / "lib", INTEL_CPU_LIBRARY)
    assert find_intel_cpu_library(str(tmp_path)) == intel
    nvidia = fake_library(tmp_path / "nv")
    libraries = {"nvidia.icd": nvidia, "intel-cpu.icd": intel}
    plan = plan_vendor_folder({}, libraries, str(tmp_path / "none"))
    assert plan.files == {"nvidia.icd": nvidia + "\n", "intel-cpu.icd": intel + "\n"}
    assert plan.libraries == (nvidia, intel) and plan.folder == private_folder(plan.files)
    vendors = tmp_path / "vendors"
    vendors.mkdir()
    (vendors / "intel64.icd").write_text("/opt/intel/oneapi/lib/libintelocl.so\n")
    plan = plan_vendor_folder({}, libraries, str(vendors))
    assert plan.libraries == (nvidia,) and "intel-cpu.icd" not in plan.files


def test_private_folder_differs_with_contents():
    """Two virtual environments (two Intel library paths) never share, so never rewrite, one
    folder; the same contents always land in the same folder."""
    a, b = {"intel-cpu.icd": "/venv-a/lib/libintelocl.so\n"}, {"intel-cpu.icd": "/b\n"}
    assert private_folder(a) == private_folder(dict(a)) != private_folder(b)


def test_write_folder_replaces_stale_files(tmp_path):
    lib = fake_library(tmp_path / "lib")
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    (private / "old.icd").write_text("libold.so\n")
    plan = plan_vendor_folder({}, {"nvidia.icd": lib}, str(tmp_path / "none"), str(private))
    assert write_vendor_folder(plan) == str(private)
    assert sorted(os.listdir(private)) == ["nvidia.icd"]
    assert (private / "nvidia.icd").read_text() == lib + "\n"


def test_write_folder_refuses_a_symlink(tmp_path):
    lib = fake_library(tmp_path / "lib")
    (tmp_path / "elsewhere").mkdir()
    os.symlink(tmp_path / "elsewhere", tmp_path / "link")
    plan = plan_vendor_folder({}, {"nvidia.icd": lib}, str(tmp_path / "none"),
                              str(tmp_path / "link"))
    written = write_vendor_folder(plan)
    assert written != str(tmp_path / "link")
    assert os.listdir(tmp_path / "elsewhere") == []
    assert os.listdir(written) == ["nvidia.icd"]


def test_apply_sets_vendors_once_and_respects_user(tmp_path):
    lib = fake_library(tmp_path / "lib")
    environ = {}
    args = dict(listing="", search_dirs=[str(tmp_path / "lib")], prefix=str(tmp_path / "venv"),
                system_vendors_dir=str(tmp_path / "none"), folder=str(tmp_path / "private"))
    note = apply_icd_fix(environ, **args)
    assert lib in note and environ["OCL_ICD_VENDORS"] == str(tmp_path / "private")
    assert apply_icd_fix(environ, **args) is None   # now set: left alone
    assert apply_icd_fix({"OCL_ICD_VENDORS": "/mine"}, **args) is None
    assert apply_icd_fix({}, **{**args, "search_dirs": []}) is None
    intel = fake_library(tmp_path / "venv" / "lib", INTEL_CPU_LIBRARY)
    environ = {}
    note = apply_icd_fix(environ, **{**args, "search_dirs": []})
    assert intel in note and os.listdir(environ["OCL_ICD_VENDORS"]) == ["intel-cpu.icd"]


def test_fix_keeps_pip_pocl_visible(tmp_path, run_python):
    """With the fix applied (a fake NVIDIA library the loader cannot open), the loader reads the
    private folder and PyOpenCL's own ICD folder, so PoCL from pip is still listed."""
    pytest.importorskip("pocl_binary_distribution")
    fake_library(tmp_path / "lib")
    done = run_python(f"""
from gpurts import icd
print(icd.apply_icd_fix(listing='', search_dirs=[{str(tmp_path / 'lib')!r}],
      system_vendors_dir={str(tmp_path / 'none')!r}, folder={str(tmp_path / 'private')!r}))
from gpurts.opencl import platforms
print([p.name for p in platforms()[0]])
""", OCL_ICD_DEBUG="15")
    assert "pointed the OpenCL loader" in done.stdout
    assert f"Reading icd list from '{tmp_path / 'private'}'" in done.stderr
    assert "Portable Computing Language" in done.stdout


def test_pip_intel_cpu_runtime_is_listed(run_python):
    """intel-opencl-rt from pip (the test extra): the fix registers it, the loader lists it."""
    import sys
    if find_intel_cpu_library(sys.prefix) is None:
        pytest.skip("intel-opencl-rt is not installed in this environment")
    done = run_python("""
from gpurts import opencl
print([p.name for p in opencl.platforms()[0]], opencl.icd_fix_note)
""")
    assert "'Intel(R) OpenCL'" in done.stdout and INTEL_CPU_LIBRARY in done.stdout
