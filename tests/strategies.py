"""Hypothesis strategies for legal round tables."""

from __future__ import annotations

from hypothesis import strategies as st

from synergy_forge.core.cards import CHALLENGE_IDS, DEFAULT_COLORS, GOAL_IDS, Action, NumberCard
from synergy_forge.core.referee import ActionUse, SeatPlay, Table


@st.composite
def tables(draw, challenges=None, actions: bool = True, min_seats: int = 3) -> Table:
    n = draw(st.integers(min_seats, 5))
    colors = DEFAULT_COLORS[:n]
    plays = []
    for i in range(n):
        # Mostly own colour; sometimes another seat's card (after I in an earlier round's sense).
        color = st.sampled_from(colors) if draw(st.integers(0, 9)) == 0 else st.just(colors[i])
        first = NumberCard(draw(st.integers(1, 5)), draw(color))
        second = NumberCard(draw(st.integers(1, 5)), draw(color))
        plays.append(SeatPlay(first, second, draw(st.sampled_from(GOAL_IDS))))
    if challenges is None:
        pool = [c for c in CHALLENGE_IDS if c != "goals-left"]
        challenges = tuple(draw(st.lists(st.sampled_from(pool), unique=True, max_size=4)))
    super_seat = draw(st.none() | st.integers(0, n - 1))
    hyper_seat = draw(st.none() | st.integers(0, n - 1))
    uses: list[ActionUse] = []
    if actions:
        cards = draw(st.lists(st.sampled_from(list(Action)), unique=True, max_size=n))
        users = draw(st.permutations(range(n)))
        seat = st.integers(0, n - 1)
        for card, user in zip(cards, users, strict=False):
            if card in (Action.H, Action.J) and user in (super_seat, hyper_seat):
                continue
            pair = draw(st.lists(seat, min_size=2, max_size=2, unique=True).map(tuple))
            uses.append(ActionUse(
                card, user, target=draw(seat), other=draw(seat.filter(lambda s, u=user: s != u)),
                seats=pair, replacement=NumberCard(draw(st.integers(1, 5)), colors[user]),
            ))
    return Table(tuple(plays), challenges, draw(st.integers(0, n - 1)), super_seat, hyper_seat,
                 tuple(uses), colors)


def rotate(table: Table, k: int) -> Table:
    """The same round with every seat moved k places clockwise (seat i becomes seat i+k)."""
    n = table.players

    def r(seat):
        return None if seat is None else (seat + k) % n

    plays = [None] * n
    colors = [""] * n
    for i, play in enumerate(table.plays):
        plays[r(i)] = play
        colors[r(i)] = table.colors[i]
    uses = tuple(
        ActionUse(u.card, r(u.seat), r(u.target), r(u.other),
                  tuple(r(s) for s in u.seats) if u.seats else None, u.replacement)
        for u in table.actions
    )
    return Table(tuple(plays), table.challenges, table.allowed_failures, r(table.super_seat),
                 r(table.hyper_seat), uses, tuple(colors))
