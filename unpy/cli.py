"""`unpy build | show | devices`: the command line."""
from __future__ import annotations

import argparse
import sys

from unpy import ir
from unpy.errors import CompileError


def _options(args):
    from unpy.cpp_emit.build import BuildOptions
    return BuildOptions(boundscheck=args.boundscheck, unchecked=args.unchecked,
                        portable=args.portable, fastmath=args.fastmath)


def cmd_build(args) -> int:
    from unpy.cpp_emit.build import build
    status = 0
    for path in args.files:
        try:
            result = build(path, args.output, _options(args), emit_cpp=args.emit_cpp,
                           progress=lambda msg: print(f"unpy: {path}: {msg}", flush=True))
        except CompileError as e:
            print(e.format(), file=sys.stderr)
            status = 1
            continue
        except (OSError, RuntimeError, UnicodeDecodeError) as e:
            print(f"unpy: {path}: error: {e}", file=sys.stderr)
            status = 1
            continue
        if not result.functions:
            print(f"unpy: {path}: no @unpython.type functions, nothing to compile (no module "
                  "written)")
            continue
        what = ("up to date" if result.up_to_date else
                "from the build cache" if result.cached else f"built in {result.seconds:.1f} s")
        names = ", ".join(result.functions) or "no functions"
        print(f"unpy: {path}: compiled {names} -> {result.output} ({what})")
    return status


def cmd_show(args) -> int:
    from unpy.cpp_emit.build import generate
    options = _options(args)
    try:
        module, cpp = generate(args.file, options)
    except CompileError as e:
        print(e.format(), file=sys.stderr)
        return 1
    except (OSError, UnicodeDecodeError) as e:
        print(f"unpy: {args.file}: error: {e}", file=sys.stderr)
        return 1
    from unpy.loopopt import optimise_for_cpu
    functions = {f.name: f for f in module.functions}
    for fn in module.functions:
        print(f"# --- typed IR of {fn.name}, with the C++ path's loop optimisations ---")
        print(ir.format_function(optimise_for_cpu(fn, options.checks, options.fastmath,
                                                  options.model, functions)))
        print()
    print("// --- generated C++ ---")
    print(cpp)
    return 0


def cmd_devices(args) -> int:
    from gpurts import device_report
    report = device_report(fresh=True)
    print(report)
    return 0 if any(d.works for d in report.devices) else 1


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="unpy", description="Compile annotated Python/NumPy "
                                     "modules to C++/OpenMP extension modules.")
    sub = parser.add_subparsers(dest="command", required=True)

    def flags(p):
        indices = p.add_mutually_exclusive_group()
        indices.add_argument("--boundscheck", action="store_true",
                             help="check every array index (IndexError), even those proved in "
                             "range, and run every loop nest as written")
        indices.add_argument("--unchecked", action="store_true",
                             help="check no array index: an index out of range reads or writes "
                             "outside the array (by default an index is checked unless the "
                             "compiler proves it in range, while compiling or once before its "
                             "loop nest)")
        p.add_argument("--portable", action="store_true", help="do not use -march=native")
        p.add_argument("--fastmath", action="store_true",
                       help="allow -ffast-math and floating-point contraction")

    b = sub.add_parser("build", help="build FILE.py into FILE<EXT_SUFFIX> beside it (or in -o)")
    b.add_argument("files", nargs="+")
    b.add_argument("-o", "--output", help="output directory")
    b.add_argument("--emit-cpp", action="store_true", help="also write the generated .cpp")
    flags(b)
    b.set_defaults(func=cmd_build)

    s = sub.add_parser("show", help="print the typed IR and the generated C++ of each function")
    s.add_argument("file")
    flags(s)
    s.set_defaults(func=cmd_show)

    d = sub.add_parser("devices", help="list every OpenCL device, whether it works (each is "
                       "probed: build and run a small kernel) and why not")
    d.set_defaults(func=cmd_devices)

    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
