"""Discovery of the compiled functions of a module: imports, decorators, aliases."""
from unpy.frontend.discover import collect_imports, discover

import irtools


def test_imports_as_qualified_names():
    module = discover("/virtual/m.py", "import numpy as np\nimport math\nimport os.path\n"
                      "from math import sqrt as root, pi\nfrom numpy import shape\n"
                      "from . import sibling\n")
    assert module.imports == {"np": "numpy", "math": "math", "os": "os", "root": "math.sqrt",
                              "pi": "math.pi", "shape": "numpy.shape"}
    assert collect_imports(module.tree) == module.imports


def test_decorated_functions_in_source_order():
    module = discover("/virtual/m.py", irtools.source("""
        @unpython.type('int64', 'int64')
        def second(n):
            return n

        def plain(x):
            return x

        @unpython.gpu
        @unpython.locals(t='float32')
        @unpython.type('ndarray[float64, 1]', None)
        def first(a):
            pass

        class Holder:
            @unpython.type('int64', 'int64')
            def method(self, n):
                return n
        """))
    found = [(d.node.name, [w.types for w in d.signatures], d.locals, d.gpu)
             for d in module.functions]
    assert found == [("second", [["int64", "int64"]], {}, False),
                     ("first", [["ndarray[float64, 1]", None]], {"t": "float32"}, True)]


def test_aliased_unpython_and_gpu_with_options():
    module = discover("/virtual/m.py", "import unpython as up\n\n@up.gpu(tile=4)\n"
                      "@up.type('int64', 'None')\ndef f(n):\n    pass\n")
    (d,) = module.functions
    assert d.node.name == "f" and d.gpu
    assert [w.types for w in d.signatures] == [["int64", "None"]]


def test_other_decorators_are_not_compiled():
    module = discover("/virtual/m.py", "import functools\n\n@functools.cache\ndef f(n):\n"
                      "    return n\n")
    assert module.functions == []
