"""No input, however broken, escapes the loader or the validator as an exception."""

from __future__ import annotations

import json

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from synergy_forge.authoring.validate import validate_file

scalars = st.none() | st.booleans() | st.integers(-10, 100) | st.floats(allow_nan=False) | \
    st.text(max_size=12)
KEYS = ["id", "number", "title", "stars", "rounds", "lives", "players", "hand", "order",
        "allowed_failures", "challenges", "actions", "goals", "super", "hyper", "flavor", "en",
        "fr", "numbers", "seats", "goal", "kind", "rule", "name", "text", "missions", "3", "4"]
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(KEYS) | st.text(max_size=5), inner, max_size=6),
    max_leaves=20,
)
FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                      HealthCheck.function_scoped_fixture])


@FUZZ
@given(st.binary(max_size=400))
def test_any_bytes(tmp_path, raw):
    path = tmp_path / "m.yaml"
    path.write_bytes(raw)
    diagnostics, _ = validate_file(path)
    assert all(d.line >= 1 and d.column >= 1 for d in diagnostics)


@FUZZ
@given(values, st.sampled_from(["mission.yaml", "round.yaml", "goal.yaml", "x.json"]))
def test_any_structure(tmp_path, data, name):
    path = tmp_path / name
    text = json.dumps(data) if name.endswith(".json") else yaml.safe_dump(data)
    path.write_text(text, encoding="utf-8")
    validate_file(path)


@FUZZ
@given(st.text(alphabet="[]{}:,-&*!|>'\"#\n ab1", max_size=200))
def test_yaml_punctuation(tmp_path, text):
    path = tmp_path / "p.yaml"
    path.write_text(text, encoding="utf-8")
    validate_file(path)


def test_huge_and_deep_files(tmp_path):
    deep = tmp_path / "deep.yaml"
    deep.write_text("[" * 200_000)
    assert validate_file(deep)[0][0].check == "yaml"
    big = tmp_path / "big.yaml"
    with open(big, "wb") as handle:
        handle.truncate(100 * 1024 * 1024)  # 100 MB, sparse: read only up to the cap
    assert "larger than" in validate_file(big)[0][0].message
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text("a: &a [1, 1]\nb: &b [*a, *a]\nc: &c [*b, *b]\n")
    assert "aliases" in validate_file(bomb)[0][0].message
