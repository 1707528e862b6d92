"""Type aliases (issue 6 item 5): a module whose signatures name module-level string constants
builds and runs as the interpreter does."""
import numpy as np
import pytest

import diffcheck


@pytest.fixture(scope="module")
def aliases_kernels(tmp_path_factory):
    return diffcheck.load_kernel_pair("aliases", tmp_path_factory.mktemp("build-aliases"))


def test_aliased_signatures(aliases_kernels):
    rng = np.random.default_rng(5)
    a, b = rng.random((5, 3)), rng.random((3, 4))
    aliases_kernels.check("matmul", a, b, np.zeros((5, 4)))


def test_alias_concatenation_and_aliased_local(aliases_kernels):
    a = np.random.default_rng(6).random((4, 7)).astype(np.float32)
    aliases_kernels.check("row_sums", a, np.zeros(4, np.float32))


def test_aliased_types_are_enforced(aliases_kernels):
    with pytest.raises(TypeError, match="expected ndarray\\[float32, 2\\]"):
        aliases_kernels.compiled.row_sums(np.zeros((2, 2)), np.zeros(2, np.float32))
