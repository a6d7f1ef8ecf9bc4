"""``fairdie faults``: the power-cut campaigns from the shell.

    fairdie faults [--campaign G1|G2|...|all] [--quick] [--jobs J]
                   [--scheduler ADDRESS] [--variant V | --firmware F] [--board B]
                   [--seed S] [--json]
    fairdie faults --replay ID

It exits 0 only when no campaign found a violation; each violation prints
the id that ``--replay`` runs again.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from fairdie._cmdline import (
    SEED,
    Parser,
    Terminated,
    add_spread_options,
    parse,
    parser_once,
    progress_bar,
    stopped,
)
from fairdie.errors import FairdieError
from fairdie.subjects.die._cli import add_target_options

__all__ = ["faults_main"]

PROG = "fairdie faults"


@parser_once
def _parser(campaigns: tuple[str, ...]) -> Parser:
    p = Parser(
        prog=PROG,
        description="Cut the die's power everywhere and check that its stored table survives"
        " (fairdie.subjects.die.faults: invariants I1..I4).",
    )
    p.add_argument(
        "--campaign",
        action="append",
        choices=[*campaigns, "all"],
        help="a campaign (repeat for more; default all)",
    )
    p.add_argument("--quick", action="store_true", help="the quick tier (as make test runs it)")
    add_spread_options(p, pieces="units")
    add_target_options(p, doing="cut")
    p.add_argument("--seed", type=SEED, default=0, help="campaign seed (default 0)")
    p.add_argument("--replay", metavar="ID", help="run one violation again from its id")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    return p


def _print(out: dict[str, Any]) -> None:
    print(
        f"{out['target']} on {out['board']}, {out['tier']} tier, seed {out['seed']}:"
        f" {out['cuts']} cuts, {out['cycles_covered']} cycles covered, {out['images']} images"
        f" booted, {out['presses']} presses, {out['violations']} violations, {out['seconds']} s"
        f" (CPU: {out['cpu_seconds']} s in the units, {out['parent_cpu_seconds']} s here)"
    )
    print(f"torn values: {out['torn_values']}")
    bo = out.get("brown_out")
    if bo:
        what = (
            "a cut may misexecute: a write in flight lands at a wrong address"
            if bo["misexecutes"]
            else "a cut resets the chip first: a write in flight completes or tears"
        )
        print(f"fuses {bo['fuses']} ({bo['source']}): brown-out detector {bo['detector']}; {what}")
    print(
        f"{'campaign':<9}{'cuts':>10}{'cycles covered':>16}{'images':>9}{'presses':>10}"
        f"{'violations':>11}{'s':>8}{'cpu s':>8}"
    )
    for name, c in out["campaigns"].items():
        print(
            f"{name:<9}{c['cuts']:>10}{c['cycles_covered']:>16}{c['images']:>9}"
            f"{c['presses']:>10}{c['violations']:>11}{c['seconds']:>8}{c['cpu_seconds']:>8}"
        )
    for name, c in out["campaigns"].items():
        for f in c["failures"][:5]:
            print(f"{name} {f['invariant']}: {f['detail']}")
            print(f"  replay: fairdie faults --replay {f['replay']}")


def faults_main(argv: list[str]) -> int:
    """Run ``fairdie faults`` with ``argv``; the exit status."""
    from fairdie.subjects.die.faults import CAMPAIGNS, Target, replay, run_faults

    args = parse(_parser(tuple(CAMPAIGNS)), argv)
    if isinstance(args, int):
        return args
    if args.variant and args.firmware:
        print(f"{PROG}: error: give --variant or --firmware, not both", file=sys.stderr)
        return 2
    try:
        if args.replay:
            found = replay(args.replay)
            if args.json:
                print(
                    json.dumps({"violations": len(found), "failures": [v.as_json() for v in found]})
                )
            for v in found:
                print(f"{v.invariant}: {v.detail}")
            if not found and not args.json:
                print("no violation")
            return 1 if found else 0
        chosen = args.campaign or ["all"]
        names = list(CAMPAIGNS) if "all" in chosen else list(dict.fromkeys(chosen))
        target = Target(board=args.board, variant=args.variant, firmware=args.firmware)
        bar: dict[str, Any] = {}

        def progress(done: int, total: int) -> None:
            if not bar:  # the total is known once the campaigns are planned
                bar["update"], bar["close"] = progress_bar(total, unit="unit", quiet=args.json)
            if bar["update"] is not None:
                bar["update"](1)

        try:
            report = run_faults(
                names,
                target=target,
                quick=args.quick,
                seed=args.seed,
                jobs=args.jobs,
                scheduler=args.scheduler,
                progress=progress,
            )
        finally:
            if bar:
                bar["close"]()
    except FairdieError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 2
    except (KeyboardInterrupt, Terminated) as e:
        return stopped(e)
    out = report.as_json()
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        _print(out)
    return 1 if report.violations else 0
