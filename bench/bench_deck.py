"""The deck missions' ladder tables: CPU seconds per checkout, and whether they play alike.

    nice -n 10 .venv/bin/python bench/bench_deck.py [--games 20] [--checkout DIR …]
        [--repeats 1] [--missions starter:5,hidden:3]

The deck missions (hands dealt from decks: `tables.ceiling_needed`) of the starter campaign
and of bench/hidden/, at every player count: every table of the ladder (0..n experts beside
novices) and the oracle, on the deals `playtest --seed 1` plays, one mission model per mission
as a playtest's worker keeps it. Each checkout's code runs in a child process of this
interpreter with that checkout first on the path (the same libraries), the checkouts one after
the other, repeated; a child's figure is its process's CPU time, not wall time. Prints each
checkout's CPU seconds per mission (best of the repeats) and, per table, whether its Tally and
every decision of its games (a digest of each choice in order) equal the first checkout's.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from tablecheck import report_equal, run_child

ROOT = Path(__file__).resolve().parent.parent

#: Plays the tables in the child (after tablecheck.PRELUDE): argv is (root, games,
#: missions as "source:number,…" or "").
CHILD = r"""
from synergy_forge.authoring.loading import read_campaign
from synergy_forge.sim.tables import CEILING_BOT, ceiling_needed

root, games, wanted = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
wanted = {tuple(w.split(":")) for w in wanted.split(",") if w}
out = {"missions": {}, "tables": {}}
sources = {"starter": root / "missions" / "starter", "hidden": root / "bench" / "hidden"}
for source, folder in sources.items():
    campaign = read_campaign(folder).campaign
    for m in campaign.missions:
        if not ceiling_needed(m) or (wanted and (source, str(m.number)) not in wanted):
            continue
        name = f"{source}:{m.number}"
        start = time.process_time()
        model = MissionModel()
        for p in m.players:
            seeds = [game_seed(1, m.id, p, i) for i in range(games)]
            for table in [*range(p + 1), CEILING_BOT]:
                digest = hashlib.sha256()
                if table == CEILING_BOT:
                    t = play_batch(m, campaign.rulebook, campaign.colors, p, table, seeds,
                                   model=model)
                else:
                    t = play_batch(m, campaign.rulebook, campaign.colors, p, "expert", seeds,
                                   experts=table, model=model)
                out["tables"][f"{name} p{p} {table}"] = record(t)
        out["missions"][name] = time.process_time() - start
print(json.dumps(out))
"""


def run(checkout: Path, games: int, missions: str) -> dict:
    return run_child(CHILD, checkout, str(games), missions)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--checkout", type=Path, action="append", default=[])
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--missions", default="", help="source:number,… (default: all)")
    args = parser.parse_args()
    checkouts = [c.resolve() for c in args.checkout] or [ROOT]
    cpu: dict[Path, dict[str, float]] = {c: {} for c in checkouts}
    played: dict[Path, dict[str, dict]] = {}
    for _ in range(args.repeats):
        for checkout in checkouts:
            found = run(checkout, args.games, args.missions)
            for name, seconds in found["missions"].items():
                cpu[checkout][name] = min(seconds, cpu[checkout].get(name, seconds))
            total = sum(found["missions"].values())
            print(f"{checkout}: {total:7.1f} CPU s", flush=True)
            if played.setdefault(checkout, found["tables"]) != found["tables"]:
                print(f"{checkout}: a repeat played differently", flush=True)
    names = list(cpu[checkouts[0]])
    print("mission       " + "".join(f"{str(c)[-24:]:>26}" for c in checkouts))
    for name in [*names, "total"]:
        row = [sum(cpu[c].values()) if name == "total" else cpu[c][name] for c in checkouts]
        print(f"{name:14}" + "".join(f"{x:26.2f}" for x in row))
    report_equal(played, checkouts)


if __name__ == "__main__":
    main()
