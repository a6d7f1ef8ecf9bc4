"""``fairdie lab search|rule|campaign``: the fairness lab from the shell.

    fairdie lab search --values N --samples T --entropy E [--simulate MATCHES] [--seed S]
                       [--in-use] [--json]
    fairdie lab rule [--weights 8,3,1,0] [--values 6] [--samples 25] [--start erased|in-use]
                     [--json]

``search`` is the parameter search of specs/randomness-systems.md; with
``--json`` it prints :func:`fairdie.subjects.die.lab.search`'s dict, otherwise a
small table; ``--in-use`` adds each system's measures over a match that starts
from a die in use (:mod:`._steady`; decks: none). ``rule`` sets a weighted
window (the firmware's weights by default) beside the dynamic dice of its own
entropy, from an erased die and from a die in use (:mod:`._compare`). Bad input
is one line ``fairdie lab ...: error: ...`` on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fairdie._cmdline import (
    SEED,
    Parser,
    add_force_option,
    add_spread_options,
    int_in,
    parse,
    parser_once,
    progress_bar,
)
from fairdie._files import claim_folder
from fairdie.subjects.die._cli import add_target_options
from fairdie.subjects.die.lab._search import search

if TYPE_CHECKING:
    from fairdie.subjects.die.lab._campaign import Campaign

__all__ = ["campaign_main", "lab_main", "rule_main", "search_main"]

PROG = "fairdie lab search"
# Upper bounds: what runs in hours at most, not years (or out of memory); an
# exact search of 6 values and 25 samples takes seconds, its cost grows fast.
_MAX_VALUES = 100
_MAX_SAMPLES = 1000
_MAX_MATCHES = 10_000_000
_MAX_PRESSES = 10_000_000


def _fraction(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0.0 <= v <= 1.0:  # also refuses nan
        raise argparse.ArgumentTypeError(f"{text} is outside 0..1")
    return v


@parser_once
def _parser() -> Parser:
    p = Parser(
        prog=PROG,
        description="Search the dynamic dice and generalized deck parameters "
        "(specs/randomness-systems.md): lowest outcome variance at or above an entropy.",
    )
    p.add_argument("--values", type=int_in(2, _MAX_VALUES), required=True, help="n, values 1..n")
    p.add_argument(
        "--samples", type=int_in(1, _MAX_SAMPLES), required=True, help="T, draws per match"
    )
    p.add_argument("--entropy", type=_fraction, required=True, help="threshold, 0..1")
    p.add_argument(
        "--simulate",
        type=int_in(2, _MAX_MATCHES),
        metavar="MATCHES",
        help="simulate this many matches per candidate instead of computing exactly",
    )
    p.add_argument("--seed", type=SEED, default=0, help="simulation seed (default 0)")
    p.add_argument(
        "--in-use",
        action="store_true",
        help="also measure a match that starts from a die in use (its steady state); exact",
    )
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    return p


def _timing_spec(text: str) -> str:
    """A press timing's spec, checked (fairdie.stimulus.parse_timing) and kept as given."""
    from fairdie.errors import FairdieError
    from fairdie.stimulus import parse_timing

    try:
        parse_timing(text)
    except FairdieError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return text


def _row(name: str, entry: dict[str, Any] | None, params: str) -> str:
    if entry is None:
        return f"{name:<17} {'-':<12} no candidate reaches the threshold"
    cells = f"{entry['entropy']:>8.4f} {entry['variance']:>9.4f}"
    if "entropy_se" in entry:
        cells += f"   (se {entry['entropy_se']:.4f}, {entry['variance_se']:.4f})"
    return f"{name:<17} {params:<12} {cells}"


def _in_use_row(name: str, entry: dict[str, Any] | None) -> str:
    if entry is None:
        return f"{name:<17} {'-':<12} no candidate reaches the threshold"
    used = entry.get("in_use")
    if used is None:
        return f"{name:<17} {'-':<12} no steady state computed (decks keep more than offsets)"
    return (
        f"{name:<17} {'':<12} {used['entropy']:>8.4f} {used['variance']:>9.4f}"
        f"   guess {used['guess_rate']:.4f}"
    )


def _table(result: dict[str, Any]) -> str:
    how = "exact" if result["method"] == "exact" else f"{result['matches']} simulated matches"
    gd = result["generalized_deck"]
    dd = result["dynamic_dice"]
    lines = [
        f"n = {result['values']}, T = {result['samples']}, "
        f"entropy >= {result['entropy_threshold']:g} ({how})",
        f"{'system':<17} {'parameters':<12} {'entropy':>8} {'variance':>9}",
        _row("dice", result["dice"], ""),
        _row("deck", result["deck"], ""),
        _row("generalized deck", gd, "" if gd is None else f"s={gd['s']} r={gd['r']}"),
        _row("dynamic dice", dd, "" if dd is None else f"d={dd['d']:g}"),
    ]
    if "in_use" in result["dice"]:
        lines.append("from a die in use (a match from its steady state, exact):")
        lines += [
            _in_use_row(name, result[key])
            for name, key in (
                ("dice", "dice"),
                ("deck", "deck"),
                ("generalized deck", "generalized_deck"),
                ("dynamic dice", "dynamic_dice"),
            )
        ]
    return "\n".join(lines)


def _add_in_use(result: dict[str, Any]) -> None:
    """Each system's measures from a die in use, in place: dice and dynamic dice
    (``None`` for the decks, and for a system the search did not find)."""
    from fairdie.subjects.die.lab._steady import in_use
    from fairdie.subjects.die.lab._systems import Dice, DynamicDice

    n, t = result["values"], result["samples"]
    dd = result["dynamic_dice"]
    for key, system in (
        ("dice", Dice(n)),
        ("dynamic_dice", None if dd is None else DynamicDice(n, dd["d"])),
    ):
        if system is not None:
            m = in_use(system, t)
            result[key]["in_use"] = {
                "entropy": m.entropy,
                "variance": m.variance,
                "guess_rate": m.guess_rate,
            }
    for key in ("deck", "generalized_deck"):
        if result[key] is not None:
            result[key]["in_use"] = None


def search_main(argv: list[str]) -> int:
    """Run ``fairdie lab search`` with ``argv`` (the words after ``search``); the exit status."""
    args = parse(_parser(), argv)
    if isinstance(args, int):
        return args
    result = search(
        args.values,
        args.samples,
        args.entropy,
        simulate_matches=args.simulate,
        seed=args.seed,
    )
    if args.in_use:
        _add_in_use(result)
    if args.json:
        print(json.dumps(result, indent=2, allow_nan=False))
    else:
        print(_table(result))
    return 0


RULE = "fairdie lab rule"


def _weights(text: str) -> tuple[int, ...]:
    """Weights by offset 0, 1, ...: whole numbers 0..255, the first positive."""
    try:
        w = tuple(int(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not whole numbers: {text!r}") from None
    if not w or w[0] < 1 or any(not 0 <= x <= 255 for x in w) or len(w) > 16:
        raise argparse.ArgumentTypeError(
            f"weights are 1..16 numbers 0..255, the first positive: {text!r}"
        )
    return w


@parser_once
def _rule_parser() -> Parser:
    from fairdie.subjects.die._fair import WEIGHTS

    p = Parser(
        prog=RULE,
        description="A weighted-window rule (a face's weight by its offset above the"
        " least-counted face) beside the dynamic dice of its own entropy, exact: from an"
        " erased die and from a die in use. Margin = dynamic dice's variance - the rule's.",
    )
    p.add_argument(
        "--weights",
        type=_weights,
        default=WEIGHTS,
        metavar="W0,W1,...",
        help=f"weight by offset 0, 1, ... (default the firmware's {','.join(map(str, WEIGHTS))})",
    )
    p.add_argument("--values", type=int_in(2, 12), default=6, help="n, values 1..n (default 6)")
    p.add_argument(
        "--samples", type=int_in(1, 200), default=25, help="T, draws per match (default 25)"
    )
    p.add_argument(
        "--start",
        choices=("erased", "in-use"),
        action="append",
        help="the match starts erased or from a die in use (default both)",
    )
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    return p


def rule_main(argv: list[str]) -> int:
    """Run ``fairdie lab rule`` with ``argv``; the exit status."""
    from fairdie.subjects.die.lab._compare import STARTS, compare

    args = parse(_rule_parser(), argv)
    if isinstance(args, int):
        return args
    starts = STARTS if not args.start else tuple(s.replace("-", "_") for s in args.start)
    result = compare(args.weights, args.values, args.samples, starts)
    out: dict[str, Any] = {
        "weights": list(args.weights),
        "values": args.values,
        "samples": args.samples,
        **{start: c.as_json() for start, c in result.items()},
    }
    if args.json:
        print(json.dumps(out, indent=2, allow_nan=False))
        return 0
    w = ",".join(map(str, args.weights))
    print(f"weights {w}, n = {args.values}, T = {args.samples} (exact)")
    print(f"{'start':<8} {'system':<18} {'entropy':>10} {'variance':>10} {'guess':>8}")
    for start, c in result.items():
        label = start.replace("_", " ")
        r, dd = c.rule, c.dynamic_dice
        print(
            f"{label:<8} {'rule':<18} {r.entropy:>10.6f} {r.variance:>10.6f} {r.guess_rate:>8.4f}"
        )
        name = f"dynamic d={c.d:.6f}"
        print(f"{'':<8} {name:<18} {dd.entropy:>10.6f} {dd.variance:>10.6f} {dd.guess_rate:>8.4f}")
        verdict = "the rule is fairer" if c.margin > 0 else "dynamic dice are fairer"
        print(f"{'':<8} margin {c.margin:+.6f}: {verdict} at equal entropy")
    return 0


CAMPAIGN = "fairdie lab campaign"


@parser_once
def _campaign_parser() -> Parser:
    p = Parser(
        prog=CAMPAIGN,
        description="Press the emulated die N times from an erased chip and measure its "
        "fairness and what a player can predict; dice, deck and dynamic dice beside it.",
    )
    p.add_argument("--presses", type=int_in(1, _MAX_PRESSES), required=True, help="N presses")
    p.add_argument(
        "--noise",
        help="noise model (default floating; none for a die with no analog input): floating,"
        " uniform, stuck:MILLIVOLTS, rail-low, rail-high, dead, weak:RATIO, hum:HZ,"
        " biased:P0,P1,..., trace:FILE.csv, adversarial",
    )
    p.add_argument("--seed", type=SEED, default=0, help="campaign seed (default 0)")
    p.add_argument(
        "--timing",
        type=_timing_spec,
        metavar="SPEC",
        help="when a person presses: human (the default for a button die with no analog"
        " input), fixed, or human:interval=0.8,hold=120ms (fairdie.stimulus)",
    )
    add_target_options(p, doing="press")
    add_spread_options(p, pieces="shards")
    p.add_argument("--plot", metavar="DIR", help="write PNG plots here (needs matplotlib)")
    add_force_option(p)
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    return p


#: the modules that define a campaign's pieces, which its processes import
#: while this one resolves the campaign (:meth:`Workers.start`)
PIECES = (f"{__package__}._shards", f"{__package__}._references")


def _planned(args: argparse.Namespace) -> Campaign:
    """The campaign the arguments ask for, its setup made (the board fits the
    build it runs, checked before any press)."""
    from fairdie.subjects.die.lab._campaign import Campaign

    c = Campaign(
        args.presses,
        args.noise,
        args.seed,
        args.variant,
        args.firmware,
        args.board,
        timing=args.timing,
    ).resolved()
    board = c.made_setup().board
    if c.noise is None and board is not None and board.analog:  # its default noise
        c = replace(c, noise="floating")
    return c


def campaign_main(argv: list[str]) -> int:
    """Run ``fairdie lab campaign`` with ``argv``; the exit status."""
    from fairdie.campaigns import Workers
    from fairdie.errors import FairdieError

    args = parse(_campaign_parser(), argv)
    if isinstance(args, int):
        return args
    if args.plot:
        from fairdie.subjects.die.lab._plots import write_plots
        from fairdie.verify._plots import need_matplotlib

        try:
            need_matplotlib("--plot")
        except FairdieError as e:
            print(f"{CAMPAIGN}: error: {e}", file=sys.stderr)
            return 2
    update, close = progress_bar(args.presses, unit="press", quiet=args.json)
    try:
        if args.plot:
            claim_folder(Path(args.plot), "--plot", force=args.force)
        # a campaign is checked before a scheduler is reached (a bad one fails
        # at once), and after the local processes started (they start beside it)
        planned = _planned(args) if args.scheduler else None
        with Workers(jobs=args.jobs, scheduler=args.scheduler) as w:
            w.start(*PIECES)
            from fairdie.subjects.die.lab._campaign import run_campaign, seed_matters

            c = planned or _planned(args)
            result = run_campaign(c, workers=w, progress=update, references=True)
        matters = seed_matters(result)
    except FairdieError as e:
        print(f"{CAMPAIGN}: error: {e}", file=sys.stderr)
        return 2
    finally:
        close()
    out = result.as_json()
    out["seed_matters"] = matters
    refs = result.references or {}
    out["reference"] = {name: t.as_json() for name, t in refs.items()}
    if args.plot:
        try:
            out["plots"] = write_plots(args.plot, result, refs)
        except OSError as e:
            print(f"{CAMPAIGN}: error: --plot {args.plot}: {e.strerror or e}", file=sys.stderr)
            return 2
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        print("\n".join(_campaign_text(out, args.presses, args.seed, matters)))
    return 0


def _rate(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


def _chi2_words(out: dict[str, Any]) -> list[str]:
    """The chi-square test both ways, in words."""
    shown = sum(out["counts"])
    if not shown:
        return ["chi-square: no press showed a face"]
    lines = [
        f"chi-square {out['chi2']:.4g} ({len(out['counts']) - 1} df) over the {shown} presses"
        " that showed a face:",
        f"  too uneven? p = {out['chi2_p_uneven']:.3g}: the chance that a fair die's counts"
        " are at least this uneven (small: biased)",
        f"  too even?   p = {out['chi2_p_even']:.3g}: the chance that independent fair rolls"
        " are at least this even (small: each roll depends on the last ones)",
    ]
    if out["chi2_p_even"] < 0.01:
        why = (
            "the fair rule keeps every face within 3 of the others by design, so this is"
            " expected, not a pass"
            if out["model"] == "fair"
            else "the rule evens its counts"
        )
        lines.append(f"  these counts are too even for chance: {why}")
    return lines


def _campaign_text(out: dict[str, Any], presses: int, seed: int, matters: bool) -> list[str]:
    rows = [("firmware", out), *out["reference"].items()]
    pressed = f", timing {out['timing']}" if out["timing"] else ""
    lines = [
        f"{presses} presses, noise {out['noise'] or 'none'}{pressed}, seed {seed}:"
        f" counts {out['counts']}, {out['health_failures']} health failures,"
        f" {out['presses_per_s']:.0f} presses/s"
    ]
    if not matters:
        lines.append(f"note: these faces do not depend on --seed (seed {seed ^ 1} rolls the same)")
    lines.append(
        f"{'system':<14}{'spread':>7}{'worst':>7}{'absence':>8}{'entropy':>9}{'guess':>7}"
        f"{'informed':>9}{'in use':>8}{'blind':>7}"
    )
    for name, m in rows:
        lines.append(
            f"{name:<14}{m['spread']:>7}{m['worst_spread']:>7}{m['longest_absence']:>8}"
            f"{m['entropy']:>9.3f}{m['guess_rate']:>7.3f}"
            f"{_rate(m['guess_rate_informed']):>9}{_rate(m['guess_rate_informed_in_use']):>8}"
            f"{_rate(m['guess_rate_blind']):>7}"
        )
    lines.extend(
        textwrap.wrap(
            "guess rates: guess, a player who follows the table from the faces; informed,"
            " one who knows the firmware and the erased start and tracks the hidden pool;"
            " in use, the same meeting the die in use (its table from the rule's steady"
            " state); blind, one who knows nothing of the firmware (context models over the"
            " last faces)",
            100,
        )
    )
    if out["model"] is None:
        lines.append("informed: - (this firmware has no reference model to know)")
    lines.extend(f"{note}" for note in out["notes"])
    lines.extend(_chi2_words(out))
    lines.append(f"replay: {out['replay']}")
    return lines


def lab_main(argv: list[str]) -> int:
    """``fairdie lab search|campaign ...``."""
    commands = {"search": search_main, "rule": rule_main, "campaign": campaign_main}
    if argv[:1] in (["-h"], ["--help"]):
        print("usage: fairdie lab {search,rule,campaign} ... (fairdie lab search --help, ...)")
        print("  search    the spec's parameter search for a fair rule")
        print("  rule      a weighted-window rule against dynamic dice at its own entropy")
        print("  campaign  press the die under noise models; fairness measures and plots")
        return 0
    if not argv or argv[0] not in commands:
        got = repr(argv[0]) if argv else "nothing"
        print(f"fairdie lab: error: expected search, rule or campaign, got {got}", file=sys.stderr)
        return 2
    return commands[argv[0]](argv[1:])
