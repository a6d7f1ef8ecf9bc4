"""``fairdie verify``: check the firmware a maker is about to burn, in emulation.

    fairdie verify [FIRMWARE] [--eep FILE] [--board FILE] [--report DIR] [--json]
                   [--programmer ID] [--only CHECK[,CHECK...]] [--seed S] [--jobs J]
                   [--scheduler ADDRESS]
                   [a subject's own options: the die's --presses N, --hold S]

A subject adds its own options (its :class:`~fairdie.verify.Checks`'
``options``); ``--help`` lists them under its name. It prints a table
(check, pass/fail/skipped, a one-line reason), then the burn sheet
(:mod:`fairdie.verify._burn`), and exits 0 when no check failed (a skipped
check does not fail the run), 1 when one did, 2 for bad input (one line
``fairdie: error: ...``), 130 when interrupted.
"""

from __future__ import annotations

import json
import re
import sys
from argparse import ArgumentTypeError
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fairdie._cmdline import (
    SEED,
    BadInput,
    Parser,
    Terminated,
    add_cov_option,
    add_force_option,
    add_spread_options,
    check_cov,
    covering,
    parser_once,
    progress_bar,
    stopped,
)
from fairdie.errors import FairdieError
from fairdie.verify._burn import DEFAULT_PROGRAMMER

if TYPE_CHECKING:
    from fairdie.verify._check import Checks

__all__ = ["format_verdict", "verify_main"]

PROG = "fairdie verify"
_PROGRAMMER = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]{0,39}")


def _programmer(text: str) -> str:
    if not _PROGRAMMER.fullmatch(text):
        raise ArgumentTypeError(f"not an avrdude programmer id: {text!r}")
    return text


def _parser(checks: Sequence[str], subjects: Sequence[Checks]) -> Parser:
    p = Parser(
        prog=PROG,
        description="Check the ELF or HEX you are about to burn, in emulation: build and board,"
        " a recorded run's energy and EEPROM timing, the board's scenarios, and the checks"
        " of the subject the board is (a die: faces, table, the 10 s clear, fairness, power"
        " cuts).",
    )
    p.add_argument(
        "firmware",
        nargs="?",
        type=Path,
        metavar="FIRMWARE",
        help="an ELF or HEX (default: build the board's own firmware)",
    )
    p.add_argument("--eep", type=Path, metavar="FILE", help="the EEPROM image of a HEX FIRMWARE")
    p.add_argument(
        "--board",
        metavar="FILE",
        help="a board file or shipped board (default: the shipped board of the file's build)",
    )
    p.add_argument(
        "--report",
        type=Path,
        metavar="DIR",
        help="write an HTML report there, with the evidence it links to",
    )
    p.add_argument(
        "--programmer",
        type=_programmer,
        default=DEFAULT_PROGRAMMER,
        metavar="ID",
        help=f"the avrdude programmer (-c) the burn command names (default {DEFAULT_PROGRAMMER})",
    )
    add_force_option(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument(
        "--only",
        metavar="CHECK[,CHECK...]",
        help=f"run these checks (and the build checks they need): {', '.join(checks)}",
    )
    p.add_argument("--seed", type=SEED, default=0, metavar="S", help="default 0")
    add_spread_options(p, pieces="subjects' campaigns")
    add_cov_option(p)
    for s in subjects:
        if s.options is not None:
            s.options.add(p.add_argument_group(f"the {s.subject}'s options (its boards only)"))
    return p


def format_verdict(out: dict[str, Any]) -> str:
    """The human form of :meth:`Verdict.as_json`."""
    facts = {k: out[k] for k in out.get("facts", ())}
    lines = [
        f"fairdie verify: {Path(out['firmware']).name} on board {out['board']}"
        f" ({out['mcu']}, {out['f_cpu']} Hz)"
        + (f"; build {out['build']}" if out["build"] else "")
        + "".join(f", {k} {v}" if v is not None else f", no {k}" for k, v in facts.items())
        + (f"; board: {out['board_chosen']}" if out.get("board_chosen") else ""),
        "",
    ]
    width = max(len(c["name"]) for c in out["checks"]) + 2
    lines.append(f"{'check':<{width}}{'result':<9}reason")
    for c in out["checks"]:
        lines.append(f"{c['name']:<{width}}{c['status']:<9}{c['reason']}")
    energy = out["energy"]
    if energy:
        what = "per press" if energy.get("run_s") is None else "of a recorded run"
        lines += ["", f"energy {what} (an estimate: simulated time in each state x the currents"]
        lines.append(f"below; LEDs {energy['led_ma']:g} mA each, the board's led_ma):")
        for p in energy["parts"]:
            lines.append(
                f"  {p['name']:<36}{p['ms']:>10.3f} ms x {p['ma']:<7.4g} mA = {p['uc']:>8.4g} uC"
            )
        lines.append("the currents it rests on:")
        for f in energy["figures"]:
            lines.append(f"  {f['name']}: {f['value']:g} {f['unit']}: {f['source']}")
        lines += [f"  note: {n}" for n in energy["notes"]]
    if out["notes"]:
        lines.append("")
        lines += [f"note: {n}" for n in out["notes"]]
    if out.get("burn_lines"):
        lines += ["", *out["burn_lines"]]
    n = out["counts"]
    lines += [
        "",
        f"verify {'passed' if out['passed'] else 'FAILED'}: {n['pass']} passed,"
        f" {n['fail']} failed, {n['skipped']} skipped in {out['seconds']:.1f} s",
    ]
    if out.get("report"):
        lines.append(f"report: {out['report']}")
    return "\n".join(lines)


@parser_once
def _command_parser(checks: tuple[str, ...], subjects: tuple[Checks, ...]) -> Parser:
    return _parser(checks, subjects)


def verify_main(argv: list[str]) -> int:
    """Run ``fairdie verify`` with ``argv``; the exit status."""
    from fairdie.verify._check import Options
    from fairdie.verify._report import check_report_folder, write_report
    from fairdie.verify._run import all_checks, subject_checks, total_units, verify

    names = tuple(c.name for c, _ in all_checks())
    subjects = subject_checks()
    try:
        args = _command_parser(names, subjects).parse_args(argv)
    except BadInput as e:
        print(f"fairdie: error: {e}", file=sys.stderr)
        return 2
    except SystemExit:  # --help printed the usage
        return 0
    only = None
    if args.only is not None:
        only = [n.strip() for n in args.only.split(",") if n.strip()]
    try:
        scale = 100 / total_units(only)
    except FairdieError as e:
        print(f"fairdie: error: {e}", file=sys.stderr)
        return 2
    update, close = progress_bar(100, unit="%", quiet=args.json)
    sent = [0.0, 0]  # units told, percent shown

    def progress(units: float) -> None:
        if update is None:
            return
        sent[0] += units
        step = min(100, int(sent[0] * scale)) - int(sent[1])
        if step > 0:
            update(step)
            sent[1] += step

    try:
        if args.report is not None:
            check_cov(args)  # before the report's folder is made
            check_report_folder(args.report, force=args.force)
        with covering(args):
            verdict = verify(
                args.firmware,
                board=args.board,
                eep=args.eep,
                only=only,
                options=Options(
                    seed=args.seed,
                    jobs=args.jobs,
                    scheduler=args.scheduler,
                    subjects={s.subject: s.options.read(args) for s in subjects if s.options},
                ),
                progress=progress,
                programmer=args.programmer,
                report=args.report,
                evidence=args.report is not None,  # its files are for the report alone
            )
        out = verdict.as_json()
        if args.report is not None:
            out["report"] = str(write_report(verdict, args.report))
    except FairdieError as e:
        close()
        print(f"fairdie: error: {e}", file=sys.stderr)
        return 2
    except (KeyboardInterrupt, Terminated) as e:
        close()
        return stopped(e)
    close()
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        out["burn_lines"] = verdict.burn.lines() if verdict.burn is not None else []
        print(format_verdict(out))
    return 0 if verdict.passed else 1
