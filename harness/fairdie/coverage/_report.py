"""Coverage mapped onto source: per file, each line's count, each conditional
branch's two outcomes and each function's entries; code without line
information by symbol and address range.

- A line's count is that of its most executed instruction: a line is covered
  when any of its instructions ran.
- Each conditional branch or skip has two outcomes, taken (it jumps or skips)
  and not taken (it falls through); both are found whether or not it ran, and
  each is hit when it happened at least once.
- A function is entered when its first instruction ran; a function inlined at
  several places is entered when any copy's first instruction ran.
Several firmwares built from one source file add up: their counts are summed
and their branches listed side by side.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from fairdie.coverage._data import Coverage, CoverageError, CoverageSet
from fairdie.coverage._elfmap import Unit, read_elf

__all__ = [
    "Branch",
    "FileReport",
    "FileSummary",
    "FunctionReport",
    "RegionReport",
    "Report",
    "analyse",
    "format_summary",
    "summarise",
]


@dataclass(frozen=True, slots=True)
class Branch:
    """One conditional instruction's outcomes (``ran`` False: it never executed)."""

    address: int
    taken: int
    not_taken: int
    ran: bool

    @property
    def hit(self) -> int:
        """How many of its two outcomes happened (0, 1 or 2)."""
        return (self.taken > 0) + (self.not_taken > 0)


@dataclass(slots=True)
class FunctionReport:
    name: str
    symbol: str  #: unique among the file's functions (LCOV's and Cobertura's name)
    line: int
    hits: int  #: times its first instruction (any copy's) ran


@dataclass
class FileReport:
    name: str  #: as the debug information names it (``die_t13a/main.c``)
    source: Path | None  #: the file on disk, when found
    lines: dict[int, int] = field(default_factory=dict)  #: line -> count
    branches: dict[int, list[Branch]] = field(default_factory=dict)  #: line -> branches
    functions: dict[str, FunctionReport] = field(default_factory=dict)

    @property
    def path(self) -> str:
        return str(self.source) if self.source is not None else self.name


@dataclass(frozen=True, slots=True)
class RegionReport:
    """Code without line information: where it is, what of it ran."""

    firmware: str  #: the ELF's file name
    name: str  #: the symbol it starts at
    start: int
    end: int
    instructions: int
    executed: int
    branches: int  #: outcomes found (two per conditional instruction)
    branches_hit: int
    entered: int  #: times its first instruction ran


@dataclass
class Report:
    files: list[FileReport]
    unmapped: list[RegionReport]
    #: firmwares run from a HEX (no ELF): (mcu, flash SHA-256, instructions executed)
    no_elf: list[tuple[str, str, int]]


@dataclass(frozen=True, slots=True)
class FileSummary:
    file: str
    lines_found: int
    lines_hit: int
    branches_found: int
    branches_hit: int
    functions_found: int
    functions_hit: int


def locate(name: str, roots: Sequence[Path]) -> Path | None:
    """The file on disk that a debug-information path names. The build maps a
    target's folder to its name (``die_t13a/main.c``): that name is looked up
    under each of ``roots`` (the folder itself or its parent), then as a
    firmware target (:func:`fairdie.toolchain.resolve_target`: a shipped
    target, or one of the engine's test firmwares, ``tests/NAME``)."""
    p = Path(name)
    if p.is_absolute():
        return p if p.is_file() else None
    head, *rest = p.parts
    tail = Path(*rest) if rest else None
    for root in roots:
        for cand in (root / p, root / tail if tail and root.name == head else None):
            if cand is not None and cand.is_file():
                return cand.resolve()
    if tail is not None:
        from fairdie.errors import ToolchainError
        from fairdie.toolchain import resolve_target

        for target in (head, f"tests/{head}"):
            try:
                folder = resolve_target(target)
            except ToolchainError:
                continue
            if (folder / tail).is_file():
                return (folder / tail).resolve()
    return None


def _unit(cov: Coverage) -> Unit | None:
    if cov.elf is None:
        return None
    unit = read_elf(cov.elf)
    if unit.flash_sha256 != cov.flash_sha256:
        raise CoverageError(
            f"{cov.elf} is not the firmware that ran (its flash SHA-256 is"
            f" {unit.flash_sha256[:12]}, the coverage is of {cov.flash_sha256[:12]})"
        )
    return unit


def analyse(covset: CoverageSet | Iterable[Coverage], sources: Sequence[Path] = ()) -> Report:
    """Map every firmware's coverage onto its source files; ``sources`` are
    folders to look for them in (besides the working directory and the
    firmware targets)."""
    roots = [*(Path(s) for s in sources), Path.cwd()]
    files: dict[str, FileReport] = {}
    located: dict[str, Path | None] = {}
    unmapped: list[RegionReport] = []
    no_elf: list[tuple[str, str, int]] = []

    def file_of(name: str) -> FileReport:
        if name not in located:
            located[name] = locate(name, roots)
        src = located[name]
        key = str(src) if src is not None else name
        if key not in files:
            files[key] = FileReport(name, src)
        return files[key]

    for cov in covset:
        unit = _unit(cov)
        if unit is None:
            no_elf.append((cov.mcu, cov.flash_sha256, len(cov.hits)))
            continue
        hits, outcomes = cov.hits, cov.branches
        counts: dict[tuple[str, int], int] = {}
        for a, sl in unit.lines.items():
            k = (sl.file, sl.line)
            counts[k] = max(counts.get(k, 0), hits.get(a, 0))
        for (name, line), n in counts.items():
            fr = file_of(name)
            fr.lines[line] = fr.lines.get(line, 0) + n
        for a in sorted(set(unit.branches) | {b for b in outcomes if b in unit.lines}):
            sl = unit.lines[a]
            t, f = outcomes.get(a, (0, 0))
            ran = a in outcomes or hits.get(a, 0) > 0
            file_of(sl.file).branches.setdefault(sl.line, []).append(Branch(a, t, f, ran))
        for fn in unit.functions:
            fr = file_of(fn.file)
            n = sum(hits.get(e, 0) for e in fn.entries)
            old = fr.functions.get(fn.symbol)
            if old is None:
                fr.functions[fn.symbol] = FunctionReport(fn.name, fn.symbol, fn.line, n)
            else:
                old.hits += n
        elf = Path(cov.elf or "").name
        for r in unit.unmapped:
            outs = [outcomes.get(b, (0, 0)) for b in r.branches]
            unmapped.append(
                RegionReport(
                    elf,
                    r.name,
                    r.start,
                    r.end,
                    len(r.instructions),
                    sum(1 for a in r.instructions if hits.get(a, 0) > 0),
                    2 * len(r.branches),
                    sum((t > 0) + (f > 0) for t, f in outs),
                    hits.get(r.start, 0),
                )
            )
    return Report(sorted(files.values(), key=lambda f: f.name), unmapped, no_elf)


def file_summary(fr: FileReport) -> FileSummary:
    branches = [b for bs in fr.branches.values() for b in bs]
    return FileSummary(
        fr.name,
        len(fr.lines),
        sum(1 for n in fr.lines.values() if n > 0),
        2 * len(branches),
        sum(b.hit for b in branches),
        len(fr.functions),
        sum(1 for f in fr.functions.values() if f.hits > 0),
    )


def summarise(covset: CoverageSet | Report, sources: Sequence[Path] = ()) -> list[FileSummary]:
    """Per source file: lines, branch outcomes and functions found and hit."""
    report = covset if isinstance(covset, Report) else analyse(covset, sources)
    return [file_summary(f) for f in report.files]


_COUNTS = (
    "lines_found",
    "lines_hit",
    "branches_found",
    "branches_hit",
    "functions_found",
    "functions_hit",
)


def _rate(hit: int, found: int) -> str:
    return f"{hit}/{found} {100 * hit / found:5.1f}%" if found else f"{hit}/{found}    -  "


def format_summary(summaries: Sequence[FileSummary]) -> str:
    """A table, one row per file and a total: lines, branches, functions."""
    total = FileSummary(
        "total",
        *(sum(getattr(s, k) for s in summaries) for k in _COUNTS),
    )
    cells = [
        (
            s.file,
            _rate(s.lines_hit, s.lines_found),
            _rate(s.branches_hit, s.branches_found),
            f"{s.functions_hit}/{s.functions_found}",
        )
        for s in [*summaries, total]
    ]
    head = ("firmware coverage", "lines", "branches", "functions")
    widths = [max(len(c[i]) for c in [head, *cells]) for i in range(4)]
    return "\n".join(
        "  ".join([c[0].ljust(widths[0]), *(c[i].rjust(widths[i]) for i in range(1, 4))]).rstrip()
        for c in [head, *cells]
    )
