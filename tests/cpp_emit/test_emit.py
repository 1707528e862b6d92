"""The generated C++ (read, not compiled): the OpenMP clauses, index wrapping only where an
index may be negative, bounds checks, argument glue, the embedded source and IR."""
import json
import re

from unpy import ir
from unpy.cpp_emit.emit import cname
from unpy.cpp_emit.module import emit_module
from unpy.typeinfer.written import written_params

import irtools


def cpp_of(body, checks="unproved"):
    return emit_module(irtools.typed(body), irtools.source(body), checks)


def test_reduction_and_schedule_clauses():
    cpp = cpp_of("""
        @unpython.type('ndarray[float64, 1]', 'ndarray[int64, 1]', 'float64')
        def f(a, b):
            s = 0.0
            hi = 0.0
            bits = 0
            for i in prange(a.shape[0]):
                s += a[i]
                hi = max(hi, a[i])
                bits ^= b[i]
            return s + hi + bits
        """)
    pragma = re.search(r"#pragma omp parallel for (.*)", cpp).group(1)
    assert "schedule(static)" in pragma
    for clause in ("reduction(+:s)", "reduction(max:hi)", "reduction(^:bits)"):
        assert clause in pragma
    assert "unpy::check_errors();" in cpp


def test_flattened_perfect_nests_and_triangular_schedule():
    cpp = cpp_of("""
        @unpython.type('ndarray[float64, 2]', None)
        def rect(a):
            for i in prange(a.shape[0]):
                for j in prange(a.shape[1]):
                    a[i, j] = 0.0

        @unpython.type('ndarray[float64, 2]', None)
        def tri(a):
            for i in prange(a.shape[0]):
                for j in range(i, a.shape[1]):
                    a[i, j] = 0.0
        """)
    rect = cpp[cpp.index("rect_body"):cpp.index("tri_body")]
    tri = cpp[cpp.index("tri_body"):]
    # The rectangular nest's flattened iterations shared out in blocks (unpy::Share over
    # rows x columns), walked a row's run at a time: one parallel region, no second form.
    assert re.search(r"const unpy::Share (\w+)\(0, \(\w+ - \w+\) \* \w+, false\);", rect)
    assert rect.count("#pragma omp parallel") == 1 and "collapse" not in rect
    assert "schedule(static, 1)" in tri and "collapse" not in tri and "unpy::Share" not in tri


def test_each_thread_takes_its_own_copy_of_the_arrays_of_a_region():
    """(emit.py region_arrays) A shared array's data pointer, shape and strides would be read
    again after every store of an integer element: each thread takes a borrowed copy
    (firstprivate of a shadow made by unpy::borrowed); not of an array the region assigns."""
    cpp = cpp_of("""
        @unpython.type('ndarray[int64, 2]', 'ndarray[int64, 2]', None)
        def f(a, out):
            for i in prange(a.shape[0]):
                row = a[i, :]
                for j in range(a.shape[1]):
                    out[i, j] = row[j] * 3 + j
        """)
    pragma = re.search(r"#pragma omp parallel (.*)", cpp).group(1)
    assert "firstprivate(a, out)" in pragma
    assert re.search(r"auto (unpy_held\d+) = unpy::borrowed\(out\);\s*auto out = \1;", cpp)
    assert "borrowed(row)" not in cpp


def test_small_nests_run_on_one_thread():
    """The team (unpy::nest_team, which the `num_threads` and `if` clauses take): one thread
    unless the nest's estimated operations (its trip counts times its body's: a statement
    one, a loop with computable bounds its trip count, others GUESSED_TRIPS) reach
    PARALLEL_WORK."""
    cpp = cpp_of("""
        @unpython.type('ndarray[float64, 2]', 'int64', None)
        def f(a, m):
            for i in prange(a.shape[0]):
                for k in range(3):
                    a[i, 0] += 1.0
                for k in range(m):
                    a[i, 1] += 1.0
                    a[i, 2] += 1.0
                for k in range(i):
                    a[i, 3] += 1.0
        """)
    team, clause = re.search(r"const int (unpy_team\d+) = unpy::nest_team\((.*)\);", cpp).groups()
    assert re.fullmatch(r"double\(unpy_n\d+\) \* \(3 \+ double\(unpy::range_length\("
                        r"int64_t\(0\), m, int64_t\(1\)\)\) \* \(2\) \+ 32\) >= 32768",
                        clause), clause
    assert f"num_threads({team}) if({team} > 1)" in cpp


def test_libm_calls_weigh_on_the_team():
    """A statement of two libm calls counts 1 + 2 x 20 (unpy/work.py): 4000 haversine
    distances reach the team, where counted as one statement they ran on one thread."""
    cpp = cpp_of("""
        @unpython.type('ndarray[float64, 1]', None)
        def f(a):
            for i in prange(a.shape[0]):
                if np.cos(a[i]) > 0.0:
                    a[i] = np.sin(a[i]) * 2.0 + np.exp(a[i])
        """)
    clause = re.search(r"unpy::nest_team\((.*)\);", cpp).group(1)
    assert re.fullmatch(r"double\(unpy_n\d+\) \* \(20 \+ \(41\)\) >= 32768", clause), clause


def test_a_compiled_call_weighs_what_its_body_does():
    """A call of a compiled function counts its body's operations (a loop of unknown bounds
    GUESSED_TRIPS iterations; a recursive call unpy/work.py's COMPILED_CALL): 1920 rows each
    calling a function with a prange of its own reach the team, where counted as 11
    operations they ran on one thread and the callee's prange woke the team for each row."""
    cpp = cpp_of("""
        @unpython.type('ndarray[float64, 2]', 'int64', 'float64')
        def row_sum(a, i):
            s = 0.0
            for j in prange(a.shape[1]):
                s += a[i, j]
            return s

        @unpython.type('int64', 'int64')
        def down(n):
            if n <= 0:
                return 0
            return down(n - 1) + 1

        @unpython.type('ndarray[float64, 2]', 'ndarray[float64, 1]', None)
        def rows(a, out):
            for i in prange(a.shape[0]):
                out[i] = row_sum(a, i)

        @unpython.type('ndarray[int64, 1]', None)
        def counted(a):
            for i in prange(a.shape[0]):
                a[i] = down(a[i])
        """)
    clauses = {name: re.search(r"unpy::nest_team\((.*?)\);", cpp[cpp.index(f" {name}_body("):])
               .group(1) for name in ("rows", "counted")}
    assert re.fullmatch(r"double\(unpy_n\d+\) \* \(35\) >= 32768", clauses["rows"]), clauses
    # the statement 1 + down's body: its `if` 1 (its return), its last return 1 + the
    # recursive call's COMPILED_CALL (10)
    assert re.fullmatch(r"double\(unpy_n\d+\) \* \(13\) >= 32768", clauses["counted"]), clauses


def test_unchecked_index_wrapping_only_where_an_index_may_be_negative():
    cpp = cpp_of("""
        @unpython.type('ndarray[float64, 1]', 'int64', 'float64')
        def f(a, k):
            s = 0.0
            for i in range(a.shape[0]):
                s += a[i] + a[i + 1] + a[2 * i]
            return s

        @unpython.type('ndarray[float64, 1]', 'int64', 'float64')
        def g(a, k):
            return a[k] + a[k - 1]
        """, "none")          # --unchecked (by default these indices are checked, and wrap there)
    f_body = cpp[cpp.index("f_body"):cpp.index("g_body")]
    g_body = cpp[cpp.index("g_body"):]
    assert "< 0 ?" not in f_body.split("#pragma")[0] and "shape[0] :" not in f_body
    assert g_body.count("< 0 ?") == 2


def test_boundscheck_uses_checked_access_with_the_name():
    body = """
        @unpython.type('ndarray[float64, 2]', 'float64')
        def f(grid):
            return grid[0, 1]
        """
    assert 'grid.template at_checked<C>("grid", ' in cpp_of(body, "all")
    # By default too: nothing proves grid[0, 1] in range.
    assert 'grid.template at_checked<C>("grid", ' in cpp_of(body)
    assert "at_checked" not in cpp_of(body, "none")


def test_float32_literals_and_contiguous_dispatch():
    cpp = cpp_of("""
        @unpython.type('ndarray[float32, 1]', None)
        def f(a):
            for i in range(a.shape[0]):
                a[i] = a[i] * 0.5
        """)
    assert "0.5f" in cpp
    assert "if (a.last_contiguous()) return f_body<true>(a);" in cpp
    assert "return f_body<false>(a);" in cpp


def test_glue_checks_arguments_and_marks_written_arrays():
    cpp = cpp_of("""
        @unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]', 'int32', None)
        def f(src, dst, k):
            dst[0] = src[0] + k
        """)
    assert re.search(r'array_arg<double, 1>\(unpy_in\[0\], "f", "src", "ndarray\[float64, 1\]", '
                     r'false\)', cpp)
    assert re.search(r'array_arg<double, 1>\(unpy_in\[1\], "f", "dst", "ndarray\[float64, 1\]", '
                     r'true\)', cpp)
    assert 'scalar_arg<int32_t>(unpy_in[2], "f", "k", "int32")' in cpp
    assert "unpy::GilRelease" in cpp


def test_writes_through_calls_are_tracked():
    module = irtools.typed("""
        @unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]', None)
        def inner(x, y):
            y[0] = x[0]

        @unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]', None)
        def outer(a, b):
            inner(b, a)

        @unpython.type('ndarray[float64, 1]', 'float64')
        def reader(a):
            return a[0]
        """)
    assert written_params(module.functions) == {"inner": {"y"}, "outer": {"a"}, "reader": set()}


def test_writes_through_local_aliases_are_tracked():
    module = irtools.typed("""
        @unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]')
        def same(x):
            return x

        @unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]', 'ndarray[float64, 1]',
                       'bool', None)
        def f(a, b, c, flag):
            d = a if flag else b
            e = d
            e[0] = 1.0
            g = same(c)
            h = np.zeros(c.shape[0], np.float64)
            h[0] = g[0]
        """)
    assert written_params(module.functions)["f"] == {"a", "b"}


def test_writes_through_views_and_results_are_tracked():
    """A view of a parameter, a callee's result that is its argument or a view of it (alone or
    in a tuple) are the parameter; a callee's new array is not (the fuzzer's seed 9392: a
    read-only argument was refused though only a new result was written)."""
    module = irtools.typed("""
        @unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]')
        def tail(x):
            return x[1:]

        @unpython.type('ndarray[float64, 1]', 'tuple[float64, ndarray[float64, 1]]')
        def pair(x):
            return x.sum(), x

        @unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]')
        def fresh(x):
            return np.abs(x) + 1.0

        @unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]', 'ndarray[float64, 1]',
                       'ndarray[float64, 1]', None)
        def f(a, b, c, d):
            v = a[::2]
            v[0] = 1.0
            w = tail(b)
            w[0] = 2.0
            s, u = pair(c)
            u[0] = s
            n = fresh(d)
            n[0] = 3.0
        """)
    assert written_params(module.functions)["f"] == {"a", "b", "c"}


def test_gpu_nests_are_embedded_as_ir_json():
    body = """
        @unpython.gpu
        @unpython.type('ndarray[float64, 1]', 'float64', 'float64')
        def f(a, x):
            s = 0.0
            for i in prange(a.shape[0]):
                s += a[i] * x
            return s
        """
    cpp = cpp_of(body)
    assert 'unpy::gpu_hook(UNPY_MODULE_NAME, "f", 0, unpy_values, ' in cpp
    text = re.search(r'unpy_nests_f\[\] = \{R"unpy\((.*?)\)unpy"\};', cpp).group(1)
    nest = ir.from_json(text)
    assert isinstance(nest, ir.Nest) and nest.function == "f" and nest.nest_id == 0
    assert [p.name for p in nest.free] == ["a", "s", "x"]
    assert nest.loop.reductions[0].var == "s"
    assert json.loads(text)["node"] == "Nest"


def test_module_embeds_its_source_for_the_drop_in_import():
    body = """
        @unpython.type('int64', 'int64')
        def f(n):
            return n
        """
    cpp = cpp_of(body)
    assert "unpy::finish_module(m, " in cpp
    assert "def f(n):" in cpp
    assert '{"f", reinterpret_cast<PyCFunction>(' in cpp
    assert 'static const char* const unpy_names[] = {"n"};' in cpp


def test_cpp_names_never_clash():
    assert cname("new") == "new_" and cname("std") == "std_" and cname("unpy_x") == "unpy_x_"
    assert cname("total") == "total"


def test_a_matrix_product_calls_the_blas_on_the_cpu():
    """`a @ b` of float arrays is a nest whose OpenMP code first offers the product to NumPy's
    matmul (its BLAS); an integer product, or one inside a prange, is loops only."""
    cpp = cpp_of("""
        @unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]', 'ndarray[float64, 2]')
        def f(a, b):
            return a @ b.T
        """)
    assert cpp.count("unpy::blas_matmul(") == 1
    cpp = cpp_of("""
        @unpython.type('ndarray[int64, 2]', 'ndarray[int64, 2]', 'ndarray[int64, 2]')
        def f(a, b):
            return a @ b
        """)
    assert "unpy::blas_matmul(" not in cpp


def test_functions_named_as_cxx_keywords_get_cxx_names():
    cpp = cpp_of("""
        @unpython.type('float64', 'float64')
        def double(x):
            y = 2.0 * x
            return y

        @unpython.type('float64', 'float64')
        def g(x):
            return double(x)
        """)
    # (two statements: a call, not inlined by loopopt/inline_calls)
    assert "static double double_(double x)" in cpp and "return double_(x);" in cpp
    assert '{"double", reinterpret_cast<PyCFunction>(' in cpp


def test_a_host_loop_is_flushed_once_before_it():
    """In a @gpu function whose nests may leave data on the device, host code brings back what
    it touches first: a serial loop that runs nothing on the device once, before it, not at
    each of its statements (lenet's serial reduction stages asked Python at every element)."""
    cpp = cpp_of("""
        @unpython.gpu
        @unpython.type('ndarray[float64, 2]', 'ndarray[float64, 1]', 'float64')
        def f(a, b):
            for i in prange(a.shape[0]):
                b[i] = a[i, 0] * 2.0
            s = 0.0
            for i in range(a.shape[0]):
                for j in range(a.shape[1]):
                    s += a[i, j] * b[i]
            return s
        """)
    body = cpp[cpp.index("f_body"):]
    serial = body[body.index("s = 0.0"):]
    assert serial.count("unpy::flush_host") == 1, serial
