"""The fairdie pytest plugin (registered through the ``pytest11`` entry point).

Options, each declared once (in :mod:`fairdie._plugin_options`, with the
Hypothesis profiles) with its ini and environment forms, and a fixture of the
same name for each:

==========================  =====================  ==================  ==================
option                      ini                    environment         fixture
==========================  =====================  ==================  ==================
``--fairdie-firmware PATH`` ``fairdie_firmware``   ``FAIRDIE_FIRMWARE`` ``fairdie_firmware``
``--fairdie-board B``       ``fairdie_board``      ``FAIRDIE_BOARD``    ``fairdie_board``
``--fairdie-seed S``        ``fairdie_seed``       ``FAIRDIE_SEED``     ``fairdie_seed``
==========================  =====================  ==================  ==================

The firmware is an ELF or HEX (default: built from the board's firmware
target); the board a shipped board name or a TOML path (no default: the
core knows no product). Fixtures chain from one recipe: ``fairdie_setup``
is the session's :class:`fairdie.device.Setup` (firmware, board, clock and
seed, resolved once, the firmware loaded once); ``fairdie_firmware`` its
firmware, ``fairdie_chip`` a fresh chip of it, ``fairdie_device`` that chip
on the board. Each subject's fixtures (the die's ``die`` and
``die_factory``) load from the registry (:mod:`fairdie.subjects`).

The plugin also registers Hypothesis profiles (``fairdie-dev``; ``fairdie-ci``,
derandomized; ``fairdie-thorough``), each printing the blob that replays a
failing example. It loads one only when asked (``--fairdie-hypothesis-profile``,
ini ``fairdie_hypothesis_profile``, env ``FAIRDIE_HYPOTHESIS_PROFILE``), or
when the session loaded no profile of its own (then ``fairdie-ci`` under CI,
else ``fairdie-dev``). It records firmware, board and seed as JUnit
suite properties; and under a failing test that used its fixtures prints the
command that replays it and attaches evidence (``fairdie.subjects.die._evidence``): each
die's seed, its checked ``fairdie press`` equivalent and a VCD of its last
press, written to ``--fairdie-evidence DIR`` (ini ``fairdie_evidence``, env
``FAIRDIE_EVIDENCE``), else ``fairdie-evidence/`` next to ``--junitxml``,
else under pytest's basetemp; the same as JUnit test-case properties
(``fairdie_replay``, ``fairdie_seed``, ``fairdie_press``, ``fairdie_vcd``).

Firmware coverage (``--fairdie-cov``, ``--fairdie-cov-fail-under``) is
:mod:`fairdie._cov_plugin`, loaded with this module.

This module imports nothing compiled, so pytest starts without the binding.
"""

from __future__ import annotations

import os
import shlex
import sys
import tempfile
from collections.abc import Generator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

# the options, their values and the Hypothesis profiles; _value (the die suite's
# conftest reads it) stays importable from here
from fairdie._plugin_options import (
    _BOARD,
    _EVIDENCE,
    _FIRMWARE,
    _HYPOTHESIS,
    _SEED,
    OPTIONS,
    PROFILES,
    _load_profile,
    _seed,
    board_option,
    examples,
    option_value,
    session_board,
)
from fairdie._plugin_options import _value as _value

if TYPE_CHECKING:
    from fairdie._evidence import Subject, Subjects
    from fairdie.board import Board
    from fairdie.device import Device, Setup
    from fairdie.sim import Chip, Firmware

__all__ = [
    "OPTIONS",
    "PROFILES",
    "add_subject",
    "board_option",
    "examples",
    "note_collection",
    "option_value",
    "session_board",
]
#: firmware coverage (``--fairdie-cov``), a plugin of its own loaded with this one
pytest_plugins = ["fairdie._cov_plugin"]


_SUBJECTS: pytest.StashKey[Subjects] = pytest.StashKey()
_TMP: pytest.StashKey[pytest.TempPathFactory] = pytest.StashKey()
#: the session's setup, when made to check a given firmware at configure time
_SETUP: pytest.StashKey[Setup] = pytest.StashKey()
_REPORTED: pytest.StashKey[bool] = pytest.StashKey()
#: lines about the collection, printed once (:func:`note_collection`)
_NOTES: pytest.StashKey[list[str]] = pytest.StashKey()
_NOTES_KEY = "fairdie_notes"
_NO_TARGET = "board {} names no firmware target: give --fairdie-firmware"
#: the core's fixtures that make chips; each subject's fixture module adds its ``__all__``
_CORE_FIXTURES = frozenset(
    {"fairdie_setup", "fairdie_chip", "fairdie_device", *(o.name for o in OPTIONS)}
)
_FIXTURES: pytest.StashKey[frozenset[str]] = pytest.StashKey()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("fairdie", "fairdie AVR emulation")
    for o in (*OPTIONS, _EVIDENCE, _HYPOTHESIS):
        group.addoption(o.flag, dest=o.name, default=None, help=f"{o.help}; env {o.env}")
        parser.addini(o.name, o.help, default=o.default)


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """Load a Hypothesis profile if the session has none (before Hypothesis'
    own plugin applies ``--hypothesis-profile``), declare the markers, load
    the subjects' fixtures, and reject a bad option before any test runs (one
    usage error)."""
    _load_profile(config)
    config.pluginmanager.import_plugin("fairdie.scenario._pytest")  # test_*.toml scenario files
    config.addinivalue_line("markers", "sim: needs avr-gcc and the compiled simavr binding")
    config.addinivalue_line("markers", "slow: long campaigns, deselected with -m 'not slow'")
    from fairdie._evidence import Subjects
    from fairdie.subjects import subjects

    config.stash[_SUBJECTS] = Subjects()
    names = set(_CORE_FIXTURES)
    for subject in subjects():
        if subject.fixtures is not None:
            config.pluginmanager.import_plugin(subject.fixtures)
            names.update(getattr(sys.modules[subject.fixtures], "__all__", ()))
    config.stash[_FIXTURES] = frozenset(names)
    seed = _seed(config)
    firmware, board_name = _value(config, _FIRMWARE), _value(config, _BOARD)
    if not firmware and board_name is None:
        return
    from fairdie.board import load_board
    from fairdie.errors import FairdieError

    try:
        if board_name is None:
            raise FairdieError("--fairdie-firmware needs --fairdie-board (the board it runs on)")
        board = load_board(board_name)
        if firmware:  # the session's setup, checked now: the fixtures reuse it
            from fairdie.device import Setup

            config.stash[_SETUP] = Setup.make(Path(firmware), board=board, seed=seed)
        elif board.firmware is None:
            raise FairdieError(_NO_TARGET.format(board.name))
    except FairdieError as e:
        raise pytest.UsageError(f"fairdie: {e}") from None


def pytest_report_header(config: pytest.Config) -> list[str]:
    parts = [f"{o.name}={_value(config, o)}" for o in OPTIONS]
    return ["fairdie: " + ", ".join(parts)]


def note_collection(config: pytest.Config, line: str) -> None:
    """Report one line about the collection (a suite's deselected tests) once:
    under the collection count in one process; under pytest-xdist, where the
    workers collect, each worker hands it to the controller, which prints it
    once at the end."""
    workeroutput = getattr(config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput.setdefault(_NOTES_KEY, []).append(line)
    config.stash.setdefault(_NOTES, []).append(line)


def pytest_report_collectionfinish(config: pytest.Config) -> list[str]:
    notes: list[str] = config.stash.get(_NOTES, [])
    return list(notes)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    """The controller keeps the lines its workers noted (each worker the same)."""
    notes = node.config.stash.setdefault(_NOTES, [])
    for line in getattr(node, "workeroutput", {}).get(_NOTES_KEY, []):
        if line not in notes:
            notes.append(line)


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    if getattr(config.option, "numprocesses", None) and not hasattr(config, "workerinput"):
        for line in config.stash.get(_NOTES, []):
            terminalreporter.write_line(line)


def replay_command(config: pytest.Config, item: pytest.Item) -> str:
    """The command that runs one test again, from any directory, with this
    session's firmware, board and seed."""
    test = str(item.path) + "".join(f"::{part}" for part in item.nodeid.split("::")[1:])
    args = ["pytest", test]
    for o in (_FIRMWARE, _BOARD):
        value = _value(config, o)
        if value is not None and value != o.default:
            args.append(f"{o.flag}={value}")
    args.append(f"{_SEED.flag}={_value(config, _SEED)}")
    return shlex.join(args)


def evidence_dir(config: pytest.Config) -> Path:
    """Where failing tests' VCDs go: ``--fairdie-evidence``, else
    ``fairdie-evidence/`` next to ``--junitxml``, else under the basetemp."""
    here = config.invocation_params.dir
    explicit = _value(config, _EVIDENCE)
    if explicit:
        return here / Path(explicit).expanduser()
    xml = config.getoption("xmlpath", None)
    if xml:
        return (here / Path(os.path.expandvars(str(xml))).expanduser()).parent / "fairdie-evidence"
    tmp = config.stash.get(_TMP, None)
    base = tmp.getbasetemp() if tmp is not None else Path(tempfile.gettempdir())
    return base / "fairdie-evidence"


def add_subject(config: pytest.Config, subject: Subject) -> None:
    """Tell the running test's evidence of a chip (a subject's fixtures call it)."""
    _subject(config, subject)


def _subject(config: pytest.Config, subject: Subject) -> None:
    subjects = config.stash.get(_SUBJECTS, None)
    if subjects is not None:
        subjects.add(subject)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """A test's subjects are the dice and chips made from here on."""
    subjects = item.config.stash.get(_SUBJECTS, None)
    if subjects is not None:
        subjects.clear()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, Any, None]:
    outcome = yield
    report: pytest.TestReport = outcome.get_result()
    used = item.config.stash.get(_FIXTURES, _CORE_FIXTURES)
    if not report.failed or not used.intersection(getattr(item, "fixturenames", ())):
        return
    if item.stash.get(_REPORTED, False):  # once per test: its first failing phase
        report.sections.append(("fairdie replay", replay_command(item.config, item)))
        return
    item.stash[_REPORTED] = True
    from fairdie._evidence import Subjects, file_stem, write_evidence

    config = item.config
    evidence = write_evidence(
        config.stash.get(_SUBJECTS, None) or Subjects(),
        directory=evidence_dir(config),
        stem=file_stem(f"{item.path.stem}.{item.name}"),
        replay=replay_command(config, item),
        seed=_value(config, _SEED) or "0",
    )
    report.sections.append(("fairdie replay", evidence.text))
    # the teardown report, which the JUnit XML takes them from, copies the item's
    item.user_properties.extend(evidence.properties)
    report.user_properties.extend(evidence.properties)


def pytest_sessionstart(session: pytest.Session) -> None:
    _junit_properties(session)
    _hypothesis_home(session)


def _junit_properties(session: pytest.Session) -> None:
    """Firmware, board and seed as JUnit suite properties (valid under xunit2),
    recorded by the process that writes the XML. Under pytest-xdist that is the
    controller: a worker has no XML, and its ``record_testsuite_property``
    records nothing."""
    try:  # the XML writer: the fixture reaches it only from a test, in the same process
        from _pytest.junitxml import xml_key
    except ImportError:  # a pytest without it: tests/unit/test_junit_suite_properties.py fails
        return
    xml = session.config.stash.get(xml_key, None)
    if xml is None:
        return
    unset = {_FIRMWARE.name: "built from the board", _BOARD.name: "none given"}
    for o in OPTIONS:
        value = _value(session.config, o)
        xml.add_global_property(o.name, value if value is not None else unset[o.name])


@pytest.fixture(scope="session", autouse=True)
def _fairdie_basetemp(
    pytestconfig: pytest.Config, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The session's basetemp factory, for evidence written from a hook."""
    pytestconfig.stash[_TMP] = tmp_path_factory


@pytest.fixture(scope="session")
def fairdie_evidence(pytestconfig: pytest.Config) -> Path:
    """The directory a failing test's evidence goes to (see :func:`evidence_dir`)."""
    return evidence_dir(pytestconfig)


def _hypothesis_home(session: pytest.Session) -> None:
    """Keep Hypothesis' files (its example database) under the pytest cache
    (made before the session starts), not in ``.hypothesis/`` of the current
    folder, unless the user chose a place (HYPOTHESIS_STORAGE_DIRECTORY; a
    profile's own database stands too)."""
    from hypothesis import configuration

    cache = getattr(session.config, "cache", None)
    home = getattr(configuration, "__hypothesis_home_directory", None)
    default = getattr(configuration, "__hypothesis_home_directory_default", None)
    if (
        cache is None
        or os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY")
        or home not in (None, default)
    ):
        return  # no cache (-p no:cacheprovider), or the user chose
    configuration.set_hypothesis_home_dir(cache.mkdir("hypothesis"))
    session.config.add_cleanup(lambda: configuration.set_hypothesis_home_dir(home))


@pytest.fixture(scope="session")
def fairdie_seed(pytestconfig: pytest.Config) -> int:
    return _seed(pytestconfig)


@pytest.fixture(scope="session")
def fairdie_board(pytestconfig: pytest.Config) -> Board:
    from fairdie.board import load_board
    from fairdie.errors import FairdieError

    made = pytestconfig.stash.get(_SETUP, None)
    if made is not None and made.board is not None:
        return made.board
    name = _value(pytestconfig, _BOARD)
    if name is None:
        raise pytest.UsageError("fairdie: give --fairdie-board (a board file or a shipped board)")
    try:
        return load_board(name)
    except FairdieError as e:
        raise pytest.UsageError(str(e)) from None


@pytest.fixture(scope="session")
def fairdie_setup(pytestconfig: pytest.Config, fairdie_board: Board, fairdie_seed: int) -> Setup:
    """The session's recipe: the firmware given (else built from the board's
    target) on the board, its clock resolved once, the session's seed."""
    made = pytestconfig.stash.get(_SETUP, None)
    if made is not None:
        return made
    from fairdie.device import Setup
    from fairdie.errors import FairdieError

    if fairdie_board.firmware is None:
        raise pytest.UsageError(_NO_TARGET.format(fairdie_board.name))
    try:
        return Setup.make(board=fairdie_board, seed=fairdie_seed)
    except FairdieError as e:
        raise pytest.UsageError(str(e)) from None


@pytest.fixture(scope="session")
def fairdie_firmware(fairdie_setup: Setup) -> Firmware:
    """The firmware under test: the one given, else built from the board's target."""
    return fairdie_setup.load()


@pytest.fixture
def fairdie_chip(pytestconfig: pytest.Config, fairdie_setup: Setup) -> Chip:
    """A fresh chip, powered off, running the firmware under test on the board's supply."""
    from fairdie._evidence import Subject

    chip = fairdie_setup.chip()
    _subject(pytestconfig, Subject(chip, board=fairdie_setup.board))
    return chip


@pytest.fixture
def fairdie_device(fairdie_chip: Chip, fairdie_board: Board, fairdie_seed: int) -> Device:
    """The fresh chip on the board: its buttons, LEDs, displays and speaker."""
    from fairdie.device import Device

    return Device(fairdie_chip, fairdie_board, seed=fairdie_seed)
