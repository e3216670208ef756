"""The table convention's coordinate ascent over a round's sum vectors (convention's `_plan`,
for rounds of more than EXHAUSTIVE_LIMIT vectors).

The ascent walks from fixed starts, seat by seat, moving to the first option of a seat that
scores better, as long as some seat moves. It returns what that walk reaches, and is cheaper
than walking it naively in two exact ways:
- a vector's value is at most the sum of its seats' kept values (its bound): a goal costs
  nothing or more, and a hand keeping one card more is worth no less (every pair of the
  smaller hand is one of the larger, so a seat's lost value <= its kept value; adding smaller
  floats in the same order never gives more). So while the current vector wins the round, a
  vector whose bound is not above its value cannot improve on it and is not scored, where
  no goal check can fail (the exhaustive search passes over tables the same way);
- a seat's line (its options, the other seats' as they are) is not walked again while no
  other seat has moved since it was: its scores are the same, none above the current one.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from operator import getitem

#: Restarts of the coordinate ascent (from a fixed generator: every seat gets the same plan).
RESTARTS = 8
#: Restarts tried after the first winning plan is found.
AFTER_WIN = 2


def keeps_best(kept: Sequence[float]) -> int:
    """The option that keeps the best hand (the first of the best)."""
    return max(range(len(kept)), key=kept.__getitem__)


def ascend(sizes: list[int], score: Callable[[tuple[int, ...]], tuple[bool, float]],
           kept_of: Sequence[tuple[float, ...]], bounded: bool) -> tuple[int, ...]:
    """Coordinate ascent from fixed starts: each seat's option that keeps its best hand, then
    starts from a generator seeded with a constant (the same plan at every seat). `score`
    gives a vector's (won, value), `kept_of` each seat's kept value per option. `bounded`:
    vectors may go unscored by their bound (every goal check answers on every table; a check
    that fails on one fails the plan where the walk scores it)."""
    rng = random.Random(0)
    starts = [tuple(keeps_best(seat) for seat in kept_of)]
    starts += [tuple(rng.randrange(s) for s in sizes) for _ in range(RESTARTS)]
    best = starts[0]
    best_score = score(best)
    left = len(starts)
    lines = range(len(sizes))
    for start in starts:
        left -= 1
        if left < 0:
            break
        current, current_score = start, score(start)
        # Per line: walked since the last move (and so holding nothing better).
        walked = [False] * len(sizes)
        for _ in range(8):
            improved = False
            for i in lines:
                if walked[i]:
                    continue
                head, own, tail = current[:i], current[i], current[i + 1:]
                moved = False
                for c in range(sizes[i]):
                    if c == own:
                        continue  # the current vector: its score is no improvement on itself
                    trial = (*head, c, *tail)
                    if bounded and current_score[0] and \
                            sum(map(getitem, kept_of, trial)) <= current_score[1]:
                        continue  # bounded by the won vector's value (the module's docstring)
                    value = score(trial)
                    if value > current_score:
                        current, current_score, own = trial, value, c
                        improved = moved = True
                if moved:
                    walked = [False] * len(sizes)
                walked[i] = True
            if not improved:
                break
        if current_score > best_score:
            best, best_score = current, current_score
        if best_score[0]:
            left = min(left, AFTER_WIN)
    return best
