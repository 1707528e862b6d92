"""docs/supported.md stays true: every NumPy function and method it lists is used by the
tested kernels (tests/kernels/numpy_exprs.py, numpy_calls.py, complex_numbers.py,
python_forms.py, python_calls.py and iteration.py, and the corpus's kernels that are not pending, each compared with the
interpreter on both paths)."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "supported.md"
PENDING = {line.split(":")[0] for line in
           (ROOT / "tests" / "corpus" / "pending.txt").read_text().splitlines()
           if line and not line.startswith("#")}
KERNELS = ([ROOT / "tests" / "kernels" / name
            for name in ("numpy_exprs.py", "numpy_calls.py", "complex_numbers.py",
                         "python_forms.py", "python_calls.py", "iteration.py")]
           + [k for k in sorted((ROOT / "tests" / "corpus" / "kernels").glob("*.py"))
              if k.stem not in PENDING])


def listed_functions():
    """`np.<name>` and `a.<method>()` in the doc's tables."""
    names = set()
    for line in DOC.read_text().splitlines():
        if line.startswith("|"):
            first = line.split("|")[1]
            names |= {f"np.{n}" for n in re.findall(r"`np\.([a-z_.0-9]+)", first)}
            names |= {f".{m}(" for m in re.findall(r"`a\.([a-z_]+)\(", first)}
    return names


def test_every_listed_numpy_function_is_tested():
    source = "".join(k.read_text() for k in KERNELS)
    listed = listed_functions()
    assert len(listed) > 60
    missing = sorted(n for n in listed if n not in source)
    assert not missing, f"docs/supported.md lists functions no test kernel uses: {missing}"
