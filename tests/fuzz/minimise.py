"""Shrink a failing generated program to a small reproducer: remove top-level statements (with
the blocks they own) and return values one at a time while the program still runs in the
interpreter and the same variant (openmp or gpu) still fails the same way. Each round builds
all of its candidates in one module (one g++ run).

    python -m tests.fuzz.minimise SEED [--variant openmp|gpu] [--features ...]

prints the reduced source, the arguments, the interpreter's result and the compiled one.
"""
from __future__ import annotations

import argparse
import copy
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
for p in (str(HERE), str(HERE.parent), str(HERE.parent.parent)):
    if p not in sys.path:
        sys.path.insert(0, p)

import generate  # noqa: E402
import run  # noqa: E402


def type_of(value) -> str | None:
    """The return type string of a value the interpreter returned."""
    if value is None:
        return None
    if isinstance(value, tuple):
        return "tuple[" + ", ".join(type_of(v) for v in value) + "]"
    if isinstance(value, np.ndarray):
        return f"ndarray[{value.dtype.name}, {value.ndim}]"
    return np.asarray(value).dtype.name


def statements(body: list) -> list:
    """The body as top-level statements, each a list of lines (a line indented by 4 starts
    one)."""
    out = []
    for line in body:
        if line.startswith("    ") and not line.startswith("     "):
            out.append([line])
        else:
            out[-1].append(line)
    return out


def variants(prog) -> list:
    """Programs with one statement or one return value fewer."""
    stmts = statements(prog.body)
    out = []
    for k, s in enumerate(stmts):
        if s[0].strip().startswith("return"):
            values = s[0].strip()[len("return "):].split(", ")
            if len(values) > 1:
                for j in range(len(values)):
                    rest = values[:j] + values[j + 1:]
                    body = [x for st in stmts[:k] for x in st] + [
                        "    return " + ", ".join(rest)]
                    out.append(body)
            out.append([x for st in stmts[:k] for x in st])      # no return at all
            continue
        out.append([x for j, st in enumerate(stmts) if j != k for x in st])
    result = []
    for n, body in enumerate(out):
        p = copy.copy(prog)
        p.body = body or ["    pass"]
        p.name = f"{prog.name}_m{n}"
        result.append(p)
    return result


def _interp_result(prog, workdir: Path):
    """(ok, result) of the interpreter running `prog`."""
    path = workdir / f"interp_{prog.name}.py"
    path.write_text(generate.HEADER + "\n\n" + "\n\n".join(prog.helpers) + "\n\n"
                    + prog.main_source(False))
    try:
        module = run.load_module(f"mini_interp_{prog.name}", path)
        with warnings.catch_warnings(), np.errstate(all="raise", over="ignore"):
            warnings.simplefilter("error")
            warnings.filterwarnings("ignore", "overflow encountered", RuntimeWarning)
            return True, getattr(module, prog.name)(*prog.make_args())
    except Exception:
        return False, None
    finally:
        sys.modules.pop(f"mini_interp_{prog.name}", None)


def outcome(prog, compiled, interp, variant: str):
    """(kind, why, interpreter result, compiled result) of `prog`'s variant: kind is 'ok',
    'mismatch' or 'compiled-raised'."""
    fname = prog.name + ("_gpu" if variant == "gpu" else "")
    args = prog.make_args()
    expected = run.call(getattr(interp, prog.name), args)
    args2 = prog.make_args()
    got = run.call(getattr(compiled, fname), args2)
    if got[0] == "raise":
        return "compiled-raised", repr(got[1]), expected[1], got[1]
    why = run.difference(expected[1], got[1])
    if why is None:
        for k, (a, b) in enumerate(zip(run.observed(args), run.observed(args2))):
            why = run.difference(a, b, f"array argument/buffer {k} after the call")
            if why:
                break
    return ("mismatch" if why else "ok"), why, expected[1], got[1]


def build_candidates(cands, helpers, workdir: Path, name: str):
    from unpy.cpp_emit.build import BuildOptions, build
    path = workdir / f"{name}.py"
    path.write_text(generate.HEADER + "\n\n" + "\n\n".join(helpers) + "\n\n" + "\n\n".join(
        p.main_source(False) + "\n\n" + p.main_source(True) for p in cands) + "\n")
    so = build(str(path), str(workdir / "build"), BuildOptions()).output
    return run.load_module(name, so), run.load_module(f"interp_{name}", path)


def fails(prog, workdir, variant, kind) -> bool:
    compiled, interp = build_candidates([prog], prog.helpers, workdir, f"mini_{prog.name}")
    return outcome(prog, compiled, interp, variant)[0] == kind


def minimise(prog, variant: str, kind: str, workdir: Path, log=print):
    """The smallest program found that still fails (kind, variant)."""
    from unpy.errors import CompileError
    rounds = 0
    while True:
        rounds += 1
        cands = []
        for c in variants(prog):
            ok, value = _interp_result(c, workdir)
            if not ok:
                continue
            try:
                c.ret = type_of(value)
            except Exception:
                continue
            status, _ = run.compile_check(c, workdir)
            if kind == "internal-error":
                if status == "internal":       # no build needed: the translation fails
                    log(f"round {rounds}: {len(c.body)} lines")
                    prog = c
                    break
                continue
            if status == "ok":
                cands.append(c)
        else:
            if kind == "internal-error":
                return prog
        if kind == "internal-error":
            continue
        if not cands:
            return prog
        try:
            compiled, interp = build_candidates(cands, prog.helpers, workdir,
                                                f"mini_{prog.name}_r{rounds}")
        except (CompileError, RuntimeError) as e:
            log(f"round {rounds}: the candidates do not build together ({e}); stop")
            return prog
        for c in cands:
            if outcome(c, compiled, interp, variant)[0] == kind:
                log(f"round {rounds}: {len(c.body)} lines")
                prog = c
                break
        else:
            return prog


def drop_unused_helpers(prog):
    text = "\n".join(prog.body)
    keep = []
    for h in prog.helpers:
        name = h.split("def ", 1)[1].split("(", 1)[0]
        if name in text or any(name in other for other in prog.helpers if other is not h):
            keep.append(h)
    prog.helpers = keep
    return prog


def report(prog, variant, workdir) -> str:
    compiled, interp = build_candidates([prog], prog.helpers, workdir, f"mini_{prog.name}_final")
    kind, why, expected, got = outcome(prog, compiled, interp, variant)
    return (generate.HEADER + "\n\n" + "\n\n".join(prog.helpers) + "\n\n"
            + (("@unpython.gpu\n" if variant == "gpu" else "") + prog.main_source(False))
            + f"\n# arguments: {run.describe_args(prog.make_args())}\n"
            f"# interpreter: {expected!r}\n# compiled ({variant}): {got!r}\n# {kind}: {why}\n")


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("seed", type=int)
    ap.add_argument("--variant", default="openmp")
    ap.add_argument("--kind", default="mismatch")
    ap.add_argument("--features", default="")
    args = ap.parse_args(argv)
    import os
    os.environ.setdefault("UNPY_DEVICE", "cpu")
    os.environ["UNPY_FORCE_GPU"] = "1"
    features = set(args.features.split(",")) if args.features else None
    prog = generate.generate(args.seed, features)
    workdir = Path(tempfile.mkdtemp(prefix="unpy-minimise-"))
    prog = minimise(prog, args.variant, args.kind, workdir)
    prog = drop_unused_helpers(prog)
    if args.kind == "internal-error":
        print(generate.HEADER + "\n\n" + prog.source())
        print(run.compile_check(prog, workdir)[1])
        return
    print(report(prog, args.variant, workdir))


if __name__ == "__main__":
    main()
