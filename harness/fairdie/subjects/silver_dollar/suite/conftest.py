"""The game suite's hooks: one usage error for a board the game cannot run
on, and the ``slow`` tier left to a run that selects it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

SLOW = "slow"
_HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The suite on a board that is no game stops once collection ends, in one
    line; its slow sweeps skip unless ``-m`` selects them (``-m slow``)."""
    from fairdie.plugin import option_value

    mine = [i for i in items if i.path.parent == _HERE]
    name = option_value(config, "fairdie_board")
    if mine and name is not None:
        from fairdie.board import load_board
        from fairdie.errors import FairdieError
        from fairdie.subjects.silver_dollar._game import is_game_board

        try:
            board = load_board(name)
        except FairdieError as e:
            pytest.exit(f"fairdie: {e}", returncode=pytest.ExitCode.USAGE_ERROR)
        if not is_game_board(board):
            pytest.exit(
                f"fairdie: the game suite needs a Silver Dollar Game board: board {board.name}"
                " has no display 'strip' of the LEDs c12..c1 and buttons 1..5 and go",
                returncode=pytest.ExitCode.USAGE_ERROR,
            )
    if SLOW in (config.option.markexpr or "") and not _deselects_slow(config.option.markexpr):
        return
    skip = pytest.mark.skip(reason="an exhaustive sweep: run it with -m slow")
    for item in mine:
        if item.get_closest_marker(SLOW) is not None:
            item.add_marker(skip)


def _deselects_slow(markexpr: str) -> bool:
    from _pytest.mark.expression import Expression

    try:
        return not Expression.compile(markexpr).evaluate(_marked)
    except Exception:  # pytest reports a bad expression itself
        return True


@pytest.fixture
def measured(request: pytest.FixtureRequest) -> Callable[[str, object], None]:
    """``measured(name, value)``: a number the test measured, kept as a
    property of its report (the JUnit XML's, under any junit_family)."""

    def keep(name: str, value: object) -> None:
        request.node.user_properties.append((name, str(value)))

    return keep


def _marked(name: str, /, **kwargs: object) -> bool:
    """An item marked slow and sim, as ``-m`` sees it."""
    return name in (SLOW, "sim") and not kwargs
