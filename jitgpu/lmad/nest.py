"""The loop nest as jitgpu sees it at call time: normalised loops, live arrays, accesses.

Loops are normalised (lower bound 0, step 1, section 4.2 of the paper), so every index is an
affine form over variables that run over `[0, extent)`. Arrays are described by their live
NumPy layout (byte address, byte strides), which is what makes the analysis exact for views.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from unpy.host_memory import byte_span


@dataclass(frozen=True)
class AffineForm:
    """`const + sum coeff * var` over normalised loop variables.

    `coeffs` may be given as a dict or as pairs in any order; it is stored as a tuple of
    `(var, coeff)` pairs sorted by name, without zero coefficients, so equal forms compare equal.
    """
    const: int
    coeffs: tuple = ()

    def __post_init__(self):
        pairs = self.coeffs.items() if isinstance(self.coeffs, dict) else self.coeffs
        merged = {}
        for var, coeff in pairs:
            merged[var] = merged.get(var, 0) + int(coeff)
        object.__setattr__(self, "const", int(self.const))
        object.__setattr__(self, "coeffs", tuple(sorted((v, c) for v, c in merged.items() if c)))

    def value_range(self, extents: dict) -> tuple:
        """(min, max) over the box `0 <= var < extents[var]`; every extent must be >= 1."""
        lo = hi = self.const
        for var, c in self.coeffs:
            reach = c * (extents[var] - 1)
            lo += min(0, reach)
            hi += max(0, reach)
        return lo, hi

    def evaluate(self, env: dict) -> int:
        return self.const + sum(c * env[v] for v, c in self.coeffs)

    def shifted(self, origin: dict) -> "AffineForm":
        """The form over variables counted from `origin`: f'(v) = f(v + origin[v])."""
        return AffineForm(self.evaluate({v: origin.get(v, 0) for v, _ in self.coeffs}),
                          self.coeffs)

    def __str__(self):
        text = ""
        for var, c in self.coeffs:
            term = var if abs(c) == 1 else f"{abs(c)}*{var}"
            if text:
                text += f" - {term}" if c < 0 else f" + {term}"
            else:
                text = f"-{term}" if c < 0 else term
        if not text:
            return str(self.const)
        if self.const:
            text += f" - {-self.const}" if self.const < 0 else f" + {self.const}"
        return text


@dataclass
class LoopDim:
    """A normalised loop: `var` runs over `[0, extent)`."""
    var: str
    extent: int
    parallel: bool


@dataclass
class LiveArray:
    """One argument array at call time, as NumPy lays it out.

    `data_addr` is the byte address of element [0, ..., 0] (for a negative-stride view that is
    not the lowest address). `strides` are in bytes and may be negative or zero.
    `[buffer_lo, buffer_hi)` is the byte range of the whole allocation the array views.
    """
    key: str
    data_addr: int
    itemsize: int
    shape: tuple
    strides: tuple
    buffer_lo: int
    buffer_hi: int

    def byte_interval(self) -> Optional[tuple]:
        """[lo, hi) of the bytes of the view's elements; None when it has no element."""
        lo, hi = byte_span(self.data_addr, self.shape, self.strides, self.itemsize)
        return None if lo == hi else (lo, hi)


@dataclass
class Access:
    """One access site in the nest: `array[indices...]`.

    An index is an AffineForm, or None when it is not affine (`a[i*i]`, `a[idx[i]]`).
    `unconditional` says the access runs on every iteration of the loop box (it is under no
    `if` and no triangular-bound guard); only such writes can prove that a region is fully
    overwritten and need not be copied in. The default is the safe one.
    `domain`: `((var, lo, hi), ...)`, the access runs only while each such `var` is in
    `[lo, hi)`, a non-empty part of its loop's `[0, extent)` (the conditions that dominate it,
    `if e - w >= 0:`); its bounds and its footprint are those of that sub-box. Only sequential
    loops are narrowed so: tiles and device shares cut the parallel ones.
    """
    ref_id: int
    array: str
    indices: list
    read: bool
    write: bool
    unconditional: bool = field(default=False)
    domain: tuple = ()

    @property
    def is_affine(self) -> bool:
        return all(ix is not None for ix in self.indices)

    def origin(self) -> dict:
        """{var: lo} of the domain: where the access's own sub-box starts."""
        return {var: lo for var, lo, _ in self.domain}

    def in_domain(self, extents: dict) -> tuple:
        """(indices, extents) over the access's own sub-box, counted from its origin: the
        forms shifted (`const += coeff * lo`), the narrowed loops' extents `hi - lo`."""
        origin = self.origin()
        indices = [None if ix is None else ix.shifted(origin) for ix in self.indices]
        own = dict(extents)
        own.update({var: hi - lo for var, lo, hi in self.domain})
        return indices, own

    def subscript(self) -> str:
        """`a[i + 1, ?]`, as a user would write it (`?` for a non-affine index)."""
        parts = ["?" if ix is None else str(ix) for ix in self.indices]
        return f"{self.array}[{', '.join(parts)}]"


def check_nest(loops: list, arrays: list, accesses: list) -> dict:
    """Checks that the nest is well formed (a caller bug otherwise) and returns arrays by key."""
    by_key = {a.key: a for a in arrays}
    if len(by_key) != len(arrays):
        raise ValueError("two live arrays share a key")
    loop_vars = {loop.var for loop in loops}
    if len(loop_vars) != len(loops):
        raise ValueError("two loops share a variable")
    if any(loop.extent < 0 for loop in loops):
        raise ValueError("a loop extent is negative")
    extents = {loop.var: loop.extent for loop in loops}
    if len({acc.ref_id for acc in accesses}) != len(accesses):
        raise ValueError("two accesses share a ref_id")
    for acc in accesses:
        arr = by_key.get(acc.array)
        if arr is None:
            raise ValueError(f"ref {acc.ref_id}: unknown array {acc.array!r}")
        if len(acc.indices) != len(arr.shape):
            raise ValueError(f"ref {acc.ref_id}: {len(acc.indices)} indices for "
                             f"{len(arr.shape)}-d array {acc.array!r}")
        for ix in acc.indices:
            if ix is not None and any(v not in loop_vars for v, _ in ix.coeffs):
                raise ValueError(f"ref {acc.ref_id}: index {ix} uses a variable that is no loop")
        for var, lo, hi in acc.domain:
            if var not in extents or not 0 <= lo < hi <= extents[var]:
                raise ValueError(f"ref {acc.ref_id}: domain {var} in [{lo}, {hi}) is not a "
                                 "non-empty part of its loop")
    return by_key


def iteration_count(loops: list) -> int:
    count = 1
    for loop in loops:
        count *= loop.extent
    return count
