from pathlib import Path

import pytest

from modulepair import gpu_pair


@pytest.fixture(scope="session")
def spaces(tmp_path_factory):
    """tests/jitgpu/loopopt/space_kernels.py, compiled and interpreted."""
    return gpu_pair(Path(__file__).parent / "space_kernels.py",
                    tmp_path_factory.mktemp("build-space_kernels"))
