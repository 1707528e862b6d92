"""One function compiled for several signatures (tests/kernels/signatures.py), interpreter vs
compiled on the OpenMP path: `@unpython.type` given twice, a list of signatures, int64 vs
float64 scalars, ndim 1 vs 2, a helper with two signatures called from other compiled
functions, defaults; the TypeError when no signature takes the arguments, the static choice
inside the module, and the compile errors of malformed signatures. The GPU path:
tests/jitgpu/test_gpu_signatures.py."""
import textwrap

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from npstrategies import scalars
from unpy import ir
from unpy.errors import CompileError
from unpy.pipeline import compile_to_ir
from unpy.typeinfer.reductions import walk_exprs

SETTINGS = settings(max_examples=30, deadline=None)
RNG = np.random.default_rng(18)


def rand(*shape, dtype=np.float64):
    if np.dtype(dtype).kind == "f":
        return (RNG.random(shape) - 0.3).astype(dtype)
    return RNG.integers(-9, 9, shape).astype(dtype)


# --- the dispatch: the first signature taking the arguments' own types ---------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_two_decorators_float32_and_float64_arrays(signatures_kernels, dtype):
    """The float64 signature comes first; a float32 array takes the float32 one all the same
    (a float64 result would be the wrong dtype)."""
    for a in [rand(9, dtype=dtype), rand(20, dtype=dtype)[::-3], rand(0, dtype=dtype)]:
        got = signatures_kernels.check("scaled", a, 1.5)
        assert got.dtype == dtype


def test_a_numpy_float32_scalar_goes_with_a_float32_array(signatures_kernels):
    got = signatures_kernels.check("scaled", rand(7, dtype=np.float32), np.float32(0.25))
    assert got.dtype == np.float32


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_list_of_signatures(signatures_kernels, dtype):
    signatures_kernels.check("add_into", rand(4, 5, dtype=dtype), rand(4, 5, dtype=dtype))
    signatures_kernels.check("add_into", rand(5, 4, dtype=dtype).T, rand(8, 5, dtype=dtype)[::2])


def test_int64_and_float64_scalars(signatures_kernels):
    """`halve` lists float64 first: an int still takes the int64 signature (an int result)."""
    for x in [7, -7, 0, 2**62, np.int64(-5), 7.0, -7.5, np.float64(2.25)]:
        got = signatures_kernels.check("halve", x)
        assert isinstance(got, float) == isinstance(x, float)


def test_scalars_converted_within_their_kind_first(signatures_kernels):
    """An int32 takes the int64 signature (a conversion within its kind), not the float64
    one listed before it; a float32 takes the float64 one."""
    got = signatures_kernels.check("halve", np.int32(-9), check_dtype=False)
    assert isinstance(got, int)
    got = signatures_kernels.check("halve", np.float32(5.5), check_dtype=False)
    assert isinstance(got, float)


@given(st.one_of(scalars(np.int64), scalars(np.float64, finite=True)))
@SETTINGS
def test_int64_and_float64_scalars_any(signatures_kernels, x):
    signatures_kernels.check("halve", x)


@pytest.mark.parametrize("shape", [(9,), (4, 6), (0,), (3, 0)])
def test_ndim_1_and_2(signatures_kernels, shape):
    signatures_kernels.check("summed", rand(*shape), rtol=1e-12)
    signatures_kernels.check("doubled_in_place", rand(*shape))
    if len(shape) == 2:
        signatures_kernels.check("doubled_in_place", rand(*shape).T)


def test_helper_with_two_signatures(signatures_kernels):
    """`use_both` calls `at_twice` with a float32 array and with an int64 one; `doubled`, with
    two signatures itself, calls the `at_twice` of its own."""
    signatures_kernels.check("use_both", rand(8, dtype=np.float32), rand(8, dtype=np.int64))
    for dtype in (np.float32, np.int64):
        signatures_kernels.check("doubled", rand(6, dtype=dtype), np.zeros(6, dtype))
        signatures_kernels.check("at_twice", rand(6, dtype=dtype), -2)


def test_defaults_choose_as_the_value_written(signatures_kernels):
    """`shifted(x, by=1)`: the default is the int 1, so `shifted(2)` is an int; a float x takes
    the float64 signature, which converts the int default as it converts a given int."""
    for args in [(2,), (2.5,), (2, 0.5), (np.int64(-3), 4)]:
        got = signatures_kernels.check("shifted", *args)
        assert isinstance(got, float) == any(isinstance(x, float) for x in args)
    assert signatures_kernels.compiled.shifted(by=2, x=1) == 3


def test_the_module_has_one_function_per_name(signatures_kernels):
    compiled = signatures_kernels.compiled
    assert compiled.scaled.__name__ == "scaled"
    assert "scaled_sig1" not in dir(compiled)
    assert "scaled(a: ndarray[float64, 1], alpha: float64)" in compiled.scaled.__doc__
    assert "scaled(a: ndarray[float32, 1], alpha: float32)" in compiled.scaled.__doc__


def test_explain_names_the_signature_called_last(signatures_kernels):
    import unpython
    compiled = signatures_kernels.compiled
    compiled.halve(3)
    report = unpython.explain(compiled.halve)
    assert report.compiled and report.signature == "(int64) -> int64", str(report)
    compiled.halve(3.0)
    assert unpython.explain(compiled.halve).signature == "(float64) -> float64"
    assert "signature (float64) -> float64" in str(unpython.explain(compiled.halve))


# --- no signature takes the arguments: a TypeError -----------------------------------------

@pytest.mark.parametrize("args, parameter, expected, got", [
    ((np.arange(5), 1.0), "a", "ndarray[float64, 1] or ndarray[float32, 1]",
     "ndarray[int64, 1]"),
    ((rand(5, dtype=np.float32), "x"), "alpha", "float32", "str"),
    ((rand(2, 2), 1.0), "a", "ndarray[float64, 1] or ndarray[float32, 1]",
     "ndarray[float64, 2]"),
])
def test_no_signature_is_a_type_error(signatures_kernels, args, parameter, expected, got):
    with pytest.raises(TypeError) as caught:
        signatures_kernels.compiled.scaled(*args)
    message = str(caught.value)
    assert message.startswith(f"scaled() argument '{parameter}': expected {expected}, got {got};")
    assert ("its signatures are (a: ndarray[float64, 1], alpha: float64), "
            "(a: ndarray[float32, 1], alpha: float32)") in message
    assert "no signature of scaled() takes (a: " in message


def test_no_signature_for_a_scalar(signatures_kernels):
    with pytest.raises(TypeError, match=r"^halve\(\) argument 'x': expected float64 or int64, "
                                        r"got str; .* its signatures are \(x: float64\), "
                                        r"\(x: int64\)$"):
        signatures_kernels.compiled.halve("3")
    with pytest.raises(TypeError, match=r"summed\(\) argument 'a': expected ndarray\[float64, 1\]"
                                        r" or ndarray\[float64, 2\], got ndarray\[float64, 3\]"):
        signatures_kernels.compiled.summed(np.zeros((2, 2, 2)))


def test_read_only_array_still_a_value_error(signatures_kernels):
    """After the dispatch, a signature's own checks: writing a read-only array, as NumPy."""
    a = rand(3, 3)
    a.flags.writeable = False
    with pytest.raises(ValueError, match=r"doubled_in_place\(\) argument 'a': assignment "
                                         r"destination is read-only"):
        signatures_kernels.compiled.doubled_in_place(a)


# --- calls inside the module: the signature is chosen while compiling ----------------------

def test_calls_inside_the_module_choose_statically(signatures_kernels):
    path = signatures_kernels.interpreted.__file__
    module = compile_to_ir(path, open(path).read())
    functions = {f.name: f for f in module.functions}
    called = lambda name: [e.func for e in walk_exprs(functions[name].body)
                           if isinstance(e, ir.CallCompiled)]
    assert called("use_both") == ["at_twice_sig1", "at_twice_sig2"]
    assert called("doubled_sig1") == ["at_twice_sig1"]
    assert called("doubled_sig2") == ["at_twice_sig2"]
    assert {f.python_name for f in module.functions if f.name.startswith("at_twice")} == \
        {"at_twice"}


HEADER = "import numpy as np\nimport unpython\n\n"


def compile_error(body: str) -> str:
    source = HEADER + textwrap.dedent(body).lstrip("\n")
    with pytest.raises(CompileError) as caught:
        compile_to_ir("/virtual/m.py", source)
    return caught.value.format()


def assert_points_at(text: str, line: int, at: str, reason: str):
    """`/virtual/m.py:line:col: error: reason...`, the source line, and a caret under `at`."""
    first, source_line, caret = text.split("\n")[:3]
    col = source_line.index(at)
    assert first.startswith(f"/virtual/m.py:{line + 3}:{col + 1}: error: "), text
    assert reason in first, text
    assert caret == " " * col + "^", text


def test_no_signature_for_a_call_inside_the_module():
    text = compile_error("""
        @unpython.type('ndarray[float32, 1]', 'float32')
        @unpython.type('ndarray[int64, 1]', 'int64')
        def first(a):
            return a[0]

        @unpython.type('ndarray[float64, 1]', 'float64')
        def caller(a):
            return first(a) + 1.0
        """)
    assert_points_at(text, 8, "first(a)", "no signature of first() takes arguments of types "
                     "(ndarray[float64, 1]); its signatures are (ndarray[float32, 1]) -> "
                     "float32; (ndarray[int64, 1]) -> int64")


@pytest.mark.parametrize("decorator, at, reason", [
    ("@unpython.type(['float64', 'float64'])", "'float64'",
     "each item of a list of signatures is a tuple of type strings"),
    ("@unpython.type([])", "[]", "the list of signatures is empty"),
    ("@unpython.type([('float64', 'float64')], 'int64')", "'int64'",
     "a list of signatures is the only argument of @unpython.type"),
    ("@unpython.type([('float64', 'float64'), ('int64', 'int64', 'int64')])", "('int64', 'int64',",
     "@unpython.type for 'f' lists 3 type(s); it needs one per parameter (1)"),
    ("@unpython.type([('float64', 'float64'), ('float65', 'float64')])", "('float65'",
     "unknown scalar type 'float65'"),
    ("@unpython.type([('float64', 'float64'), ('float64', 'int64')])", "('float64', 'int64')",
     "signature 2 of 'f' has the parameter types of signature 1"),
])
def test_malformed_list_of_signatures(decorator, at, reason):
    text = compile_error(f"""
        {decorator}
        def f(x):
            return x
        """)
    assert_points_at(text, 1, at, reason)


def test_malformed_second_decorator_points_at_it():
    text = compile_error("""
        @unpython.type('float64', 'float64')
        @unpython.type('ndarray[float64]', 'float64')
        def f(x):
            return x
        """)
    assert_points_at(text, 2, "unpython.type('ndarray", "cannot read array type")


def test_an_error_in_one_signature_names_it():
    text = compile_error("""
        @unpython.type('ndarray[float64, 1]', 'float64')
        @unpython.type('float64', 'float64')
        def f(a):
            return a[0]
        """)
    assert "(in f's signature (float64) -> float64)" in text.split("\n")[0], text


# --- Python floats for float64 parameters: weak, as in the interpreter ---------------------

F32 = (RNG.random(1000) + 0.5).astype(np.float32)


@pytest.mark.parametrize("eps", [0.1, 3, np.float64(0.1), np.float32(0.25)])
def test_a_python_float_parameter_is_weak(signatures_kernels, eps):
    """`s += x32[i] * eps` sums in float32 for a Python float or int (the weak variant), in
    float64 for a NumPy float64; a float32 converts to the declared float64 as before. The
    sums differ, so the wrong choice fails."""
    got = signatures_kernels.compiled.total_scaled(F32, eps)
    if type(eps) in (float, int):
        assert got == signatures_kernels.interpreted.total_scaled(F32, eps)
    else:
        assert got == signatures_kernels.interpreted.total_scaled(F32, np.float64(eps))
    assert (got == float(np.float32(got))) == (type(eps) in (float, int))
    import unpython
    called = unpython.explain(signatures_kernels.compiled.total_scaled).signature
    assert ("(weak)" in called) == (type(eps) in (float, int)), called


def test_calls_inside_the_module_pass_python_floats_weak(signatures_kernels):
    signatures_kernels.check("total_of_tenths", F32, check_dtype=False)
    signatures_kernels.check("total_by_default", F32, check_dtype=False)
    signatures_kernels.check("total_by_default", F32, 0.5, check_dtype=False)


@given(n=st.integers(0, 40), eps=st.floats(-1e3, 1e3))
@SETTINGS
def test_weak_variant_any(signatures_kernels, n, eps):
    signatures_kernels.check("total_scaled", RNG.random(n).astype(np.float32), eps,
                             check_dtype=False)


def test_a_signature_only_a_python_float_fits_is_compiled_weak(signatures_kernels):
    """`normalised` returns float32 as declared only for a Python `eps`: compiled for that
    alone, it refuses a NumPy float64 with a TypeError naming the parameter."""
    x = rand(5, 7, dtype=np.float32)
    got = signatures_kernels.check("normalised", x, 1e-5, rtol=1e-6)
    assert got.dtype == np.float32
    with pytest.raises(TypeError, match=r"^normalised\(\) argument 'eps': expected a Python "
                       r"float, got float64 \(the function compiles only for a Python scalar"):
        signatures_kernels.compiled.normalised(x, np.float64(1e-5))


def test_a_module_call_with_a_numpy_float_where_only_a_python_one_fits():
    text = compile_error("""
        @unpython.type('ndarray[float32, 1]', 'float64', 'ndarray[float32, 1]')
        def scaled(x, eps):
            return x * eps

        @unpython.type('ndarray[float32, 1]', 'ndarray[float32, 1]')
        def caller(x):
            return scaled(x, np.float64(2.0))
        """)
    assert_points_at(text, 7, "np.float64(2.0)", "scaled() compiles only for a Python scalar here")


def test_no_variant_where_weakness_changes_nothing():
    module = compile_to_ir("/virtual/m.py", textwrap.dedent("""
        import unpython
        import numpy as np

        @unpython.type('ndarray[float64, 1]', 'float64', 'ndarray[float64, 1]')
        def scaled64(x, eps):
            return x * eps

        @unpython.type('ndarray[float32, 1]', 'float64', 'float64')
        def assigned(x, eps):
            eps = eps * x[0]
            return eps
        """))
    assert [f.name for f in module.functions] == ["scaled64", "assigned"]


@pytest.mark.parametrize("n", [7, np.int64(7)])
def test_a_python_int_parameter_is_weak(signatures_kernels, n):
    """`x32[i] * (2.0 / (n + 1))` is float32 for a Python int (the weak variant), float64 for
    a NumPy int64: the sums differ, so the wrong choice fails."""
    got = signatures_kernels.check("total_times", F32, n, check_dtype=False)
    assert (got == float(np.float32(got))) == (type(n) is int)
    import unpython
    called = unpython.explain(signatures_kernels.compiled.total_times).signature
    assert ("(weak)" in called) == (type(n) is int), called


def test_no_weak_int_where_it_meets_a_narrower_integer(signatures_kernels):
    names = signatures_kernels.compiled.__unpy_functions__
    assert "total_times_weak" in names and "shifted_bytes_weak" not in names
    a = np.array([1, -3, 100], dtype=np.int8)
    got = signatures_kernels.compiled.shifted_bytes(a, 5)
    assert got.dtype == np.int64 and list(got) == [6, 2, 105]
