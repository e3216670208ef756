"""What bench_deck.py and bench_mixed.py share: a child process that plays tables with one
checkout's code, recording each table's Tally and a digest of every decision, and the check
that two checkouts' tables played alike."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

#: The child's start: every decision of `tables.play` goes into `digest` (set per table), and
#: `record(tally)` is what a table's games gave, as JSON. The child's own code follows.
PRELUDE = r"""
import hashlib, json, sys, time
from pathlib import Path
from synergy_forge.sim import tables
from synergy_forge.sim.model import MissionModel
from synergy_forge.sim.tables import game_seed, play_batch

plain_play = tables.play
digest = None

def play(game, seats, **kwargs):
    def seen(game, decision, choice):
        digest.update(repr((decision.seat, choice)).encode())
    return plain_play(game, seats, on_decision=seen, **kwargs)

tables.play = play

def record(t):
    return {"wins": t.wins, "rounds_won": t.rounds_won, "lives_lost": t.lives_lost,
            "losses": {str(k): v for k, v in sorted(t.losses.items(), key=str)},
            "goals_met": dict(sorted(t.goals_met.items())),
            "goals_played": dict(sorted(t.goals_played.items())),
            "decisions": digest.hexdigest()[:16]}
"""


def run_child(body: str, checkout: Path, *args: str) -> dict:
    """Runs PRELUDE + `body` with `checkout` first on the path; its last line of output, JSON."""
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    found = subprocess.run([sys.executable, "-c", PRELUDE + body, str(checkout), *args],
                           capture_output=True, text=True, check=True, env=env, cwd=checkout)
    return json.loads(found.stdout.strip().splitlines()[-1])


def report_equal(played: dict[Path, dict[str, dict]], checkouts: list[Path]) -> None:
    """Prints, per checkout after the first, how many of the first's tables it played alike."""
    first = played[checkouts[0]]
    for checkout in checkouts[1:]:
        differ = [k for k in first if first[k] != played[checkout].get(k)]
        print(f"{checkout}: {len(first) - len(differ)} of {len(first)} tables equal"
              + "".join(f"\n  differs: {k}" for k in differ))
