"""The switches of a call (the `UNPY_*` environment variables), read and checked in one place.

`current()` is the frozen `Settings` of the environment as it is now. Every module of the call
path (jitgpu, gpurts, unpython) takes its switches from it instead of reading `os.environ`, so a
switch has one spelling, one default and one check. A value that is not one of a switch's
accepted values is reported once per process through the `unpy` logger, naming the variable, the
value and what it accepts, and the default is used; so is an `UNPY_*` variable that is no switch
(a misspelt name). None of the switches changes a call's results, only where and how it runs, so
none of them raises.

Reading is cheap: the raw values are looked up on every call (tests change them between calls),
and the parse is kept per tuple of raw values, so a repeated call does not parse again.

This module imports only the standard library: `UNPY_DEVICE=none` must import nothing of the GPU
stack (tests/test_gpu_imports.py), and both jitgpu and gpurts import it.
"""
from __future__ import annotations

import logging
import os
import threading
from dataclasses import dataclass, field
from typing import Callable, Optional

log = logging.getLogger("unpy")

# jitgpu/loopopt's levels: the kernels' loop optimisations (jitgpu/plan.py).
OPT_LEVELS = ("none", "load", "unroll", "all")
# Measured on an H100 (bench gpu_variants, 2026-11-23, kernel ms at n=2048): `all`, with
# register_tiles and local tiles of up to 44 KiB, beats `unroll` 2.5-3.4x on mmult, syrk and
# syr2k (mmult f32 0.84 vs 2.83, f64 2.37 vs 6.05; syrk f32 0.90 vs 2.39, f64 1.08 vs 3.55;
# syr2k f32 2.01 vs 5.60, f64 2.29 vs 7.38), and is as fast or faster at n=256 on every
# example but nbody f32 (0.37 vs 0.33 ms a call).
DEFAULT_OPT = "all"

LOG_LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING,
              "warn": logging.WARNING, "error": logging.ERROR, "critical": logging.CRITICAL}


@dataclass(frozen=True)
class Settings:
    """The switches of a call, parsed. docs/gpu.md's table "Switches" says what each does."""
    device: str = ""                    # UNPY_DEVICE, stripped and lower-case; '': unset (gpu)
    force_gpu: bool = False             # UNPY_FORCE_GPU=1
    gpu_opt: str = DEFAULT_OPT          # UNPY_GPU_OPT: one of OPT_LEVELS
    gpu_search: str = ""                # UNPY_GPU_SEARCH: '0' never, '1' always, '' auto
    gpu_mem_limit: Optional[int] = None  # UNPY_GPU_MEM_LIMIT in bytes; None: 80 % of the device
    resident: bool = True               # UNPY_RESIDENT (0 turns residency off)
    pin: str = "auto"                   # UNPY_PIN: 'auto', '0' or '1'
    replay: bool = True                 # UNPY_REPLAY (0 turns the replay from C++ off)
    replay_pin_bytes: Optional[int] = None  # UNPY_REPLAY_PIN_BYTES; None: jitgpu/replay.py's rule
    log_level: int = logging.WARNING    # UNPY_LOG
    disable: bool = False               # UNPY_DISABLE=1: compiled modules behave as the .py
    cache_dir: str = ""                 # UNPY_CACHE_DIR; '': ~/.cache/unpy
    probe_fail: str = ""                # UNPY_PROBE_FAIL (tests): devices whose probe must fail
    calibrate: bool = True              # UNPY_CALIBRATE=0: the estimate's constants, unmeasured
    # `UNPY_DEVICE=none`: no OpenCL device at all (a field, not a property: the hook reads it
    # at every call, and a property is a call into this module).
    switched_off: bool = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        object.__setattr__(self, "switched_off", self.device == "none")

    @property
    def cache_root(self) -> str:
        """Where kernels, probes and search records are kept: `UNPY_CACHE_DIR`, default
        `~/.cache/unpy`."""
        return self.cache_dir or os.path.join(os.path.expanduser("~"), ".cache", "unpy")


def _choice(words: dict, default: str) -> Callable:
    """A parser of a switch with a few words: `words` maps each accepted word (after strip and
    lower-case; '' is unset) to its value; anything else is reported and `default` is used."""
    def parse(name: str, raw: str):
        word = raw.strip().lower()
        if word in words:
            return words[word]
        accepted = ", ".join(w for w in words if w)
        _warn_once(name, raw, f"{name}={raw!r} is not one of {accepted}: using {default}")
        return words[default]
    return parse


def _flag(default: str) -> Callable:
    """A switch that is '0' or '1' ('' is `default`)."""
    return _choice({"": default == "1", "0": False, "1": True}, default)


def _bytes(what_if_unset: str) -> Callable:
    """A whole number of bytes, 0 or more ('' is None: `what_if_unset`)."""
    def parse(name: str, raw: str):
        text = raw.strip()
        if not text:
            return None
        try:
            value = int(text)
        except ValueError:
            value = -1
        if value >= 0:
            return value
        _warn_once(name, raw, f"{name}={raw!r} is not a whole number of bytes: using "
                              f"{what_if_unset}")
        return None
    return parse


def _text(lower: bool) -> Callable:
    return lambda name, raw: raw.strip().lower() if lower else raw.strip()


def _log_level(name: str, raw: str) -> int:
    word = raw.strip().lower()
    if not word:
        return logging.WARNING
    if word not in LOG_LEVELS:
        _warn_once(name, raw, f"{name}={raw!r} is not one of debug, info, warning, error, "
                              "critical: using warning")
    return LOG_LEVELS.get(word, logging.WARNING)


# Each switch: (variable, field of Settings, parser of its raw value; '' when unset).
SWITCHES = (
    ("UNPY_DEVICE", "device", _text(lower=True)),
    ("UNPY_FORCE_GPU", "force_gpu", _flag("0")),
    ("UNPY_GPU_OPT", "gpu_opt", _choice({"": DEFAULT_OPT, **{w: w for w in OPT_LEVELS}},
                                        DEFAULT_OPT)),
    ("UNPY_GPU_SEARCH", "gpu_search", _choice({"": "", "auto": "", "0": "0", "1": "1"}, "auto")),
    ("UNPY_GPU_MEM_LIMIT", "gpu_mem_limit", _bytes("80 % of the device's memory")),
    ("UNPY_RESIDENT", "resident", _flag("1")),
    ("UNPY_PIN", "pin", _choice({"": "auto", "auto": "auto", "0": "0", "1": "1"}, "auto")),
    ("UNPY_REPLAY", "replay", _flag("1")),
    ("UNPY_REPLAY_PIN_BYTES", "replay_pin_bytes", _bytes("the default")),
    ("UNPY_LOG", "log_level", _log_level),
    ("UNPY_DISABLE", "disable", _flag("0")),
    ("UNPY_CACHE_DIR", "cache_dir", _text(lower=False)),
    ("UNPY_PROBE_FAIL", "probe_fail", _text(lower=False)),
    ("UNPY_CALIBRATE", "calibrate", _flag("1")),
)
NAMES = tuple(name for name, _, _ in SWITCHES)
# Variables of this prefix that are not switches of a call: the tests' own.
NOT_SWITCHES = ("UNPY_TEST_", "UNPY_FUZZ_")

_lock = threading.Lock()
_parsed: dict[tuple, Settings] = {}     # raw values (bytes, None when unset) -> Settings
_warned: set[tuple[str, str]] = set()   # (variable, value) reported


def _raw_reader() -> Callable[[], tuple]:
    """A function giving the raw values of NAMES now. CPython's `os.environ` keeps its encoded
    items in a dict (`_data`, which `os.environ[...] = ...` and `del` update); reading it
    directly costs 0.5 us for all of them instead of 8 us through `os.environ.get`."""
    data, encode = getattr(os.environ, "_data", None), getattr(os.environ, "encodekey", None)
    if isinstance(data, dict) and encode is not None:
        try:
            keys = tuple(encode(name) for name in NAMES)
            return lambda: tuple(map(data.get, keys))
        except Exception:
            pass
    return lambda: tuple(map(os.environ.get, NAMES))


_read_raw = _raw_reader()


def current() -> Settings:
    """The settings of the environment now (cheap: parsed once per distinct set of values)."""
    raw = _read_raw()
    found = _parsed.get(raw)
    if found is None:
        with _lock:
            found = _parsed.get(raw)
            if found is None:
                found = _parsed[raw] = parse(dict(zip(NAMES, map(_decode, raw))))
                _report_unknown_names()
    return found


def parse(environ) -> Settings:
    """The Settings of a mapping of variables to values (reports what it does not accept)."""
    return Settings(**{field: read(name, environ.get(name) or "")
                       for name, field, read in SWITCHES})


def _decode(value) -> Optional[str]:
    return os.fsdecode(value) if isinstance(value, bytes) else value


def _report_unknown_names() -> None:
    """An `UNPY_*` variable that is no switch is most likely misspelt: say so, once. Looked for
    when a new set of values is parsed (so at a program's first call), not at every call."""
    for name in list(os.environ):
        if name.startswith("UNPY_") and name not in NAMES and not name.startswith(NOT_SWITCHES):
            _warn_once(name, "", f"{name} is not a setting of unpy, ignored (the settings: "
                                 f"{', '.join(NAMES)})")


def _warn_once(name: str, value: str, message: str) -> None:
    """Log `message` as a warning, the first time only for this (variable, value)."""
    if (name, value) not in _warned:
        _warned.add((name, value))
        log.warning("%s", message)


def report_once(name: str, value: str, message: str) -> None:
    """For a value that only a later step can judge (a device name no OpenCL device matches,
    gpurts.device): warn once per process for this (variable, value)."""
    with _lock:
        _warn_once(name, value, message)
