"""What a verify check is, what it returns, and what the checks share.

A :class:`Check` is a named runner ``run(ctx) -> (status, reason, details)``.
The core's checks need no product; a subject brings its own as a
:class:`Checks` value its :class:`~fairdie.subjects.Subject` names
(``checks = "module:attr"``), with the rule saying which boards they apply
to, and the options of its own it adds to ``fairdie verify``
(:class:`SubjectOptions`). Every check returns pass, fail or skipped with a
one-line reason.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, is_dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from fairdie.board import Board
    from fairdie.sim import Chip
    from fairdie.verify._candidate import Candidate
    from fairdie.verify._energy import Energy
    from fairdie.verify._evidence import Evidence
    from fairdie.verify._timeline import Timeline

__all__ = [
    "FAIL",
    "PASS",
    "SKIP",
    "Check",
    "CheckResult",
    "Checks",
    "Context",
    "Options",
    "ReportPart",
    "Result",
    "SubjectOptions",
    "fail",
    "ok",
    "skip",
]

PASS, FAIL, SKIP = "pass", "fail", "skipped"

#: what a check's runner returns: (status, one-line reason, details for the JSON)
Result = tuple[str, str, dict[str, Any]]


def ok(reason: str, **details: Any) -> Result:
    return PASS, reason, details


def fail(reason: str, **details: Any) -> Result:
    return FAIL, reason, details


def skip(reason: str, **details: Any) -> Result:
    return SKIP, reason, details


@dataclass(frozen=True)
class Check:
    """One check: its name, what it checks (one line), and its runner."""

    name: str
    what: str
    run: Callable[[Context], Result]
    #: its share of the progress bar (roughly its share of the time)
    weight: float = 1.0
    #: it runs even when ``--only`` leaves it out: later checks need what it finds
    always: bool = False


@dataclass(frozen=True)
class SubjectOptions:
    """A subject's own ``fairdie verify`` options.

    ``add(group)`` adds them to an argparse group (``fairdie verify --help``
    lists them under the subject's name); ``read(args)`` makes the subject's
    options value from the parsed arguments; ``default`` is that value when
    none were given (:func:`~fairdie.verify.verify` called from Python). Its
    checks find the value with :meth:`Options.of`."""

    add: Callable[[argparse._ArgumentGroup], None]
    read: Callable[[argparse.Namespace], Any]
    default: Any


@dataclass(frozen=True)
class Checks:
    """A subject's checks, the boards they apply to, and its own options.

    ``applies(board)`` is None when they apply, else the reason they are
    skipped (one line); it raises :class:`~fairdie.errors.FairdieError` for a
    board the subject claims but cannot use (bad input). A check named as one
    of the core's replaces the core's where the subject applies (the core's
    runs elsewhere)."""

    subject: str
    applies: Callable[[Board], str | None]
    checks: tuple[Check, ...]
    options: SubjectOptions | None = None


@dataclass
class CheckResult:
    """One row of the table."""

    name: str
    status: str  #: "pass", "fail" or "skipped"
    reason: str
    details: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "status": self.status,
            "reason": self.reason,
            "details": self.details,
            "seconds": round(self.seconds, 2),
        }


@dataclass(frozen=True)
class Options:
    """What a run may change that is no subject's: the seed and where the
    campaigns run; a subject's own options value by subject name."""

    seed: int = 0
    jobs: int = 1  #: local processes for a subject's campaigns
    scheduler: str | None = None  #: a Dask scheduler's address for them, instead
    subjects: Mapping[str, Any] = field(default_factory=dict)

    def of(self, checks: Checks) -> Any:
        """The options value of the subject ``checks`` belong to (its default
        when none was given)."""
        found = self.subjects.get(checks.subject)
        if found is None and checks.options is not None:
            return checks.options.default
        return found

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"seed": self.seed, "jobs": self.jobs, "scheduler": self.scheduler}
        for name, value in self.subjects.items():
            out[name] = (
                asdict(value) if is_dataclass(value) and not isinstance(value, type) else value
            )
        return out


class ReportPart(Protocol):
    """What a subject's check adds to the HTML report."""

    def html(self) -> str:
        """A section of the page (escaped HTML)."""
        ...

    def images(self, folder: Path) -> list[tuple[str, str]]:
        """Write PNGs into ``folder``; their (title, file name)s."""
        ...


class Context:
    """What the checks share: the candidate, the options and what earlier checks found."""

    def __init__(
        self, candidate: Candidate, options: Options, folder: Path, *, keep_files: bool = True
    ) -> None:
        self.c = candidate
        self.o = options
        self.folder = folder  #: a temporary folder for the run's files
        #: the evidence's files are made and kept (for a report); else only named
        self.keep_files = keep_files
        self.tick: Callable[[float], None] = lambda f: None  #: a fraction of this check done
        self.runs = False  #: the firmware loads on the board's MCU
        self.current = ""  #: the name of the check running
        #: facts a check learnt for the verdict's header and JSON (a subject's model, ...)
        self.facts: dict[str, Any] = {}
        self.notes: list[str] = []  #: warnings in the verdict: not failures
        self.energy: Energy | None = None
        self.timeline: Timeline | None = None  #: one recorded run, for the timing diagram
        self.report: list[ReportPart] = []
        #: a subject's own state, by subject name (the core's keys start "verify.")
        self.state: dict[str, Any] = {}
        #: each check's links in the report (by check name), and the files they name
        self.evidence: dict[str, list[Evidence]] = {}
        self.files: dict[str, bytes] = {}
        self._chips: list[Chip] = []

    def link(
        self, check: str, title: str, *, file: str | None = None, command: str | None = None
    ) -> None:
        """Link ``check``'s row in the report to a file of :attr:`files` or a command."""
        from fairdie.verify._evidence import Evidence

        self.evidence.setdefault(check, []).append(Evidence(title, file, command))

    def link_file(self, name: str, title: str) -> None:
        """Link the running check to the file ``name`` (once)."""
        if all(e.file != name for e in self.evidence.get(self.current, ())):
            self.link(self.current, title, file=name)

    def add_file(self, name: str, data: bytes) -> str:
        """Keep ``data`` for the report folder as ``name``; the name."""
        if self.keep_files:
            self.files[name] = data
        return name

    def add_vcd(self, chip: Chip, name: str, comment: str = "") -> str:
        """The chip's trace as a VCD for the report (the board's parts named); its name."""
        from fairdie._trace import write

        if not self.keep_files:
            return name
        path = self.folder / name
        write(chip, path, comment=comment, board=self.c.board)
        return self.add_file(name, path.read_bytes())

    def chip(self, **options: object) -> Chip:
        """A fresh chip of the candidate's setup (counted for :meth:`unmodelled`)."""
        return self.track(self.c.setup.chip(**options))

    def track(self, chip: Chip) -> Chip:
        """Remember a chip a check made, to report what it did not model."""
        if all(c is not chip for c in self._chips):
            self._chips.append(chip)
        return chip

    def unmodelled(self) -> Sequence[str]:
        """What the emulation did not model on any chip the checks ran."""
        seen: dict[str, None] = {}
        for chip in self._chips:
            for name in getattr(chip, "unmodelled", ()):
                seen[str(name)] = None
        return tuple(seen)
