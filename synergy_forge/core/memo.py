"""Bounded memos for pure functions: the one kind of cache the package keeps.

Each memo belongs to the object that owns what it remembers, never to a module: the bots' mission
model (sim.model), handed to them by whoever plays the games and freed with it, or a bot's own
memory; never to a rulebook, a mission or a game that a bot's observation reaches, so what one
seat works out cannot be read or changed through another seat's view. Every memo remembers
answers of a pure function of its key (so emptying it changes no result, only the time), and
holds at most `size` entries: when full, it starts again empty, which costs less on every hit
than keeping the least recently used order.
"""

from __future__ import annotations

from typing import TypeVar

K = TypeVar("K")
V = TypeVar("V")


class Memo(dict[K, V]):
    """A dict of at most `size` entries; `remember` adds one, emptying the memo when full.

    A dict, so that a look-up (`get`) costs what a dict's does: the engine and the bots ask
    their memos millions of times a playtest.
    """

    __slots__ = ("size",)

    def __init__(self, size: int) -> None:
        super().__init__()
        self.size = size

    def remember(self, key: K, value: V) -> V:
        if len(self) >= self.size:
            self.clear()
        self[key] = value
        return value
