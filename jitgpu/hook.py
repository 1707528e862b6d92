"""The call-time hook of @gpu loop nests (SPEC section 4).

A compiled module calls `run_nest(module, function, nest_id, values)` before the OpenMP code of
each outermost prange nest of a @gpu function. It returns None ("not done": run the OpenMP code)
or a dict of the nest's reduction results. The GPU JIT is not built yet: every nest runs on the
CPU, and the report says so.
"""
from jitgpu import report


def run_nest(module: str, function: str, nest_id: int, values: dict):
    report.record(module, function, nest_id, report.NestReport(
        nest_id, ran_on="openmp", reason="the GPU JIT is not available in this version"))
    return None
