"""What a failing simulation test leaves behind: the seed, the commands that
replay it, and a VCD of each chip's trace.

The pytest plugin tells :class:`Subjects` about every chip its fixtures make
while a test runs (a subject's fixtures tell it of their devices, with a
checked command of their own that replays the device, e.g. the die's
``fairdie press``). When the test fails, :func:`write_evidence` writes the
VCDs and says how to replay.

Nothing here loads the compiled module until a subject is written.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fairdie.board import Board
    from fairdie.sim import Chip

__all__ = ["Evidence", "Subject", "Subjects", "file_stem", "write_evidence"]

#: subjects remembered per test: the last made (inside ``@given``, the
#: failing example's, which Hypothesis runs last)
KEEP = 4


@dataclass(slots=True)
class Subject:
    """A chip the test made, and what a subject's fixture knows of it."""

    chip: Chip
    #: what it is, in the report ("chip", "die", ...)
    what: str = "chip"
    #: ``() -> (argv, "")`` of a checked command that replays it, else ``(None, why not)``
    replay: Callable[[], tuple[list[str] | None, str]] | None = None
    #: what its trace holds ("its trace", "its last press (press 3)")
    trace: Callable[[], str] | None = None
    #: the command ``replay`` gives, as the report names it ("fairdie press")
    command: str = "replay command"
    #: the board it sits on: its VCD names the board's parts (None: pins only)
    board: Board | None = None


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


def file_stem(name: str) -> str:
    """A test's name as a file name: ``m.test_x[a/b]`` -> ``m.test_x_a_b``."""
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("._") or "test"
    return stem[:150]


def _replay_line(s: Subject) -> tuple[str | None, str]:
    """(the checked command or None, the text after the label)."""
    if s.replay is None:
        return None, ""
    try:
        argv, why = s.replay()
    except Exception as e:  # a model that cannot read the image, ...
        argv, why = None, f"{type(e).__name__}: {e}"
    if argv is None:
        return None, f": no {s.command} equivalent: {why}"
    line = shlex.join(argv)
    return line, f": {line}"


def write_evidence(
    subjects: Subjects, *, directory: Path, stem: str, replay: str, seed: str
) -> Evidence:
    """Write each subject's VCD to ``directory`` and say how to replay.

    Properties: ``fairdie_replay`` (the pytest command), then per subject
    ``fairdie_seed``, ``fairdie_press`` (a subject's checked command, when
    there is one) and ``fairdie_vcd``. What cannot be written is said in the
    text, never raised: evidence never hides the failure it documents.
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
        label = f"{s.what} {n} of {len(items)}" if len(items) > 1 else s.what
        props.append(("fairdie_seed", str(s.chip.seed)))
        command, text = _replay_line(s)
        lines.append(f"{label} (seed {s.chip.seed}){text}")
        if command:
            props.append(("fairdie_press", command))
        if not len(s.chip.trace):
            lines.append("  no VCD: its trace is empty")
            continue
        vcds += 1
        path = directory / f"{stem}{f'-{vcds}' if traced > 1 else ''}.vcd"
        try:
            directory.mkdir(parents=True, exist_ok=True)
            write(s.chip, path, comment="\n".join(c for c in (replay, command) if c), board=s.board)
        except Exception as e:
            lines.append(f"  no VCD: {type(e).__name__}: {e}")
            continue
        props.append(("fairdie_vcd", str(path)))
        last = s.trace() if s.trace is not None else "its trace"
        lines.append(f"  VCD of {last}: {path}")
    return Evidence(props, "\n".join(lines))
