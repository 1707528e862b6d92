"""The share of nests the GPU path offloads over a generated population of small nests (issue
24): every nest of a seeded generator's programs, each a mix of the shapes that were once
refused (sibling loops over one name, guarded and clamped indices, negative indices, loop bounds
read from arrays, empty and triangular loops, helpers of scalars), runs on the device and
matches the interpreter; a nest left on OpenMP must give a reason that names a real obstacle."""
import random
import re
from pathlib import Path

import numpy as np
import pytest

from modulepair import gpu_pair

SEED = 24
NESTS = 24

# Statements of the body of `for i in prange(n)`; a: (n, m) input, b: (n, m) output (row i
# only), ptr: (n + 1,) row starts into idx, idx: column numbers < m; n >= 3 and m >= 3 where
# the loop runs. {c}: a small constant.
PIECES = [
    ["for j in range({c}, m):",
     "    b[i, j] += a[i, j - {c}]",
     "for j in range(m - 1 - {c}, -1, -1):",
     "    b[i, j] += a[i, j + {c}]"],
    ["for j in range(m):",
     "    if j - {c} >= 0:",
     "        b[i, j] += a[i, j - {c}]"],
    ["b[i, 0] += a[i - {c}, -1] + a[-1 - i, -{c}]"],
    ["for j in range(m):",
     "    b[i, j] += a[min(i + 1, n - 1), max(j - {c}, 0)]"],
    ["for p in range(ptr[i], ptr[i + 1]):",
     "    b[i, 0] += a[i, idx[p]]"],
    ["for j in range({c}, {c}):",
     "    for k in range(j, m):",
     "        b[i, k] += 1.0"],
    ["for j in range(m):",
     "    b[i, j] += a[(i + {c}) % n, j]"],
    ["for j in range(m):",
     "    b[i, j] += a[i, j - 1] if j > 0 else 0.5"],
    ["b[i, {c}] = twice(b[i, {c}])"],
    ["for j in range(m):",
     "    for k in range(j):",
     "        b[i, j] += a[i, j - k - 1]"],
]

# What may keep a nest of this population on OpenMP: nothing but an empty iteration space.
REAL_OBSTACLES = re.compile(r"the parallel loop has no iterations")


def population(seed: int = SEED, count: int = NESTS) -> str:
    """The source of a module of `count` @gpu functions, one nest each, of 1 to 3 pieces."""
    rng = random.Random(seed)
    lines = ["import unpython", "from unpython import prange", "", "",
             "@unpython.type('float64', 'float64')", "def twice(x):", "    return 2.0 * x", ""]
    for k in range(count):
        body = []
        for _ in range(rng.randint(1, 3)):
            c = rng.randint(1, 2)
            body += ["        " + line.format(c=c) for line in rng.choice(PIECES)]
        lines += ["", "@unpython.gpu",
                  "@unpython.type('ndarray[float64,2]', 'ndarray[float64,2]', "
                  "'ndarray[int64,1]', 'ndarray[int64,1]', None)",
                  f"def nest{k}(a, b, ptr, idx):", "    n, m = a.shape",
                  "    for i in prange(n):", *body, ""]
    return "\n".join(lines)


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    folder = tmp_path_factory.mktemp("generated")
    path = folder / "generated_nests.py"
    path.write_text(population())
    return gpu_pair(path, folder / "build")


def arguments(n: int, m: int, rng):
    counts = rng.integers(0, 4, n)
    ptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    idx = rng.integers(0, m, max(ptr[-1], 1)).astype(np.int64)
    return rng.random((n, m)), rng.random((n, m)), ptr, idx


def test_every_generated_nest_offloads(generated):
    rng = np.random.default_rng(SEED)
    offloaded, left = 0, []
    for k in range(NESTS):
        for n, m in [(5, 6), (3, 3), (0, 4)]:
            _, report = generated.check(f"nest{k}", *arguments(n, m, rng), rtol=1e-12,
                                        ran_on=None)
            for nest in report.nests:
                if nest.ran_on.startswith("opencl:"):
                    offloaded += 1
                else:
                    left.append((f"nest{k}", n, m, nest.reason))
    total = offloaded + len(left)
    share = offloaded / total
    print(f"offloaded {offloaded} of {total} nest calls ({share:.0%})")
    assert all(REAL_OBSTACLES.search(reason) for *_, reason in left), left
    # The calls with n == 0 have nothing to run; every other call runs on the device.
    assert [(n, m) for _, n, m, _ in left] == [(0, 4)] * NESTS, left
