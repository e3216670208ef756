"""A campaign rule that passes validate but fails in play ends the table's game: every seat's
view says which rule, where and for what input, the terminal says it in one line, no seat
waits for ever and nothing is called a bug (`play` exits 2 with the same words)."""

from __future__ import annotations

import contextlib
import json
import re
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from support.tables import game_table

from synergy_forge.cli import main
from synergy_forge.table.model import Refused
from synergy_forge.table.view import PERSON

#: Passes validate's search (it tries the failing sums with other counts), fails at 4 players
#: when a seat's sum is 10 to 12: `others` has three sums, not seven.
RULE = "(sums|length) != 4 or sum not in [10, 11, 12] or others[6] > 0"


@pytest.fixture
def mission(tmp_path) -> Path:
    with contextlib.chdir(tmp_path):
        assert CliRunner().invoke(main, ["new", "campaign", "c"]).exit_code == 0
    camp = tmp_path / "c"
    goal = camp / "goals" / "close-call.yaml"
    goal.write_text(re.sub(r"(?m)^rule: .*$", f'rule: "{RULE}"', goal.read_text()))
    first = camp / "missions" / "01-my-first-mission.yaml"
    first.write_text(first.read_text() + "goals: [close-call, unique, equal, one-higher, "
                     "one-lower, between, second-highest]\n")
    with contextlib.chdir(camp):
        assert CliRunner().invoke(main, ["validate"]).exit_code == 0
    return first


def test_bots_meeting_a_failing_rule_end_the_game_for_every_seat(mission, capsys):
    table = game_table(str(mission), [PERSON, "coop", "coop", "coop"], seed=1)
    bots = threading.Thread(target=table.run_bots, daemon=True)
    bots.start()
    try:
        deadline = time.monotonic() + 120
        while table.broken is None:
            assert time.monotonic() < deadline, "the game never ended"
            # The person plays its first legal choice whenever it is asked.
            view = table.view(0)
            if view["legal"] and not table.broken:
                with contextlib.suppress(Refused):
                    table.choose(0, view["legal"][0]["id"])
            time.sleep(0.01)
    finally:
        table.stop()
        bots.join(10)
    for seat in range(4):
        view = table.view(seat)
        outcome = view["outcome"]
        assert outcome["reason"] == "rule-failed" and view["legal"] == []
        assert outcome["rule"].startswith(str(Path("c") / "goals" / "close-call.yaml") + ":11:") \
            or "close-call.yaml:11: the rule" in outcome["rule"], outcome["rule"]
        assert "fails for sum=" in outcome["rule"]
        assert view["table"]["step"]["kind"] == "over"
    with pytest.raises(Refused, match="the game is over"):
        table.choose(0, "anything")
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line]
    assert len(lines) == 1 and "close-call.yaml:11: the rule" in lines[0], err
    assert "internal error" not in err and "bug" not in err and "Traceback" not in err
    json.dumps(table.view(1))  # still a view
    table.again(seed=2)  # a new deal can be asked for
    assert table.broken is None and table.view(0)["outcome"] is None
