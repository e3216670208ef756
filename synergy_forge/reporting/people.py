"""`playtest --human`'s report: people's games across the campaign's missions."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from synergy_forge.core.playhash import PlayChange
from synergy_forge.sim.calibration import PlayedGame

#: How long a changed value may be in a line before it is cut.
SHOWN = 40


def _value(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= SHOWN else text[:SHOWN - 1] + "…"


def change_text(change: PlayChange) -> str:
    """"rounds 4 → 3", "goal 'close-call': rule "…" → "…"": the log's side, then the
    campaign's."""
    where = change.key if change.subject == "mission" else \
        f"{change.subject} '{change.id}': {change.key}"
    return f"{where} {_value(change.before)} → {_value(change.after)}"


def changes_text(changes: Sequence[PlayChange]) -> str:
    return "; ".join(change_text(c) for c in changes)


def changed_json(games: Sequence[PlayedGame], included: bool) -> list[dict[str, Any]]:
    """The logs of missions whose play changed since: which log, which mission, what changed
    (`log`: the log's mission, `campaign`: the campaign's), and whether it was counted."""
    return [{"log": g.source, "id": g.mission.id,
             "number": g.known.number if g.known is not None else g.mission.number,
             "included": included,
             "changes": [{"subject": c.subject, "id": c.id, "key": c.key, "log": c.before,
                          "campaign": c.after} for c in g.changes]} for g in games]

