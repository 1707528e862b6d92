"""Compile source text (not files) to the IR, for the unit tests of each stage."""
import textwrap

from unpy.frontend.discover import discover
from unpy.frontend.lower import lower_function
from unpy.pipeline import compile_to_ir

HEADER = ("import math\nimport numpy as np\nfrom numpy import shape\nimport unpython\n"
          "from unpython import prange\n\n")


def source(body: str) -> str:
    return HEADER + textwrap.dedent(body).lstrip("\n")


def typed(body: str, path="/virtual/unit.py"):
    """The typed IR module of the functions in `body` (HEADER imports prepended)."""
    return compile_to_ir(path, source(body))


def typed_function(body: str, name=None):
    """The function called `name`, by default the first declared (not a weak variant:
    unpy/typeinfer/weak_params.py)."""
    module = typed(body)
    if name is None:
        declared = [f for f in module.functions if not f.name.endswith("_weak")]
        return (declared or module.functions)[0]
    return next(f for f in module.functions if f.name == name)


def lowered(body: str):
    """The untyped IR (frontend only) of each decorated function, by name."""
    module = discover("/virtual/unit.py", source(body))
    names = {d.node.name for d in module.functions}
    return {d.node.name: lower_function(module, d, names) for d in module.functions}
