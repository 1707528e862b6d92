"""The signature a call inside the module takes (unpy/typeinfer/overloads.py): the arguments'
own types first, then conversions within a kind, then any conversion a single signature makes;
in source order within each."""
import pytest

from unpy import ir
from unpy.ir import Array, Scalar
from unpy.typeinfer.overloads import NoSignature, Signature, choose_signature

FLOAT_THEN_INT = [Signature("f_sig1", (Scalar("float64"),), Scalar("float64")),
                  Signature("f_sig2", (Scalar("int64"),), Scalar("int64"))]


def value(t, const=None):
    return ir.Const(const, type=t) if const is not None else ir.Name("x", type=t)


@pytest.mark.parametrize("arg, chosen", [
    (value(Scalar("int64")), "f_sig2"),                   # its own type, though listed second
    (value(Scalar("int64", weak=True), 3), "f_sig2"),     # a Python int is an int64
    (value(Scalar("float64", weak=True), 3.5), "f_sig1"),
    (value(Scalar("int32")), "f_sig2"),                   # within its kind before int -> float
    (value(Scalar("uint8")), "f_sig2"),
    (value(Scalar("float32")), "f_sig1"),
    (value(Scalar("bool")), "f_sig1"),                    # first of the two that convert it
])
def test_rank_then_source_order(arg, chosen):
    assert choose_signature("f", FLOAT_THEN_INT, [arg]).name == chosen


def test_arrays_are_never_converted():
    signatures = [Signature("g_sig1", (Array("float64", 1),), None),
                  Signature("g_sig2", (Array("float32", 1),), None)]
    assert choose_signature("g", signatures, [value(Array("float32", 1))]).name == "g_sig2"
    with pytest.raises(NoSignature, match=r"no signature of g\(\) takes arguments of types "
                                          r"\(ndarray\[float32, 2\]\); its signatures are "
                                          r"\(ndarray\[float64, 1\]\) -> None; "
                                          r"\(ndarray\[float32, 1\]\) -> None"):
        choose_signature("g", signatures, [value(Array("float32", 2))])


def test_one_signature_is_taken_as_it_always_was():
    """Its conversions are checked by the caller (a lossy one is a compile error there)."""
    only = [FLOAT_THEN_INT[1]]
    assert choose_signature("f", only, [value(Scalar("float64"))]) is only[0]
