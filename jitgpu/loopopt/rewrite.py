"""Tree rewriting helpers of the kernel loop optimisations that know the kernel's access table:
the IR-generic ones live in unpy/loopopt/rewrite.py and unpy/loopopt/nest.py (both back ends use
them)."""
from __future__ import annotations

import dataclasses

from jitgpu.loopopt.view import index_reads
from unpy.loopopt.nest import ArrayAccess
from unpy.loopopt.rewrite import rename, transform


def next_aid(kernel) -> int:
    return max([aid for aid, _ in kernel.accesses], default=-1) + 1


class AccessCopies:
    """The accesses of the copies a pass makes of a kernel's statements (unroll_and_jam's,
    unroll_inner's): in a copy whose variables `names` renames, an access whose device index
    reads one of `copied` gets a new id, once per copy, with its device index renamed, the
    accesses its terms compute from (`x[idx[k]]`'s idx[k]) copied alike; `added` holds the new
    (id, DeviceIndex) pairs."""

    def __init__(self, kernel):
        self.table = dict(kernel.accesses)
        self.aid = next_aid(kernel)
        self.added = []

    def renamer(self, names: dict, copied: set):
        """A node function for `transform` over one copy (of `rename(stmt, names)`)."""
        remap = {}

        def access(n):
            if isinstance(n, ArrayAccess) and n.aid in self.table:
                index = self.table[n.aid]
                if index_reads(index) & copied:
                    if n.aid not in remap:
                        remap[n.aid] = self.aid
                        self.aid += 1
                        terms = tuple(dataclasses.replace(
                            t, loop=names.get(t.loop, t.loop),
                            index=None if t.index is None else transform(
                                rename(t.index, names), access)) for t in index.terms)
                        self.added.append((remap[n.aid], dataclasses.replace(index, terms=terms)))
                    return dataclasses.replace(n, aid=remap[n.aid])
            return n
        return access
