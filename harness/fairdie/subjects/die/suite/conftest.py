"""Fixtures of the die suite (the plugin provides the dice).

Every die the suite rolls follows a reference model (``die.model``), whose
presses its chip must match: the one its board's build names (a firmware
given with ``--fairdie-firmware`` for a board of ours stands in for that
build). A third-party die that names no model but declares
``[die] counters = ADDRESS`` is taken to follow the seed rule on those six
counters.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from fairdie.subjects.die._board import die_spec, same_die
from fairdie.subjects.die.suite._support import (
    BOARDS,
    BUILD_MARK,
    MODEL_MARK,
    SeedCountersAt,
    model_of,
    not_for,
    session_boards,
)

if TYPE_CHECKING:
    from fairdie.board import Board
    from fairdie.subjects.die import Die


_HERE = Path(__file__).resolve().parent


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{MODEL_MARK}(name): a test of one rule: skips unless the die follows model name",
    )
    config.addinivalue_line(
        "markers",
        f"{BUILD_MARK}(board=None, f_cpu=None): a test that needs a build of its own",
    )


@pytest.hookimpl(trylast=True)  # after -k and -m: the line counts only tests selected
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The suite on a board that is no die is one usage error, not an error per
    test: the session stops once collection ends, in one line. With one build
    given, the suite's tests that need another are deselected, not skipped one
    by one: the collection report names them once."""
    from fairdie.plugin import option_value

    name = option_value(config, "fairdie_board")
    if name is None:
        return  # the die's own board (die-direct)
    from fairdie.errors import FairdieError
    from fairdie.subjects.die._die import die_parts

    try:
        given = session_boards(config)(name)
        die_parts(given)
    except FairdieError as e:
        pytest.exit(
            f"fairdie: the die suite needs a die: {e}", returncode=pytest.ExitCode.USAGE_ERROR
        )
    if option_value(config, "fairdie_firmware"):
        _deselect_other_builds(config, items, given)


def _deselect_other_builds(config: pytest.Config, items: list[pytest.Item], given: Board) -> None:
    """Deselect the suite's tests that need another build than the one given,
    and say so in one line, by the build each needs."""
    from fairdie.plugin import note_collection

    boards = session_boards(config)
    keep: list[pytest.Item] = []
    drop: list[pytest.Item] = []
    why: dict[str, int] = {}
    for item in items:
        reason = not_for(item, given, boards) if item.path.is_relative_to(_HERE) else None
        (keep if reason is None else drop).append(item)
        if reason is not None:
            why[reason] = why.get(reason, 0) + 1
    if not drop:
        return
    config.hook.pytest_deselected(items=drop)
    items[:] = keep
    needs = ", ".join(f"{n} need {reason}" for reason, n in why.items())
    note_collection(
        config,
        f"fairdie die suite: {len(drop)} tests deselected, not for the build given ({needs});"
        " they run when the suite builds ours (no --fairdie-firmware)",
    )


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """A test taking ``board`` that does not parametrize it runs on our boards
    and on the session's board when it is another. A session board that is
    one of ours under another name (the same wiring and build, such as a
    copied board file) takes that one's place, under its own name."""
    if "board" not in metafunc.fixturenames or any(
        "board" in _names(m.args[0]) for m in metafunc.definition.iter_markers("parametrize")
    ):
        return
    from fairdie.plugin import OPTIONS, _value

    load_board = session_boards(metafunc.config)
    session = _value(metafunc.config, OPTIONS[1]) or "die-direct"
    given = load_board(session)
    boards = dict.fromkeys(BOARDS, "")
    ours = next((b for b in BOARDS if same_die(load_board(b), given)), None)
    if ours is not None and ours != given.name:
        boards = {
            session if b == ours else b: given.name if b == ours else n for b, n in boards.items()
        }
    elif ours is None:
        boards[session] = given.name
    metafunc.parametrize("board", list(boards), ids=[n or b for b, n in boards.items()])


def _names(argnames: str | Sequence[str]) -> list[str]:
    if isinstance(argnames, str):
        return [n.strip() for n in argnames.split(",")]
    return list(argnames)


@pytest.fixture(scope="session")
def die_factory(die_factory: Callable[..., Die]) -> Callable[..., Die]:
    """The plugin's factory; a die that follows no model but declares
    ``[die] counters`` is taken to follow the seed rule on them."""

    def make(**kwargs: Any) -> Die:
        die = die_factory(**kwargs)
        spec = die_spec(die.board)
        if die.model is None and spec is not None and spec.counters is not None:
            die.model = SeedCountersAt(spec.counters)
        return die

    return make


@pytest.fixture
def needs_the_table(die: Die) -> None:
    """Skip, saying why, on a die that follows no model and keeps no counters:
    the tests that use it are of our firmware's rules and tables."""
    if not die.has_counters:
        pytest.skip(
            f"board {die.board.name}: the die follows no model and keeps no counters;"
            " these test our rules"
        )


@pytest.fixture(autouse=True)
def _the_rule_a_test_needs(request: pytest.FixtureRequest) -> None:
    """A test marked ``needs_model(name)`` skips, saying why, unless the die
    it rolls (its ``board`` parameter's, else the session's) follows ``name``."""
    mark = request.node.get_closest_marker(MODEL_MARK)
    if mark is None:
        return
    want: str = mark.args[0]
    callspec = getattr(request.node, "callspec", None)
    board = callspec.params.get("board") if callspec is not None else None
    die = request.getfixturevalue("die_factory")(board=board)
    got = model_of(die).name
    if got != want:
        pytest.skip(
            f"a test of the {want} rule; board {die.board.name}'s die follows the {got} rule"
        )
