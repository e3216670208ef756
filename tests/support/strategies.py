"""Hypothesis strategies for legal round tables."""

from __future__ import annotations

import functools
import os
from typing import Any

from hypothesis import settings
from hypothesis import strategies as st

from synergy_forge.core.actions import ActionUse
from synergy_forge.core.cards import (
    CHALLENGE_IDS,
    DEFAULT_COLORS,
    GOAL_IDS,
    NUMBER_VALUES,
    Action,
    NumberCard,
)
from synergy_forge.core.referee import SeatPlay, Table

#: SYNERGY_PROPERTY_EXAMPLES=N: N examples per property test, drawn afresh on every run, for a
#: deep run (docs/fuzzing.md). Unset, each test runs its own few examples, derandomized: the
#: same on every run, so that `make test` is reproducible and its CPU stays within the suite's
#: two minutes.
_DEEP = os.environ.get("SYNERGY_PROPERTY_EXAMPLES")


def examples(default: int, **options: Any) -> settings:
    """A property test's settings: `default` examples, the same ones every run (or a deep run's
    number, drawn afresh); no deadline (a loaded machine is slow, not wrong)."""
    count = int(_DEEP) if _DEEP else default
    return settings(max_examples=count, derandomize=not _DEEP, deadline=None, **options)


# The strategies `tables` draws from, each built once: hypothesis validates a strategy the
# first time it draws from it, and building a new one for every draw of every example was
# about a third of the time the property tests spent (the draws, hence the tables, are the
# same).
_DECK = st.permutations(NUMBER_VALUES)
_GOAL = st.sampled_from(GOAL_IDS)
_BOOLEAN = st.booleans()
_SWAP_ODDS = st.integers(0, 4)
_CHALLENGES = st.lists(st.sampled_from([c for c in CHALLENGE_IDS if c != "goals-left"]),
                       unique=True, max_size=4)


@functools.cache
def _seat_counts(fewest: int) -> st.SearchStrategy[int]:
    return st.integers(fewest, 5)


@functools.cache
def _seats(n: int) -> st.SearchStrategy[int]:
    return st.integers(0, n - 1)


@functools.cache
def _maybe_seat(n: int) -> st.SearchStrategy[int | None]:
    return st.none() | st.integers(0, n - 1)


@functools.cache
def _two_seats(n: int) -> st.SearchStrategy[list[int]]:
    return st.lists(_seats(n), min_size=2, max_size=2, unique=True)


@functools.cache
def _seat_pairs(n: int) -> st.SearchStrategy[tuple[int, ...]]:
    return _two_seats(n).map(tuple)


@functools.cache
def _other_seats(n: int, user: int) -> st.SearchStrategy[int]:
    return _seats(n).filter(lambda s: s != user)


@functools.cache
def _orders(n: int) -> st.SearchStrategy[list[int]]:
    return st.permutations(range(n))


@functools.cache
def _action_cards(n: int) -> st.SearchStrategy[list[Action]]:
    return st.lists(st.sampled_from(list(Action)), unique=True, max_size=n)


@st.composite
def tables(draw, challenges=None, actions: bool = True, min_seats: int = 3) -> Table:
    """A table a real round can produce (S9): each colour's cards drawn from its ten, and
    sometimes the two seats of an earlier I holding each other's card."""
    n = draw(_seat_counts(min_seats))
    colors = DEFAULT_COLORS[:n]
    decks = {c: [NumberCard(v, c) for v in draw(_DECK)] for c in colors}
    if challenges is None:
        challenges = tuple(draw(_CHALLENGES))
    super_seat = draw(_maybe_seat(n))
    hyper_seat = draw(_maybe_seat(n))
    cards = draw(_action_cards(n)) if actions else []
    # Another seat's card, after I in an earlier round's sense: never when I is used now.
    swap: tuple[int, ...] = ()
    if Action.I not in cards and draw(_SWAP_ODDS) == 0:
        swap = tuple(draw(_two_seats(n)))
    plays = []
    for i in range(n):
        own = decks[colors[i]]
        foreign = None
        if swap and i in swap and draw(_BOOLEAN):
            foreign = decks[colors[swap[1] if i == swap[0] else swap[0]]].pop()
        first, second = own.pop(), own.pop()
        if foreign is not None:
            if draw(_BOOLEAN):
                first = foreign
            else:
                second = foreign
        plays.append(SeatPlay(first, second, draw(_GOAL)))
    uses: list[ActionUse] = []
    users = draw(_orders(n))
    for card, user in zip(cards, users, strict=False):
        if card in (Action.H, Action.J) and user in (super_seat, hyper_seat):
            continue
        pair = draw(_seat_pairs(n))
        uses.append(ActionUse(
            card, user, target=draw(_seats(n)), other=draw(_other_seats(n, user)),
            seats=pair, replacement=decks[colors[user]].pop(),
        ))
    return Table(tuple(plays), challenges, draw(_seats(n)), super_seat, hyper_seat,
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


# --- Hostile input by class, for tests/package/test_fuzz.py -------------------------------------

#: Parts of the paths users write in campaign.yaml, legal and hostile.
PATH_PARTS = st.sampled_from([
    "missions", "goals", "*.yaml", "*", "**", "**a", "a**", "..", ".", "", "[", "[a-", "?",
    "é", "x" * 300, "y" * 120, "~", "C:", "\\", "a\\b", "\0", "goals/*.yaml", "*.yml",
])


@st.composite
def campaign_patterns(draw) -> str:
    """A path or glob pattern for `missions:`, `goals:` or `challenges:`: any number of parts
    (up to 300, past the glob's recursion), sometimes absolute."""
    parts = draw(st.lists(PATH_PARTS, min_size=1, max_size=draw(st.sampled_from([3, 12, 300]))))
    prefix = draw(st.sampled_from(["", "", "/", "./", "../", "~/"]))
    return prefix + "/".join(parts)


#: Where an output cannot go (class 3): a FIFO, a link to a stream (as /dev/stdout is; never
#: the system's own devices: a regression would replace them), a folder, under a file, names
#: too long.
UNWRITABLE = st.sampled_from(["{fifo}", "{stream}", "{dir}", "{file}/out", "x" * 300,
                              "{dir}/" + "y" * 256, "{dir}/" + "z" * 250])

#: Commands that print, with what they print (class 3).
PRINTING_COMMANDS = st.sampled_from([
    ["play", "1", "--seed", "1", "--bots", "random"], ["play", "1", "--quiet"],
    ["validate", "{starter}"], ["validate", "{starter}", "--format", "json"],
    ["playtest", "{starter}/missions/01-first-notes.yaml", "--games", "2", "--format", "json"],
    ["replay", "{log}"], ["judge", "{round}"], ["--help"], ["--version"], ["play", "--help"],
])


@st.composite
def yaml_numbers(draw) -> str:
    """A number as YAML 1.1 may write it (class 2): decimal, hexadecimal, binary, octal, base
    60, with underscores and signs, short or thousands of digits long."""
    digits = draw(st.sampled_from([1, 3, 19, 20, 25, 400, 5000]))
    body = draw(st.text(alphabet="0123456789abcdefABCDEF_", min_size=1, max_size=digits))
    form = draw(st.sampled_from(["{}", "0x{}", "0b{}", "0{}", "0o{}", "1:{}", "{}.5",
                                 "1:20:{}", "{}e5", "!!int {}", "!!float {}"]))
    sign = draw(st.sampled_from(["", "-", "+"]))
    return sign + form.format(body)


#: Seeds around every edge a 64-bit reader has (class 4): what play takes, a log holds.
seeds = st.one_of(
    st.integers(-(2**64), 2**64),
    st.sampled_from([2**63 - 1, 2**63, -(2**63), -(2**63) - 1, 2**53 + 1, 0, -1, 10**30]),
)


#: Values a forger puts in a log's header (class 5).
FORGED_VALUES = st.one_of(st.integers(-2, 10), st.booleans(), st.text(max_size=8),
                          st.lists(st.sampled_from(GOAL_IDS), max_size=7),
                          st.sampled_from(["true", "sum > 0", "close-call", "first-notes"]))


@st.composite
def header_forgeries(draw, header: dict) -> dict:
    """A copy of a log's game record with one field of its mission or of one definition set
    to a forged value, or a definition added (class 5)."""
    import copy

    forged = copy.deepcopy(header)
    where = draw(st.sampled_from(["mission", "definition", "added"]))
    if where == "mission" or not forged["definitions"]:
        key = draw(st.sampled_from(sorted(forged["mission"])))
        forged["mission"][key] = draw(FORGED_VALUES)
    elif where == "definition":
        definition = draw(st.sampled_from(forged["definitions"]))
        definition[draw(st.sampled_from(sorted(definition)))] = draw(FORGED_VALUES)
    else:
        forged["definitions"].append({"id": draw(st.sampled_from([*GOAL_IDS, "mine"])),
                                      "name": "N", "text": "T", "rule": draw(FORGED_VALUES)})
    return forged


#: What a folder walk meets (class 6): files, FIFOs, links broken, looping or leading out.
ENTRY_KINDS = st.sampled_from(["mission", "yaml", "fifo", "broken-link", "loop-link",
                               "parent-link", "folder"])


@st.composite
def folder_entries(draw) -> list[tuple[str, str]]:
    """(relative path, kind) of the entries of a folder tree a user hands `validate`."""
    folders = ["", "missions/", "goals/", "rounds/", "other/", ".hidden/"]
    names = st.sampled_from(["a.yaml", "b.yml", "c.json", "campaign.yaml", "d.yaml"])
    return draw(st.lists(st.tuples(st.builds(str.__add__, st.sampled_from(folders), names),
                                   ENTRY_KINDS), min_size=1, max_size=8,
                         unique_by=lambda e: e[0]))


@st.composite
def scheduler_addresses(draw) -> str:
    """What a user may type for --scheduler (class 7): any scheme, host and port, well-formed
    or not; hosts are local or malformed only, so that nothing leaves the machine."""
    scheme = draw(st.sampled_from(["tcp://", "TCP://", "", "tls://", "ucx://", "inproc://",
                                   "file://", "ws://", "http://", "tcp:/", "://"]))
    host = draw(st.sampled_from(["127.0.0.1", "localhost", "[::1]", "", "a b", "x" * 300,
                                 "127.0.0.1/x", "::1"]))
    port = draw(st.sampled_from(["", ":", ":0", ":1", ":9", ":65535", ":65536", ":-1", ":abc",
                                 ":8786", ":1e3", ": 80", ":٣"]))
    return scheme + host + port + draw(st.sampled_from(["", "/", "/path", "?q"]))


#: What happens to a studio's campaign folder while it is watched (class 8).
FOLDER_EVENTS = st.lists(st.sampled_from(["delete", "create", "edit", "file-in-its-place",
                                          "move-away", "move-back"]), min_size=1, max_size=6)


@st.composite
def failing_rules(draw) -> str:
    """A goal rule that passes validate's search but fails in some games (class 8): it fails
    only for a player count and for sums the search does not try together."""
    players = draw(st.sampled_from([3, 4, 5]))
    sums = draw(st.lists(st.sampled_from([4, 6, 9, 10, 11, 12]), min_size=1, max_size=6,
                         unique=True))
    return (f"(sums|length) != {players} or sum not in {sorted(sums)} or "
            f"others[{draw(st.integers(5, 9))}] > 0")


@st.composite
def out_races(draw) -> tuple[str, int, str]:
    """(folder of OUT, after how many finished documents, what takes its place) for a build
    whose output folder changes under it (class 10)."""
    folder = draw(st.sampled_from([".cache", "en", "en/png", "en/png/numbers", ".cache/templates",
                                   ".tmp"]))
    return folder, draw(st.integers(0, 12)), draw(st.sampled_from(["link", "file", "fifo",
                                                                    "link-to-file"]))


#: What a seat sends to a table (docs/table.md): an id of its view now, an id of any view it
#: was shown before (of this game or an earlier one at the table), or such an id changed.
TABLE_MOVES = st.sampled_from(["legal", "seen", "changed"])


@st.composite
def changed_ids(draw, choice_id: str) -> str:
    """A choice id (`g1.r2.s5.KIND.CHOICE`) with one part changed: the game, the round or the
    step another number, another kind, the choice's text cut, extended or another's."""
    parts = choice_id.split(".", 4)
    at = draw(st.integers(0, 4))
    if at < 3:
        number = int(parts[at][1:])
        parts[at] = parts[at][0] + str(draw(st.sampled_from([number - 1, number + 1, 0, 99])))
    elif at == 3:
        parts[at] = draw(st.sampled_from(["super", "hyper", "first-number", "goal", "action",
                                          "second-number", "take-back", "Goal", ""]))
    else:
        text = parts[at]
        parts[at] = draw(st.sampled_from([text[:-1], text + "0", text + ".take=red:1", "none",
                                          "seat0", "red:1", text.upper()]))
    return ".".join(parts)


#: What may stand at a name a command writes into a campaign (the write policy, class 11):
#: nothing, our own earlier output, another file of the user's, a link to a file outside the
#: campaign, a dangling link out of it, a link to a file inside it, a FIFO, a folder.
WRITE_TARGETS = st.sampled_from(["missing", "ours", "old", "user", "link-out", "dangling-out",
                                 "link-in", "fifo", "folder"])


@st.composite
def campaign_writes(draw) -> tuple[str, dict[str, str]]:
    """(command, {schema file name: what stands there}) for `schemas --update` or
    `new campaign .` in a folder whose .synergy/schemas/ a cloned repository brought."""
    names = st.sampled_from(["mission.schema.json", "goal.schema.json",
                             "campaign.schema.json", "round.schema.json"])
    return (draw(st.sampled_from(["schemas", "new"])),
            draw(st.dictionaries(names, WRITE_TARGETS, min_size=1, max_size=4)))


#: Invisible characters a text may smuggle in (class 12): direction overrides and isolates,
#: marks, zero-width spaces, a word joiner, a byte-order mark inside, a tag.
INVISIBLES = st.sampled_from(["\u202e", "\u202d", "\u202a", "\u2066", "\u2067", "\u2069",
                              "\u200e", "\u200f", "\u061c", "\u200b", "\u2060", "\ufeff",
                              "\u00ad", "\U000e0041"])


@st.composite
def hostile_findings(draw) -> tuple[str, int, str]:
    """(field of a mission, how many wrong items its list holds, an invisible character or
    "") for a file of many findings (class 12)."""
    return (draw(st.sampled_from(["challenges", "players", "actions", "goals"])),
            draw(st.integers(0, 30_000)), draw(st.just("") | INVISIBLES))


@st.composite
def connection_floods(draw) -> tuple[int, int, str, str]:
    """(open-file limit, connections, loopback address they come from, what each sends) of a
    client flooding a server (class 13): nothing, half a request's head, bytes that are no
    HTTP, or whole requests on kept-alive connections."""
    return (draw(st.sampled_from([128, 256, 1024])), draw(st.integers(0, 700)),
            f"127.0.0.{draw(st.integers(2, 9))}",
            draw(st.sampled_from(["nothing", "half", "garbage", "request"])))
