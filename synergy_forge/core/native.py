"""Native twins of the built-in rule expressions, for speed.

Each function takes the same positional arguments, in the same order, as the expression of its
kind (rules.VARIABLES). tests/core/test_native.py proves each one equal to its data definition over
every input a round can produce; the data definitions stay the source of truth.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any


def _second_highest(sum: int, others: list[int], sums: list[int], distinct: list[int],
                    left: int | None, right: int | None) -> bool:
    return len(distinct) >= 2 and sum == distinct[-2]


def _second_lowest(sum: int, others: list[int], sums: list[int], distinct: list[int],
                   left: int | None, right: int | None) -> bool:
    return len(distinct) >= 2 and sum == distinct[1]


def _between(sum: int, others: list[int], sums: list[int], distinct: list[int],
             left: int | None, right: int | None) -> bool:
    return left is not None and right is not None and (left < sum < right or right < sum < left)


NATIVE: Mapping[str, Callable[..., Any]] = MappingProxyType({
    # goals: (sum, others, sums, distinct, left, right)
    "one-higher": lambda s, others, *_: s - 1 in others,
    "one-lower": lambda s, others, *_: s + 1 in others,
    "equal": lambda s, others, *_: s in others,
    "unique": lambda s, others, *_: s not in others,
    "between": _between,
    "second-highest": _second_highest,
    "second-lowest": _second_lowest,
    # constraints: (first, second, first_effective, second_effective, sum, identical)
    "uneven": lambda f, s, fe, se, *_: se % 2 == 1,
    "even": lambda f, s, fe, se, *_: se % 2 == 0,
    "low-to-high": lambda f, s, *_: s > f,
    "high-to-low": lambda f, s, *_: s < f,
    "minimum-5": lambda f, s, fe, se, total, _: total >= 5,
    "maximum-7": lambda f, s, fe, se, total, _: total <= 7,
    "no-doubles": lambda f, s, *_: f != s,
    # value: (value)
    "one-is-six": lambda v: 6 if v == 1 else v,
    # combine: (first, second)
    "difference": lambda f, s: abs(f - s),
    # sum: (sum, first, second, identical)
    "double-plus-3": lambda total, f, s, identical: total + 3 if identical else total,
    "five-is-ten": lambda total, *_: 10 if total == 5 else total,
})

#: The native checks: each answers on every input of its kind (a campaign's own rule may fail
#: on some, with a RuleError), so a bot may leave one unasked where its answer cannot matter.
INFALLIBLE: frozenset[Callable[..., Any]] = frozenset(NATIVE.values())
