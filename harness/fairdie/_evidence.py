"""What a failing simulation test leaves behind: the seed, the commands that
replay it, and a VCD of each die's last press (or of a chip's trace).

The pytest plugin tells :class:`Subjects` about every die its factory makes
and every chip its ``fairdie_chip`` fixture makes while a test runs; a die
made there records the cheap event kinds (:data:`fairdie._trace.EVIDENCE_KINDS`)
and, as every die does, clears its trace when a press starts. When the test
fails, :func:`write_evidence` writes the VCDs and says how to replay.

A die's ``fairdie press`` equivalent is given only when it was checked:
the command's die is made and pressed as the CLI would, and its trace and
EEPROM must be the failing die's, event for event. A die rolled with
varying holds or bounces, fed a noise model object, or changed by the test
behind the factory's back has none (the pytest command still replays it).

Nothing here loads the compiled module until a subject is written.
"""

from __future__ import annotations

import contextlib
import functools
import io
import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fairdie.die import Die
    from fairdie.sim import Chip

__all__ = [
    "DieRecipe",
    "Evidence",
    "Subject",
    "Subjects",
    "press_command",
    "recording_die",
    "write_evidence",
]

#: subjects remembered per test: the last made (inside ``@given``, the
#: failing example's, which Hypothesis runs last)
KEEP = 4
#: a ``fairdie press`` equivalent is checked by replaying at most this many presses
MAX_REPLAY = 1000


@dataclass(frozen=True, slots=True)
class DieRecipe:
    """How the plugin's factory made a die, as ``fairdie press`` options."""

    board: str  #: a shipped board's name or a board file's absolute path
    firmware: str | None  #: the firmware given to pytest (None: built from the board)
    f_cpu: int | None
    seed: int
    noise: object  #: a noise name (str), None for the default, or a model object
    roll: str | None
    eeprom: bytes | None


@dataclass(slots=True)
class Subject:
    """A chip the test made, and the die around it if it is one."""

    chip: Chip
    die: Die | None = None
    recipe: DieRecipe | None = None


@dataclass
class Subjects:
    """The subjects of the running test, the last :data:`KEEP` of them."""

    items: list[Subject] = field(default_factory=list)

    def add(self, subject: Subject) -> None:
        self.items = [*self.items[-(KEEP - 1) :], subject]

    def clear(self) -> None:
        self.items = []

    def __iter__(self) -> Iterator[Subject]:
        return iter(self.items)


@dataclass(frozen=True, slots=True)
class Evidence:
    """JUnit properties (name, value) and the text of the report section."""

    properties: list[tuple[str, str]]
    text: str


@functools.cache
def _recording_die() -> type[Die]:
    from fairdie.die import Die, Press

    class RecordingDie(Die):
        """A die that remembers how each roll was made (for its replay)."""

        def __init__(self, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            #: (hold, bounce) of each roll, in order
            self.rolls: list[tuple[float, object]] = []

        def roll(self, hold: float = 0.2, *, bounce: Any = None) -> Press:
            self.rolls.append((hold, bounce))
            return super().roll(hold, bounce=bounce)

    return RecordingDie


def recording_die(**kwargs: Any) -> Die:
    """``Die(**kwargs)`` that remembers each roll's hold and bounce, so a
    failing test can say which ``fairdie press`` ends with its last press."""
    return _recording_die()(**kwargs)


def press_command(die: Die, recipe: DieRecipe) -> tuple[list[str] | None, str]:
    """``(argv, "")`` of the ``fairdie press`` that ends with the die's last
    press, checked by replaying it; else ``(None, why not)``."""
    rolls: list[tuple[float, object]] = getattr(die, "rolls", [])
    if not rolls:
        return None, "the die was never rolled"
    if len(rolls) != die.presses:
        return None, f"it counts {die.presses} presses but was rolled {len(rolls)} times"
    if len(rolls) > MAX_REPLAY:
        return None, f"{len(rolls)} presses: more than {MAX_REPLAY} to check"
    if len({hold for hold, _ in rolls}) > 1 or any(b is not None for _, b in rolls):
        return None, "its rolls differ in hold or bounce"
    if recipe.noise is not None and not isinstance(recipe.noise, str):
        return None, "its noise is a model object, not a name"
    argv = ["fairdie", "press", "--board", recipe.board]
    if recipe.firmware is not None:
        argv += ["--firmware", recipe.firmware]
    if recipe.f_cpu is not None:
        argv += ["--f-cpu", str(recipe.f_cpu)]
    argv += ["--seed", str(recipe.seed)]
    if isinstance(recipe.noise, str):
        argv += ["--noise", recipe.noise]
    if recipe.roll is not None:
        argv += ["--button", recipe.roll]
    if recipe.eeprom is not None:
        model = die.model
        table = model.table(recipe.eeprom) if model is not None else None
        if table is None or model is None or model.with_table(table) != recipe.eeprom:
            return None, "it started from an EEPROM image that is no table"
        argv += ["--counts", ",".join(map(str, table))]
    argv += ["--count", str(len(rolls)), "--hold", repr(rolls[0][0])]
    if not _replays(argv, die):
        return None, "the test changed the die beyond what the press options say"
    return argv, ""


def _replays(argv: list[str], die: Die) -> bool:
    """Whether ``argv`` (a ``fairdie press``) ends with the die's last press."""
    from fairdie.cli import _make_die, _parser

    try:
        with contextlib.redirect_stderr(io.StringIO()):  # argparse's complaints
            a = _parser().parse_args(argv[1:])
        replica: Die = _make_die(a)
        replica.chip.trace_kinds = die.chip.trace_kinds
        for _ in range(a.count):
            replica.roll(a.hold)
    except (Exception, SystemExit):
        return False
    same_trace = replica.chip.trace.raw() == die.chip.trace.raw()
    return same_trace and replica.chip.eeprom == die.chip.eeprom


def file_stem(name: str) -> str:
    """A test's name as a file name: ``m.test_x[a/b]`` -> ``m.test_x_a_b``."""
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("._") or "test"
    return stem[:150]


def _press_line(s: Subject) -> tuple[str | None, str]:
    """(the checked ``fairdie press`` command or None, the text after the label)."""
    if s.die is None or s.recipe is None:
        return None, ""
    try:
        argv, why = press_command(s.die, s.recipe)
    except Exception as e:  # a model that cannot read the image, ...
        argv, why = None, f"{type(e).__name__}: {e}"
    if argv is None:
        return None, f": no fairdie press equivalent: {why}"
    press = shlex.join(argv)
    return press, f": {press}"


def write_evidence(
    subjects: Subjects, *, directory: Path, stem: str, replay: str, seed: str
) -> Evidence:
    """Write each subject's VCD to ``directory`` and say how to replay.

    Properties: ``fairdie_replay`` (the pytest command), then per subject
    ``fairdie_seed``, ``fairdie_press`` (when checked) and ``fairdie_vcd``.
    What cannot be written is said in the text, never raised: evidence never
    hides the failure it documents.
    """
    from fairdie._trace import write

    props: list[tuple[str, str]] = [("fairdie_replay", replay)]
    lines = [replay]
    items = list(subjects)
    if not items:
        props.append(("fairdie_seed", seed))
    traced = sum(1 for s in items if len(s.chip.trace))
    vcds = 0
    for n, s in enumerate(items, 1):
        what = "die" if s.die is not None else "chip"
        label = f"{what} {n} of {len(items)}" if len(items) > 1 else what
        props.append(("fairdie_seed", str(s.chip.seed)))
        press, text = _press_line(s)
        lines.append(f"{label} (seed {s.chip.seed}){text}")
        if press:
            props.append(("fairdie_press", press))
        if not len(s.chip.trace):
            lines.append("  no VCD: its trace is empty")
            continue
        vcds += 1
        path = directory / f"{stem}{f'-{vcds}' if traced > 1 else ''}.vcd"
        try:
            directory.mkdir(parents=True, exist_ok=True)
            write(s.chip, path, comment="\n".join(c for c in (replay, press) if c))
        except Exception as e:
            lines.append(f"  no VCD: {type(e).__name__}: {e}")
            continue
        props.append(("fairdie_vcd", str(path)))
        last = f"its last press (press {s.die.presses})" if s.die is not None else "its trace"
        lines.append(f"  VCD of {last}: {path}")
    return Evidence(props, "\n".join(lines))
