"""Custom rules are checked by an allow-list before anything runs: each rule
the fuzzing campaign found slow, hungry or crashing is refused at its column, quickly."""

from __future__ import annotations

import sys

import pytest

from synergy_forge.core.rulelang import (
    FILTERS,
    MAX_VALUE,
    RuleError,
    RuleKind,
    compile_rule,
    rule_failure,
    rule_problems,
)
from synergy_forge.workspace.validate import validate_file

REFUSED = [
    # (rule, where the caret goes, words of the message)
    ("'x'|center(2*10**9)|length > 0", 0, "text"),
    ("lipsum(n=1000) != ''", 0, "unknown variable 'lipsum'"),
    ("('a'*(10**8+sum))|length", 1, "text"),
    ("'x'.zfill(10**9)", 0, "text"),
    ("range(100000)|list|sort", 0, "unknown variable 'range'"),
    ("cycler(1, 2) == 1", 0, "unknown variable 'cycler'"),
    ("joiner() == 1", 0, "unknown variable 'joiner'"),
    ("namespace() == 1", 0, "unknown variable 'namespace'"),
    ("dict(a=1) == 1", 0, "unknown variable 'dict'"),
    ("10 ** 4301 > sum", 6, "too large"),
    ("sum > 10 ** 20", 12, "power"),
    ("sum ** sum > 1", 6, "power"),
    ("sum * 1000 * 1000 * 1000 * 1000 * 1000 * 1000 > 0", 0, "grow past"),
    ("(" * 80 + "sum" + ")" * 80, 20, "nested"),
    ("not " * 1000 + "sum", 500, "characters long"),
    ("not " * 120 + "sum", 40, "more than 10 signs or 'not's in a row"),
    ("- " * 200 + "sum > 0", 20, "more than 10 signs or 'not's in a row"),
    ("(" * 20 + "-" * 450 + "sum" + ")" * 20, 30, "more than 10 signs"),
    (" + ".join(["sum"] * 60), 0, "nested more than 50 levels"),
    ("(- - - - - - - - - - " * 20 + "sum" + ")" * 20, 0, "nested more than 50 levels"),
    ("sum.real > 0", 3, "attribute access"),
    ("sum ~ 1", 4, "joining text"),
    ("others[1:] == []", 8, "slices"),
    ("others | sort(reverse=true) == []", 9, "takes no arguments"),
    ("others | join == 1", 9, "filter 'join'"),
    ("sum is string", 7, "test 'string'"),
    ("sum if left", 0, "else"),
    ("1 }} {{ 2", 2, "'}}'"),
    ("(([0] * 1000) * 1000) * 1000 | length > 0", 0, "a list cannot be multiplied"),
    ("others * 1000 == []", 0, "a list cannot be multiplied"),
]


@pytest.mark.parametrize(("rule", "offset", "words"), REFUSED)
def test_the_allow_list_refuses_rules_of_unbounded_cost_at_their_column(rule, offset, words):
    # With little stack to spare, as under a deep caller: nothing here recurses much.
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(700)
    try:
        problems = rule_problems(RuleKind.GOAL, rule)
    finally:
        sys.setrecursionlimit(limit)
    assert problems and words in problems[0], problems
    assert problems[0].offset == offset
    with pytest.raises(RuleError):
        compile_rule(RuleKind.GOAL, rule)


@pytest.mark.parametrize("rule", [
    "sum - 1 in others",
    "left is not none and right is not none and (left < sum < right or right < sum < left)",
    "distinct | length >= 2 and sum == distinct[-2]",
    "(sum - 1) in others or (sum + 1) in others",
    "sum is divisibleby(3) and sum is not odd",
    "sum ** 2 > (others | sum) and [1, 4, 9] | max > sum / 2",
    *(f"(others | {name}) != 0" for name in FILTERS),
])
def test_rules_within_the_allow_list_compile(rule):
    assert rule_problems(RuleKind.GOAL, rule) == []
    compile_rule(RuleKind.GOAL, rule)


@pytest.mark.parametrize(("rule", "gave"), [
    ("value / 2", "0.5"), ("none", "None"), ("true", "True"), ("value * 1000 + 1", "1001"),
])
def test_a_value_rule_gives_a_small_whole_number(rule, gave):
    check = compile_rule(RuleKind.VALUE, rule, "c.yaml:4")
    failure = rule_failure(RuleKind.VALUE, check)
    assert failure is not None and f"from {-MAX_VALUE} to {MAX_VALUE}" in failure, failure


def test_a_refused_rule_is_located_at_its_column_with_a_caret(tmp_path):
    path = tmp_path / "big.yaml"
    path.write_text("id: big\nname: Big\ntext: Big\nrule: \"sum > 1 and lipsum(n=1000) != ''\"\n")
    diagnostics = validate_file(path).diagnostics
    [found] = diagnostics
    assert (found.line, found.column) == (4, 20)
    assert found.message.endswith("\n    sum > 1 and lipsum(n=1000) != ''\n                ^")


def test_a_list_multiplied_at_run_time_fails_rather_than_grows():
    check = compile_rule(RuleKind.GOAL, "((others | sort) * 1000 * 1000) | length > 0", "g:4")
    failure = rule_failure(RuleKind.GOAL, check)
    assert failure is not None and "'*' works on numbers only" in failure
