"""The packages' layering (issue 20): planning (jitgpu/plan.py, jitgpu/overlap.py, jitgpu/lmad
and every module of unpy or jitgpu they import, at the top of a module or inside a function)
imports nothing from gpurts, the runtime; gpurts imports nothing from jitgpu. What both need
lives in unpy (unpy/host_memory.py). unpy imports nothing from jitgpu (issue 22): the loop
optimisations both back ends share live in unpy/loopopt, and jitgpu consumes them. Read from the source with ast, so that an import inside a
function that no test happens to run counts as well."""
import ast
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PLANNING = ("jitgpu.plan", "jitgpu.overlap", "jitgpu.lmad")


def _source(module: str):
    path = REPO.joinpath(*module.split("."))
    for found in (path.with_suffix(".py"), path / "__init__.py"):
        if found.is_file():
            return found
    return None


def imports_of(module: str) -> set:
    """The modules `module`'s source imports anywhere in it (relative imports resolved; `from
    package import name` counts `package.name` too where that is a module)."""
    path = _source(module)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(parent + ([base] if base else []))
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names
                         if _source(f"{base}.{alias.name}") is not None)
    return found


def _package(module: str) -> str:
    return module.split(".")[0]


def imported_closure(roots, within=("jitgpu", "unpy")) -> dict:
    """{module: the module that first imported it} of `roots` and, transitively, every module of
    the packages `within` they import (a package's __init__ included)."""
    seen, todo = {}, [(root, None) for root in roots]
    while todo:
        module, via = todo.pop()
        if module in seen:
            continue
        seen[module] = via
        if _package(module) in within and _source(module) is not None:
            parts = module.split(".")
            todo += [(".".join(parts[:k]), module) for k in range(1, len(parts))]
            todo += [(m, module) for m in imports_of(module)]
    return seen


def test_planning_imports_nothing_from_gpurts():
    closure = imported_closure(PLANNING + tuple(
        f"jitgpu.lmad.{p.stem}" for p in (REPO / "jitgpu" / "lmad").glob("*.py")))
    wrong = sorted(f"{closure[m]} imports {m}" for m in closure if _package(m) == "gpurts")
    assert wrong == []


def test_gpurts_imports_nothing_from_jitgpu():
    modules = ["gpurts." + p.stem for p in (REPO / "gpurts").glob("*.py") if p.stem != "__init__"]
    closure = imported_closure(["gpurts", *modules], within=("gpurts", "unpy"))
    wrong = sorted(f"{closure[m]} imports {m}" for m in closure if _package(m) == "jitgpu")
    assert wrong == []


def test_unpy_imports_nothing_from_jitgpu():
    modules = [".".join(("unpy",) + p.relative_to(REPO / "unpy").with_suffix("").parts)
               for p in (REPO / "unpy").rglob("*.py")]
    closure = imported_closure([m.removesuffix(".__init__") for m in modules], within=("unpy",))
    wrong = sorted(f"{closure[m]} imports {m}" for m in closure if _package(m) == "jitgpu")
    assert wrong == []


def test_the_check_sees_imports_inside_functions(tmp_path, monkeypatch):
    """(The test of the test: plan.py used to import gpurts inside its functions.)"""
    package = tmp_path / "jitgpu"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "planner.py").write_text("def f():\n    from gpurts.executor import x\n")
    monkeypatch.setattr(sys.modules[__name__], "REPO", tmp_path)
    assert "gpurts.executor" in imported_closure(["jitgpu.planner"])
