"""Firmware coverage in pytest: what the tests ran of every firmware their chips ran.

Options (loaded with :mod:`fairdie.plugin`):

- ``--fairdie-cov=KIND:PATH`` (repeatable): record the coverage of every chip
  the session makes and write it: ``lcov:PATH`` an LCOV tracefile,
  ``xml:PATH`` Cobertura XML, ``html:DIR`` the HTML view, ``json:PATH`` the
  counts themselves (a coverage file for ``fairdie cov merge`` and ``report``).
  Each replaces only what fairdie wrote, checked before collection, as the
  commands' outputs do; ``--fairdie-cov-force`` lets them replace anything.
- ``--fairdie-cov-fail-under=N``: fail the session when the line coverage of
  all firmwares together is below N percent (it records coverage too).

With either, the session ends with one line per source file (lines, branches,
functions). Under pytest-xdist each worker sends its counts to the controller,
which merges them with its own: the counts of ``-n 2`` are those of a serial
run, except that a chip made by a session-scoped fixture runs once per worker.
Chips count from when they are made to when they are freed or the session
ends, whichever is first (see :func:`fairdie.sim.record_chips`); chips of
processes a test starts itself (a campaign with ``jobs`` above 1) are not
seen.

This module imports nothing compiled unless coverage is asked for.
"""

from __future__ import annotations

import json
from contextlib import AbstractContextManager, suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from fairdie.coverage import CoverageSet
    from fairdie.sim import ChipRecorder

_KINDS = ("lcov", "xml", "html", "json")
_WORKER_KEY = "fairdie_coverage"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("fairdie", "fairdie AVR emulation")
    group.addoption(
        "--fairdie-cov",
        action="append",
        default=[],
        dest="fairdie_cov",
        metavar="KIND:PATH",
        help="record firmware coverage of every chip and write it: lcov:PATH, xml:PATH,"
        " html:DIR or json:PATH (repeatable)",
    )
    group.addoption(
        "--fairdie-cov-force",
        action="store_true",
        dest="fairdie_cov_force",
        help="write the coverage outputs even over files (or into folders) fairdie did not write",
    )
    group.addoption(
        "--fairdie-cov-fail-under",
        dest="fairdie_cov_fail_under",
        default=None,
        metavar="N",
        help="fail the session below N%% line coverage of the firmware",
    )


def _outputs(specs: list[str], here: Path, force: bool) -> list[tuple[str, Path]]:
    """The outputs asked for, each checked before any test runs as the
    commands check theirs (:func:`fairdie.coverage.check_output`): a file
    only over one fairdie wrote, a folder claimed (files first: a refused
    one claims none)."""
    out = []
    for spec in specs:
        kind, sep, path = spec.partition(":")
        if not sep or kind not in _KINDS or not path:
            raise pytest.UsageError(
                f"fairdie: --fairdie-cov={spec}: give KIND:PATH, KIND one of {', '.join(_KINDS)}"
            )
        out.append((kind, here / Path(path).expanduser()))
    if out:
        from fairdie.coverage import check_output
        from fairdie.errors import FairdieError

        try:
            for kind, where in sorted(out, key=lambda o: o[0] == "html"):
                check_output(
                    kind,
                    where,
                    f"--fairdie-cov={kind}:",
                    force=force,
                    force_option="--fairdie-cov-force",
                )
        except FairdieError as e:
            raise pytest.UsageError(f"fairdie: {e}") from None
    return out


def _percent(text: str | None) -> float | None:
    if text is None:
        return None
    try:
        n = float(text)
    except ValueError:
        n = -1.0
    if not 0 <= n <= 100:
        raise pytest.UsageError(f"fairdie: --fairdie-cov-fail-under={text}: give 0..100")
    return n


@pytest.hookimpl(trylast=True)
def pytest_configure(config: pytest.Config) -> None:
    force = bool(config.getoption("fairdie_cov_force"))
    outputs = _outputs(config.getoption("fairdie_cov"), config.invocation_params.dir, force)
    fail_under = _percent(config.getoption("fairdie_cov_fail_under"))
    if outputs or fail_under is not None:
        session = _Session(config, outputs, fail_under, force)
        config.pluginmanager.register(session, "fairdie-cov-session")


def _from_json(text: str) -> CoverageSet:
    from fairdie.coverage import Coverage, CoverageSet

    return CoverageSet(Coverage.from_json(f) for f in json.loads(text)["firmwares"])


def _read_ahead(covset: CoverageSet) -> None:
    """Read (and cache) the code map of each of ``covset``'s ELFs, for the
    report at the session's end; a problem is the report's to tell."""
    from fairdie.coverage._elfmap import read_elf

    for cov in covset:
        if cov.elf is not None:
            with suppress(Exception):  # the report reads it again and says what is wrong
                read_elf(cov.elf)


class _Session:
    """One session's recording: started at configure, written at the end."""

    def __init__(
        self,
        config: pytest.Config,
        outputs: list[tuple[str, Path]],
        fail_under: float | None,
        force: bool,
    ) -> None:
        from fairdie.coverage import CoverageSet
        from fairdie.sim import record_chips

        self.config = config
        self.outputs = outputs
        self.fail_under = fail_under
        self.force = force
        self.workers = CoverageSet()
        self._block: AbstractContextManager[ChipRecorder] = record_chips()
        self.recorder = self._block.__enter__()
        self.lines: list[str] = []
        self.failed = False

    @property
    def _is_worker(self) -> bool:
        return hasattr(self.config, "workeroutput")

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: object) -> None:
        """xdist: a worker's counts, merged into the controller's; the code
        maps of its firmwares read now, while other workers may still run."""
        text = getattr(node, "workeroutput", {}).get(_WORKER_KEY)
        if text:
            theirs = _from_json(text)
            self.workers = self.workers.merged(theirs)
            _read_ahead(theirs)

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        covset = self.recorder.coverage_set()
        self._block.__exit__(None, None, None)
        if self._is_worker:
            self.config.workeroutput[_WORKER_KEY] = json.dumps(covset.to_json())  # type: ignore[attr-defined]
            return
        self._report(session, covset.merged(self.workers))

    def _report(self, session: pytest.Session, covset: CoverageSet) -> None:
        from fairdie.coverage import analyse, format_summary, summarise, write_output
        from fairdie.errors import FairdieError

        try:
            report = analyse(covset)
            for kind, path in self.outputs:
                what = f"--fairdie-cov={kind}:"
                write_output(kind, covset, report, path, what=what, force=self.force)
            summaries = summarise(report)
        except FairdieError as e:
            self.lines = [f"fairdie coverage: {e}"]
            self.failed = True
            session.exitstatus = pytest.ExitCode.INTERNAL_ERROR
            return
        self.lines = [format_summary(summaries)] if summaries else []
        self.lines += [f"fairdie coverage written: {kind} {path}" for kind, path in self.outputs]
        if len(covset) == 0:
            self.lines.append("fairdie coverage: no chip ran")
        if self.fail_under is not None:
            found = sum(s.lines_found for s in summaries)
            rate = 100.0 * sum(s.lines_hit for s in summaries) / found if found else 0.0
            if rate < self.fail_under:
                self.failed = True
                self.lines.append(
                    f"FAIL: firmware line coverage {rate:.1f}% is below"
                    f" --fairdie-cov-fail-under={self.fail_under:g}"
                )
                if session.exitstatus == pytest.ExitCode.OK:
                    session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self._is_worker or not self.lines:
            return
        terminalreporter.write_sep("-", "fairdie firmware coverage", red=self.failed)
        for line in self.lines:
            terminalreporter.write_line(line)
