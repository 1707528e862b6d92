"""Host memory kept on a device between nests and calls (SPEC section 8; Helium's delayed
copies): the residency table, one for the process, that the device buffers of kept transfer
groups belong to.

An entry is the device copy of the host bytes `[lo, hi)` that one transfer group's boxes cover,
in that group's layout (`layout_key`: the device, the element size and every box with its place
in the buffer). The device copy is always current; `stale` says the host copy is older (a kernel
wrote the buffer and the copy-back was delayed). Entries never overlap one another, so two
arrays viewing the same memory always meet the same entry, and every host access is checked by
byte overlap, never by array identity.

Who uses it:
- the executor (`gpurts.executor.execute`) carries out a plan's residency decisions (which
  entries to flush first, which groups reuse an entry's buffer, which groups stay on the device
  after the run) under the table's lock;
- the compiled code's flush points (`flush_ranges`): before a host statement reads bytes, a stale
  entry is copied back; before it writes them, the entry is also dropped. The compiled code
  calls it only while `COUNTERS[0]` (the number of entries) is not zero: a C++ load, no GIL;
- the end of a call of a @gpu function (`close_scope`): its entries are copied back (unless the
  array dies with the call) and dropped; entries of memory held by `unpython.resident` (`hold`,
  `release`) stay until the `with` block ends.

Every copy in or out is counted per array in the log of the call that made the entry
(`TransferLog`), which `unpython.explain` shows.
"""
from __future__ import annotations

import itertools
import threading
from dataclasses import dataclass, field

import numpy as np

from unpy.host_memory import group_span, layout_key
from unpy.residency_counters import COUNTERS, COUNTERS_ADDRESS  # noqa: F401 (owned there)
from unpy.settings import current as current_settings

from .epoch import invalidate_replays
from .staging import LazyStaging
from .transfer import write_back


def enabled() -> bool:
    """`UNPY_RESIDENT=0` turns residency off: every nest copies its data in and out itself."""
    return current_settings().resident


# id(group) -> (group, span, layout key without the device): a plan's groups are read again
# at every call of a time step.
_GROUP_KEYS = {}


def group_keys(group) -> tuple:
    """(group_span(group), layout_key(group, '')[1:]) worked out once per group object."""
    found = _GROUP_KEYS.get(id(group))
    if found is not None and found[0] is group:
        return found[1], found[2]
    span, layout = group_span(group), layout_key(group, "")[1:]
    _GROUP_KEYS[id(group)] = (group, span, layout)
    if len(_GROUP_KEYS) > 1024:
        del _GROUP_KEYS[next(iter(_GROUP_KEYS))]
    return span, layout


@dataclass
class TransferLog:
    """Copies in and out per array name during one call of a function (or a `resident`
    block), for `unpython.explain`."""
    copies: dict = field(default_factory=dict)     # name -> [copy-ins, copy-outs]

    def add(self, names, direction: int) -> None:
        for name in names:
            self.copies.setdefault(name, [0, 0])[direction] += 1

    def __str__(self):
        if not self.copies:
            return "no copies"
        return "; ".join(f"{name}: {ins} in, {outs} out"
                         for name, (ins, outs) in self.copies.items())


@dataclass(frozen=True)
class EntryState:
    """What planning sees of an entry (`Table.snapshot`)."""
    lo: int
    hi: int
    layout: tuple
    stale: bool


_SERIALS = itertools.count(1)


@dataclass(eq=False)
class Entry:
    device: object
    lo: int
    hi: int
    layout: tuple
    buffer: object
    dtype: np.dtype
    nbytes: int
    destinations: tuple       # (owner, sources, dtype) of the copy-back (as the executor's)
    names: tuple              # the arrays of the group, for the log
    log: TransferLog
    scope: int                # the call that made it; 0: memory held by `resident`
    stale: bool = False
    serial: int = field(default_factory=lambda: next(_SERIALS))   # never reused, unlike id()

    def state(self) -> EntryState:
        return EntryState(self.lo, self.hi, self.layout, self.stale)


@dataclass(eq=False)
class Hold:
    """Memory held on the device by a `resident` block (the array kept alive with it)."""
    lo: int
    hi: int
    array: np.ndarray


def _overlaps(lo, hi, ranges) -> bool:
    return any(lo < b and a < hi for a, b in ranges)


class Table:
    """The residency table (one per process: `TABLE`). Every method takes the lock; the
    executor holds it across a whole run that uses entries."""

    def __init__(self):
        self.lock = threading.RLock()
        self.entries: list = []
        self.held: list = []             # of Hold, from `resident` blocks
        self.logs: dict = {}             # scope -> TransferLog
        self._snapshot = ()
        self._held = ()
        # (EntryState of every entry, [(lo, hi)] of the held memory), kept up to date: what
        # planning reads at every call, without a call.
        self.state = ((), ())
        # Bumped whenever the entries (which objects, which are stale) or the held memory
        # change: a nest relaunched at the same version finds the buffers it was bound to, in
        # the state it left them (jitgpu/relaunch.py).
        self.version = 0
        self._identity = ()

    # --- what planning sees ---------------------------------------------------------------

    def snapshot(self) -> tuple:
        """(EntryState of every entry, [(lo, hi)] of the held memory): `state`."""
        return self.state

    def _held_changed(self) -> None:
        self._held = tuple((h.lo, h.hi) for h in self.held)
        self.state = (self._snapshot, self._held)
        self._new_version()
        invalidate_replays()      # a replayed call would not keep held memory on the device

    def _changed(self) -> None:
        identity = tuple((e.serial, e.stale) for e in self.entries)
        if identity != self._identity:
            self._identity = identity
            self._snapshot = tuple(e.state() for e in self.entries)
            self.state = (self._snapshot, self._held)
            self._new_version()
        COUNTERS[0] = len(self.entries)

    def _new_version(self) -> None:
        self.version += 1
        COUNTERS[2] = self.version         # (what a relaunch from C++ compares)

    def log(self, scope) -> TransferLog:
        """The transfer log of call `scope` (a fresh one for an unknown scope)."""
        with self.lock:
            found = self.logs.get(scope)
            if found is None:
                found = self.logs[scope] = TransferLog()
                if len(self.logs) > 64:          # the logs of calls long ended
                    for old in list(self.logs)[:-64]:
                        del self.logs[old]
            return found

    # --- entries --------------------------------------------------------------------------

    def find(self, lo: int, hi: int) -> list:
        return [e for e in self.entries if e.lo < hi and lo < e.hi]

    def entry_at(self, lo: int, hi: int, layout: tuple):
        for e in self.entries:
            if e.lo == lo and e.hi == hi and e.layout == layout:
                return e
        return None

    def keep(self, device, group, buffer, dtype, nbytes, copy_back, stale, scope,
             log) -> None:
        """Make (or update) the entry of `group` after a run: its buffer holds current data;
        `stale`: the host copy is older; `copy_back`: (owner, sources, dtype), as
        `Transfers.copy_back_writes` takes them."""
        with self.lock:
            (lo, hi), rest = group_keys(group)
            layout = (device.label, *rest)
            entry = self.entry_at(lo, hi, layout)
            if entry is None:
                for other in self.find(lo, hi):     # planning flushed these; never two copies
                    self._flush(other)
                    self.entries.remove(other)
                held = _overlaps(lo, hi, [(h.lo, h.hi) for h in self.held])
                entry = Entry(device, lo, hi, layout, buffer, np.dtype(dtype), nbytes,
                              copy_back, tuple(group.arrays),
                              TransferLog() if log is None else log, 0 if held else scope)
                self.entries.append(entry)
            entry.stale = entry.stale or stale
            if stale:
                entry.destinations = copy_back
            self._changed()

    def _flush(self, entry) -> None:
        """Copy a stale entry back into host memory (blocking)."""
        if not entry.stale:
            return
        device = entry.device
        owner, sources, dtype = entry.destinations
        staging = LazyStaging(device.pinned, entry.nbytes, dtype)
        writes = device.transfers.copy_back_writes(entry.buffer, owner, sources, staging)
        device.queue.finish()
        write_back(writes)
        entry.stale = False
        entry.log.add(entry.names, 1)

    def flush_and_drop(self, ranges) -> None:
        """Copy back the stale entries overlapping any of `ranges` and drop them."""
        with self.lock:
            for entry in [e for e in self.entries if _overlaps(e.lo, e.hi, ranges)]:
                try:
                    self._flush(entry)
                finally:
                    self.entries.remove(entry)
                    self._changed()

    def drop_all_of(self, lo: int, hi: int) -> None:
        """Forget the entries overlapping [lo, hi) without copying them back (their device
        copy is not to be trusted: a failed run)."""
        with self.lock:
            for entry in self.find(lo, hi):
                self.entries.remove(entry)
            self._changed()

    def memory_dies(self, lo: int, hi: int) -> None:
        """Compiled code frees the memory [lo, hi): the entries within it are forgotten; one
        reaching beyond it (a group that also covers live memory) is copied back first."""
        with self.lock:
            for entry in self.find(lo, hi):
                if entry.lo < lo or hi < entry.hi:
                    self._flush(entry)
                self.entries.remove(entry)
            self._changed()

    def flush_ranges(self, reads, writes) -> None:
        """A host statement is about to read the bytes of `reads` and write those of `writes`
        ([(lo, hi)]): copy back what is stale there; forget the device copies of `writes`."""
        with self.lock:
            for entry in list(self.entries):
                written = _overlaps(entry.lo, entry.hi, writes)
                if written or _overlaps(entry.lo, entry.hi, reads):
                    self._flush(entry)
                    if written:
                        self.entries.remove(entry)
            self._changed()

    def close_scope(self, scope: int, dead=()) -> None:
        """The end of call `scope`: its entries are copied back, except those whose memory
        dies with the call (`dead`: [(lo, hi)] of its local arrays), and dropped."""
        with self.lock:
            try:
                for entry in [e for e in self.entries if e.scope == scope]:
                    if not _overlaps(entry.lo, entry.hi, dead):
                        self._flush(entry)
                    self.entries.remove(entry)
            finally:
                for entry in [e for e in self.entries if e.scope == scope]:
                    self.entries.remove(entry)      # after a failed copy: none left behind
                self._changed()

    # --- `unpython.resident` --------------------------------------------------------------

    def hold(self, arrays) -> list:
        """Keep entries of the memory of `arrays` across calls; returns the ranges to
        `release`."""
        holds = [Hold(*np.lib.array_utils.byte_bounds(a), a) for a in arrays
                 if isinstance(a, np.ndarray) and a.size]
        with self.lock:
            self.held += holds
            self._held_changed()
            for entry in self.entries:      # already on the device in a running call
                if _overlaps(entry.lo, entry.hi, [(h.lo, h.hi) for h in holds]):
                    entry.scope = 0
        return holds

    def release(self, holds) -> None:
        """The end of a `resident` block: the held memory's entries are copied back and
        dropped (also when the block raised), unless an enclosing block still holds them."""
        with self.lock:
            self.held = [h for h in self.held if all(h is not mine for mine in holds)]
            self._held_changed()
            still = [(h.lo, h.hi) for h in self.held]
            self.flush_and_drop([(h.lo, h.hi) for h in holds if not _overlaps(h.lo, h.hi, still)])

    def sync(self, arrays) -> None:
        """`unpython.sync(a, ...)`: the host copies become current and the device copies are
        forgotten, so that host code may read and write them."""
        ranges = [np.lib.array_utils.byte_bounds(a) for a in arrays
                  if isinstance(a, np.ndarray) and a.size]
        self.flush_and_drop(ranges)


TABLE = Table()


def on_device_now(values) -> bool:
    """Whether an array of `values` overlaps memory the residency table keeps on a device now
    (the call's earlier nests left it there). A nest of such arrays runs where the data is:
    on OpenMP it would copy them back, and the next nest copy them in again (H100, fdtd2d
    800x900, 150 steps: its one small nest a step on OpenMP made the call 284 ms, against 27
    ms with every nest on the GPU)."""
    if not COUNTERS[0]:
        return False
    for value in values.values():
        if isinstance(value, np.ndarray) and value.size:
            lo, hi = np.lib.array_utils.byte_bounds(value)
            if TABLE.find(lo, hi):
                return True
    return False


def flush_ranges(reads, writes) -> None:
    """Called by the compiled flush points (see the module docstring)."""
    TABLE.flush_ranges(reads, writes)


def holds(lo: int, hi: int) -> bool:
    """Whether a device copy's entry lies within the memory [lo, hi) (so holds it: its ndarray):
    compiled code asks before it takes an array's block for a new array (unpy_runtime.hpp
    `allocate_again`)."""
    with TABLE.lock:
        return any(lo <= e.lo and e.hi <= hi for e in TABLE.entries)


def memory_dies(lo: int, hi: int) -> None:
    """Called by compiled code as it frees an array's memory (unpy_runtime.hpp)."""
    TABLE.memory_dies(lo, hi)


def close_scope(scope: int, dead=()) -> None:
    """Called at the end of a call of a compiled @gpu function (normal return or exception)."""
    TABLE.close_scope(scope, dead)
