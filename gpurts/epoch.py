"""The epoch of the replay records (gpurts/record.py): the compiled caller replays a record only
while `REPLAY_EPOCH[0]` (a load in C++, no GIL) holds the value the record was made under. It is
bumped where something the compiled caller cannot see changes the answer of a repeated call:
`unpython.resident` holding memory (gpurts/residency.py), `jitgpu.decide.forget` (measured
decisions forgotten). A compiled caller's remembered refusal (`unpy::HookSkip`: the same inputs
skip the hook) lasts while the epoch stays too."""
from __future__ import annotations

import numpy as np

REPLAY_EPOCH = np.zeros(1, np.int64)


def invalidate_replays() -> None:
    REPLAY_EPOCH[0] += 1
