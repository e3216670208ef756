"""The ladder's mixed tables (experts beside novices): CPU seconds per checkout, and whether
they play alike.

    nice -n 10 .venv/bin/python bench/bench_mixed.py [--games 20] [--checkout DIR …]
        [--repeats 1] [--untuned] [--alternate]

Every starter mission at every player count, every mixed table of the ladder (1..n-1 experts,
novices in the other seats), on the deals `playtest --seed 1` plays, one mission model per
mission and player count as the ladder keeps it; with --untuned, also the missions drawn at
random in tests/sim/test_difficulty.py. Each checkout's code runs in a child process of this
interpreter with that checkout first on the path, the checkouts one after the other, their
order turned round at each repeat; a child's figure is its process's CPU time of the starter's
tables, not wall time. Prints each checkout's CPU seconds (each run and the fewest) and, per
table, whether its Tally and every decision of its games (a digest of each choice in order)
equal the first checkout's. With --alternate, a child per checkout and starter mission, the
checkouts alternating mission by mission (who goes first turning round each time): other work
on the host then weighs on both alike.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from tablecheck import report_equal, run_child

from synergy_forge.authoring.loading import read_campaign

ROOT = Path(__file__).resolve().parent.parent

#: Plays the tables in the child (after tablecheck.PRELUDE): argv is (root, games, "untuned"
#: or "", a starter mission's number or "" for all).
CHILD = r"""
from synergy_forge.authoring.definitions import standard_rulebook
from synergy_forge.authoring.loading import read_campaign

root, games, untuned = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "untuned"
only = sys.argv[4]
campaign = read_campaign(root / "missions" / "starter").campaign
sets = [("starter", m, campaign.rulebook, campaign.colors) for m in campaign.missions
        if not only or str(m.number) == only]
if untuned:
    sys.path.insert(0, str(root))
    from tests.sim.test_difficulty import COLORS, MISSIONS
    sets += [("untuned", m, standard_rulebook(native=True), COLORS) for m in MISSIONS]
out = {"cpu": 0.0, "tables": {}}
for source, m, rulebook, colors in sets:
    start = time.process_time()
    for p in m.players:
        model = MissionModel()
        seeds = [game_seed(1, m.id, p, i) for i in range(games)]
        for experts in range(1, p):
            digest = hashlib.sha256()
            t = play_batch(m, rulebook, colors, p, "expert", seeds, experts=experts,
                           model=model)
            out["tables"][f"{source}:{m.number} p{p} {experts} experts"] = record(t)
    if source == "starter":
        out["cpu"] += time.process_time() - start
print(json.dumps(out))
"""


def run(checkout: Path, games: int, untuned: bool, only: str = "") -> dict:
    return run_child(CHILD, checkout, str(games), "untuned" if untuned else "", only)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--checkout", type=Path, action="append", default=[])
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--alternate", action="store_true",
                        help="a child per checkout and mission, alternating")
    parser.add_argument("--untuned", action="store_true",
                        help="also the missions drawn in tests/sim/test_difficulty.py")
    args = parser.parse_args()
    checkouts = [c.resolve() for c in args.checkout] or [ROOT]
    numbers = [m.number for m in read_campaign(ROOT / "missions" / "starter").campaign.missions]
    cpu: dict[Path, list[float]] = {c: [] for c in checkouts}
    played: dict[Path, dict[str, dict]] = {}
    for repeat in range(args.repeats):
        if args.alternate:
            found = {c: {"cpu": 0.0, "tables": {}} for c in checkouts}
            for at, number in enumerate(numbers):
                turn = checkouts if (repeat * len(numbers) + at) % 2 == 0 else checkouts[::-1]
                for checkout in turn:
                    one = run(checkout, args.games, False, str(number))
                    found[checkout]["cpu"] += one["cpu"]
                    found[checkout]["tables"].update(one["tables"])
            if args.untuned:
                for checkout in checkouts:
                    found[checkout]["tables"].update(run(checkout, args.games, True,
                                                         "0")["tables"])
        else:
            found = {c: run(c, args.games, args.untuned)
                     for c in (checkouts if repeat % 2 == 0 else checkouts[::-1])}
        for checkout, one in found.items():
            cpu[checkout].append(one["cpu"])
            print(f"{checkout}: {one['cpu']:7.1f} CPU s", flush=True)
            if played.setdefault(checkout, one["tables"]) != one["tables"]:
                print(f"{checkout}: a repeat played differently", flush=True)
    for checkout in checkouts:
        runs = ", ".join(f"{x:.1f}" for x in cpu[checkout])
        print(f"{checkout}: fewest {min(cpu[checkout]):.1f} CPU s (runs {runs})")
    report_equal(played, checkouts)


if __name__ == "__main__":
    main()
