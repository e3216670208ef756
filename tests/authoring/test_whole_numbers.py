"""Whole numbers are whole in every format: JSON Schema counts 1.0 as an
integer, the game does not; the schema layer refuses floats and booleans with a located error
that says what to write."""

from __future__ import annotations

import pytest

from synergy_forge.workspace.validate import validate_file

MISSION = """id: m
number: 1
title: M
stars: 1
rounds: 3
lives: 2
hand: {numbers: 10}
allowed_failures: 0
"""
ROUND = """seats:
  - {numbers: [1, 2], goal: equal}
  - {numbers: [3, 4], goal: equal}
  - {numbers: [5, 1], goal: equal}
"""

@pytest.mark.parametrize(("name", "text", "line", "message"), [
    ("m.yaml", MISSION.replace("lives: 2", "lives: 2.0"), 6, "'lives': 2.0 is not a whole number: "
     "write 2"),
    ("m.yaml", MISSION.replace("numbers: 10", "numbers: 6.0"), 7, "6.0 is not a whole number: "
     "write 6"),
    ("m.yaml", MISSION.replace("allowed_failures: 0", "allowed_failures: 1.0"), 8,
     "1.0 is not a whole number: write 1"),
    ("m.yaml", MISSION.replace("allowed_failures: 0", "allowed_failures: {3: 1.0}"), 8,
     "1.0 is not a whole number: write 1"),
    ("m.yaml", MISSION.replace("stars: 1", "stars: true"), 4, "must be a whole number"),
    ("m.yaml", MISSION.replace("number: 1", "number: 100000"), 2, "at most 999"),
    ("r.yaml", ROUND + "super: 1.0\n", 5, "'super': 1.0 is not a whole number: write 1"),
    ("r.yaml", ROUND.replace("[1, 2]", "[1, 2.0]"), 2, "2.0 is not a whole number: write 2"),
    ("r.yaml", ROUND + "allowed_failures: false\n", 5, "must be a whole number"),
    ("s.yaml", "id: s\nkind: sum\nname: S\ntext: S\nrule: sum\nstep: 50.0\n", 6,
     "50.0 is not a whole number: write 50"),
])
def test_a_float_or_boolean_where_a_whole_number_belongs_is_a_located_error(
        tmp_path, name, text, line, message):
    path = tmp_path / name
    path.write_text(text)
    diagnostics = validate_file(path).diagnostics
    assert [(d.line, d.severity) for d in diagnostics] == [(line, "error")], diagnostics
    assert message in diagnostics[0].message
