"""CSLMADs (section 4.2): the address of an affine access as `b + sum s_k * i_k` over the box.

Two levels:
- `AccessPattern`: the byte address of one access site, built from the affine indices and the
  live NumPy strides (a view's layout enters only here). It gives the byte interval used by the
  overlap graph.
- `Cslmad`: the same set of addresses in element units of a group, normalised so that sets
  compare equal whatever the loop variables are called and whichever way they run: strides are
  positive (a negative stride over `[0, u)` covers the same set as the positive one from a base
  lower by `|s| * (u - 1)`), sorted in descending order (section 4.3.3), and loops of extent 1
  or with zero stride are dropped (they do not move the address).
  `NormalisedAccess` keeps which loop variable (and which direction) drives each dimension,
  which the device map of the access needs.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from unpy.host_memory import byte_span

from .nest import Access, LiveArray


@dataclass(frozen=True)
class Term:
    """`stride * var` with `0 <= var < extent`."""
    var: str
    stride: int
    extent: int


@dataclass(frozen=True)
class AccessPattern:
    """Byte address `base + sum t.stride * t.var` of one affine access (equation 1)."""
    base: int
    terms: tuple
    itemsize: int

    def byte_interval(self) -> tuple:
        """[lo, hi): from the lowest address to the end of the highest element."""
        return byte_span(self.base, [t.extent for t in self.terms],
                         [t.stride for t in self.terms], self.itemsize)

    def in_units(self, origin: int, unit: int) -> "NormalisedAccess":
        """The normalised CSLMAD in elements of `unit` bytes from `origin` (both must divide)."""
        assert (self.base - origin) % unit == 0 and all(t.stride % unit == 0 for t in self.terms)
        base = (self.base - origin) // unit
        dims = []
        for t in self.terms:
            stride = t.stride // unit
            if stride < 0:  # same set, run backwards from the other end
                base += stride * (t.extent - 1)
            dims.append((abs(stride), t.extent, t.var, stride < 0))
        dims.sort(key=lambda d: (-d[0], -d[1], d[2]))
        return NormalisedAccess(Cslmad(base, tuple((s, u) for s, u, _, _ in dims)),
                                tuple((var, rev) for _, _, var, rev in dims))


def access_pattern(acc: Access, arr: LiveArray, extents: dict) -> AccessPattern:
    """The byte-level CSLMAD of an affine access over its own sub-box (`Access.domain`, its
    loops counted from the domain's origin); its index forms distribute over the strides."""
    indices, extents = acc.in_domain(extents)
    base = arr.data_addr
    strides = {}
    for ix, dim_stride in zip(indices, arr.strides):
        base += ix.const * dim_stride
        for var, c in ix.coeffs:
            strides[var] = strides.get(var, 0) + c * dim_stride
    terms = tuple(Term(var, s, extents[var]) for var, s in sorted(strides.items())
                  if s != 0 and extents[var] > 1)
    return AccessPattern(base, terms, arr.itemsize)


@dataclass(frozen=True)
class Cslmad:
    """`base + sum s_k * i_k`, `0 <= i_k < u_k`, in element units; `dims` = ((s_k, u_k), ...)
    with s_k > 0 in descending order and u_k >= 2. No dims: a single element."""
    base: int
    dims: tuple

    @property
    def strides(self) -> tuple:
        return tuple(s for s, _ in self.dims)

    @property
    def extents(self) -> tuple:
        return tuple(u for _, u in self.dims)

    @property
    def size(self) -> int:
        """|D|: the number of iterations (of addresses when restricted)."""
        return math.prod(self.extents)

    def is_restricted(self) -> bool:
        """Definition 1 (RCSLMAD): every iteration has its own address."""
        return satisfies_restriction(self.strides, self.extents)


@dataclass(frozen=True)
class NormalisedAccess:
    """A CSLMAD plus, per dimension, the loop variable that drives it and whether it runs
    backwards (`i_k = extent - 1 - var`)."""
    cslmad: Cslmad
    dim_vars: tuple


def satisfies_restriction(strides: tuple, extents: tuple, slack: int = 0) -> bool:
    """`s_k > slack + sum_{p>k} s_p * (u_p - 1)` for all k < d.

    slack 0 is Definition 1 (equation 7); slack `s_d - 1` is inequality 14 of Theorem 2, which
    leaves room for interleaved copies with bases less than `s_d` apart.
    """
    inner = 0
    for k in range(len(strides) - 1, 0, -1):
        inner += strides[k] * (extents[k] - 1)
        if strides[k - 1] <= slack + inner:
            return False
    return True


@functools.lru_cache(maxsize=1024)
def _enumerated(patterns: tuple, unit: int) -> int:
    """The number of distinct `unit`-sized elements of accesses (base from the origin, terms,
    itemsize), by enumeration (remembered: a call on new arrays of the same layout, as the
    temporaries of array statements are, counts the same)."""
    chunks = []
    for base, terms, itemsize in patterns:
        addrs = np.array([base], dtype=np.int64)
        for t in terms:
            addrs = (addrs[:, None] + t.stride * np.arange(t.extent, dtype=np.int64)).ravel()
        parts = np.arange(0, itemsize, unit, dtype=np.int64)
        chunks.append(((addrs[:, None] + parts) // unit).ravel())
    return len(np.unique(np.concatenate(chunks))) if chunks else 0


# Enumerating addresses to count them exactly costs memory per iteration point.
MAX_ENUMERATED = 1 << 18


def count_distinct(patterns: list, origin: int, unit: int,
                   limit: int = MAX_ENUMERATED) -> tuple:
    """(number of distinct `unit`-sized elements the accesses touch, exact?): exact by
    enumeration when the iteration points are few, else an upper bound per access
    (`min(|D|, range / gcd(strides) + 1)`) summed over the accesses. `limit` bounds the
    number of points enumerated."""
    points = sum(math.prod(t.extent for t in p.terms) * (p.itemsize // unit) for p in patterns)
    if points <= limit:
        return _enumerated(tuple((p.base - origin, p.terms, p.itemsize) for p in patterns),
                           unit), True
    bound = 0
    for p in patterns:
        lo, hi = p.byte_interval()
        step = math.gcd(*(t.stride for t in p.terms)) or 1
        bound += min(math.prod(t.extent for t in p.terms), (hi - lo - p.itemsize) // step + 1) \
            * (p.itemsize // unit)
    return bound, False
