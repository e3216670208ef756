"""The knobs `tune` turns: a mission's tunable setting, and its candidates in order of distance
from the original, each knob moving only towards the band (docs/scale.md)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

from synergy_forge.core.cards import MAX_ROUNDS, Action
from synergy_forge.core.mission import Mission

#: How far from the original the search looks (in steps).
MAX_DISTANCE = 8
ACTION_STEP = 2



@dataclass(frozen=True)
class Setting:
    """The tunable part of a mission."""

    rounds: int
    lives: int
    allowed_failures: tuple[tuple[int, int], ...]  # (player count, failures), by count
    hand_numbers: int
    hand_goals: int
    actions: tuple[Action, ...]

    @classmethod
    def of(cls, mission: Mission) -> Setting:
        return cls(mission.rounds, mission.lives,
                   tuple(sorted((p, mission.allowed_failures[p]) for p in mission.players)),
                   mission.hand_numbers, mission.hand_goals, tuple(mission.actions))

    def apply(self, mission: Mission, stars: int | None = None) -> Mission:
        return replace(mission, rounds=self.rounds, lives=self.lives,
                       allowed_failures=dict(self.allowed_failures),
                       hand_numbers=self.hand_numbers, hand_goals=self.hand_goals,
                       actions=self.actions, stars=mission.stars if stars is None else stars)

    def changes(self, other: Setting) -> list[tuple[str, object, object]]:
        """(knob, this value, other's value) for every knob that differs."""
        out: list[tuple[str, object, object]] = []
        for name in ("rounds", "lives"):
            if getattr(self, name) != getattr(other, name):
                out.append((name, getattr(self, name), getattr(other, name)))
        mine, theirs = dict(self.allowed_failures), dict(other.allowed_failures)
        for count in sorted(mine):
            if mine[count] != theirs.get(count):
                out.append((f"allowed failures at {count} players", mine[count],
                            theirs.get(count)))
        if self.hand_numbers != other.hand_numbers:
            out.append(("number cards in hand", self.hand_numbers, other.hand_numbers))
        if self.hand_goals != other.hand_goals:
            out.append(("goal cards in hand", self.hand_goals, other.hand_goals))
        if self.actions != other.actions:
            out.append(("action cards", " ".join(self.actions) or "none",
                        " ".join(other.actions) or "none"))
        return out


@dataclass(frozen=True)
class _Knob:
    name: str
    start: int
    low: int
    high: int
    harder: int  # the sign of a step that makes the mission harder


def _knobs(mission: Mission) -> list[_Knob]:
    goals = len(mission.goals)
    knobs = [
        _Knob("rounds", mission.rounds, 1, min(MAX_ROUNDS, goals), +1),
        _Knob("lives", mission.lives, 1, max(mission.lives, MAX_ROUNDS), -1),
    ]
    knobs += [_Knob(f"af{p}", mission.allowed_failures[p], 0, p - 1, -1)
              for p in sorted(mission.players)]
    knobs += [_Knob("numbers", mission.hand_numbers, 2, 10, -1),
              _Knob("goals", mission.hand_goals, 1, goals, -1)]
    return knobs


def _setting(mission: Mission, knobs: list[_Knob], values: Sequence[int],
             actions: tuple[Action, ...]) -> Setting:
    named = dict(zip((k.name for k in knobs), values, strict=True))
    return Setting(named["rounds"], named["lives"],
                   tuple((p, named[f"af{p}"]) for p in sorted(mission.players)),
                   named["numbers"], named["goals"], actions)


def _variants(mission: Mission, with_actions: bool) -> list[tuple[Action, ...]]:
    base = tuple(mission.actions)
    if not with_actions:
        return [base]
    removed = [tuple(a for a in base if a != gone) for gone in base]
    added = [(*base, new) for new in Action if new not in base]
    return [base, *removed, *added]


def candidates(mission: Mission, harder: bool, with_actions: bool
                ) -> Iterator[tuple[int, tuple[int, ...], int, Setting]]:
    """(distance, offsets, variant, setting), nearest first, every knob moving towards the band.

    Offsets count steps away from the original, per knob; the order is fixed, so the search is
    the same wherever it runs.
    """
    knobs = _knobs(mission)
    ranges = []
    for knob in knobs:
        sign = knob.harder if harder else -knob.harder
        limit = knob.high if sign > 0 else knob.low
        ranges.append(range(0, min(abs(limit - knob.start), MAX_DISTANCE) + 1))
    found = []
    for variant, actions in enumerate(_variants(mission, with_actions)):
        extra = ACTION_STEP if variant else 0
        for offsets in itertools.product(*ranges):
            distance = sum(offsets) + extra
            if distance > MAX_DISTANCE:
                continue
            found.append((distance, variant, offsets, actions))
    found.sort(key=lambda c: (c[0], c[1], c[2]))
    for distance, variant, offsets, actions in found:
        values = [k.start + (k.harder if harder else -k.harder) * o
                  for k, o in zip(knobs, offsets, strict=True)]
        setting = _setting(mission, knobs, values, actions)
        if setting.lives > _lives_cap(mission, setting.rounds):
            continue
        yield distance, offsets, variant, setting


def _lives_cap(mission: Mission, rounds: int) -> int:
    """The most lives a setting with `rounds` may have: more than the mission's goal cards can
    pay for earn validate's warning (mission.lives, R23: with D goal cards, only D - rounds + 1
    failed rounds can be played), so they are never proposed, unless the original already has
    them."""
    deck = min(len(mission.goals), MAX_ROUNDS)
    return max(1, max(deck, mission.rounds + mission.lives - 1) - rounds + 1)


def extreme_setting(mission: Mission, harder: bool) -> Setting:
    """Every knob at the end of its range towards harder (or easier)."""
    knobs = _knobs(mission)
    values = []
    for knob in knobs:
        sign = knob.harder if harder else -knob.harder
        values.append(knob.high if sign > 0 else knob.low)
    named = dict(zip((k.name for k in knobs), values, strict=True))
    # No more lives than validate accepts without a warning: the far end is a setting that
    # could be proposed, and the report names it as "the closest".
    values[[k.name for k in knobs].index("lives")] = min(
        named["lives"], _lives_cap(mission, named["rounds"]))
    return _setting(mission, knobs, values, tuple(mission.actions))


def grid_size(mission: Mission, with_actions: bool = False) -> int:
    """Settings an exhaustive grid over the same knobs would play (for the benchmark)."""
    size = 1
    for knob in _knobs(mission):
        size *= knob.high - knob.low + 1
    return size * len(_variants(mission, with_actions))
