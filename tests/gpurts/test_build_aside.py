"""Builds in the device's build process (gpurts/build_aside.py), on the tested device: the
child builds, this process loads the binary and runs it; a build error comes back with its log;
a child that died is started again; one that cannot serve the device sends the builds back
here for good."""
import types

import numpy as np
import pytest

from gpurts import BuildError
from gpurts.build_aside import BuildAside
from gpurts.kernel_cache import build_program

from test_kernel_cache import SOURCE, run_scale


@pytest.fixture
def aside(device):
    builder = BuildAside(device)
    yield builder
    builder.stop()


def test_the_child_builds_and_this_process_runs_it(device, aside):
    from gpurts.opencl import load_opencl
    cl, _ = load_opencl()
    binary = aside.build(SOURCE, ["-DFACTOR=2.0"])
    assert binary and aside.unusable is None
    program = build_program(device, ["-DFACTOR=2.0"], binary=binary)
    assert np.all(run_scale(device, cl.Kernel(program, "scale"))[1:] == 6.0)
    # the same child serves the next build
    child = aside._child
    assert aside.build(SOURCE, ["-DFACTOR=1.0"]) and aside._child is child


def test_a_build_error_brings_its_log(device, aside):
    with pytest.raises(BuildError) as caught:
        aside.build(SOURCE.replace("*=", "*= ;"), [])
    assert device.label in str(caught.value) and "error" in caught.value.log.lower()
    assert aside.unusable is None and aside.build(SOURCE, ["-DFACTOR=2.0"])


def test_a_child_that_died_is_started_again(aside):
    assert aside.build(SOURCE, ["-DFACTOR=2.0"])
    aside._child.kill()
    aside._child.wait()
    assert aside.build(SOURCE, ["-DFACTOR=3.0"]) and aside.unusable is None


def test_a_child_that_lists_another_device_sends_builds_back(device):
    """The child finds the device by its place in the loader's list and checks its name."""
    renamed = types.SimpleNamespace(cl_device=device.cl_device, name="not " + device.name,
                                    label=device.label)
    builder = BuildAside(renamed)
    assert builder.build(SOURCE, ["-DFACTOR=2.0"]) is None
    assert "in place of" in builder.unusable and builder._child is None
    assert builder.build(SOURCE, ["-DFACTOR=2.0"]) is None       # not started again


def test_the_kernel_cache_builds_aside(device, cache_dir, aside, monkeypatch):
    """`build_kernel(..., aside=True)`: built by the child, loaded, kept in memory and on disk;
    without `aside` (a call's own build) the child is not asked."""
    from gpurts import build_kernel
    monkeypatch.setattr(type(device), "build_aside", property(lambda self: aside))
    asked = []
    real = aside.build
    monkeypatch.setattr(aside, "build", lambda *a: asked.append(a) or real(*a))
    stats = device.kernel_cache.stats
    builds = stats.builds
    kernel, hit, _ = build_kernel(device, SOURCE, "scale", ["-DFACTOR=5.0"], aside=True)
    assert not hit and stats.builds == builds + 1 and len(asked) == 1
    assert np.all(run_scale(device, kernel)[1:] == 15.0)
    device.kernel_cache.clear_memory()
    _, hit, _ = build_kernel(device, SOURCE, "scale", ["-DFACTOR=5.0"], aside=True)
    assert hit and len(asked) == 1                                 # from the disk entry
    build_kernel(device, SOURCE, "scale", ["-DFACTOR=6.0"])
    assert len(asked) == 1
