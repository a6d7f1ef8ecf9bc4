"""The die's own ``fairdie verify`` options: the fairness campaign's presses
per noise, how long a recorded press is held, and the noise models. The core
lists them in ``--help`` under the die's name and hands the checks a
:class:`DieOptions` (:meth:`fairdie.verify.Options.of`)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from fairdie._cmdline import int_at_least
from fairdie.verify import Context, SubjectOptions

__all__ = ["MAX_HOLD_S", "OPTIONS", "DieOptions", "die_options"]

MAX_HOLD_S = 9.0  #: a longer press would run into the die's 10 s clear


@dataclass(frozen=True)
class DieOptions:
    """What a verify run of a die may change."""

    presses: int = 2000  #: presses per noise in the fairness campaign
    hold: float = 1.0  #: seconds a recorded press is held (faces, energy)
    noises: tuple[str, ...] | None = None  #: the noise models (None: the standard set)


def _hold(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not 0.1 <= v <= MAX_HOLD_S:
        raise argparse.ArgumentTypeError(f"{text} s is out of range (0.1..{MAX_HOLD_S:g} s)")
    return v


def _noise(text: str) -> str:
    from fairdie.noise import parse_noise

    if text.strip().lower() == "adversarial":
        return "adversarial"
    try:
        parse_noise(text, seed=0, vcc_mv=3000)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return text


def _add(group: argparse._ArgumentGroup) -> None:
    group.add_argument(
        "--presses",
        type=int_at_least(100),
        default=DieOptions.presses,
        metavar="N",
        help=f"presses per noise in the fairness campaign (default {DieOptions.presses})",
    )
    group.add_argument(
        "--noise",
        type=_noise,
        action="append",
        metavar="SPEC",
        help="a noise model of the fairness campaign, as `fairdie lab campaign` takes it"
        " (repeat for several; default: the standard set)",
    )
    group.add_argument(
        "--hold",
        type=_hold,
        default=DieOptions.hold,
        metavar="SECONDS",
        help=f"how long a press is held for the faces and the energy estimate"
        f" (default {DieOptions.hold:g}, at most {MAX_HOLD_S:g}: the 10 s clear)",
    )


def _read(args: argparse.Namespace) -> DieOptions:
    noises = tuple(dict.fromkeys(args.noise)) if args.noise else None
    return DieOptions(presses=args.presses, hold=args.hold, noises=noises)


#: what the die adds to ``fairdie verify``
OPTIONS = SubjectOptions(add=_add, read=_read, default=DieOptions())


def die_options(ctx: Context) -> DieOptions:
    """The die's options in this verify run."""
    from fairdie.subjects.die.checks import CHECKS

    found = ctx.o.of(CHECKS)
    return found if isinstance(found, DieOptions) else DieOptions()
