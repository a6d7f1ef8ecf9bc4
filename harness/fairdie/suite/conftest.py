"""Fixtures of the die suite (the plugin provides the dice)."""

from __future__ import annotations

import pytest

from fairdie.board import Board


@pytest.fixture
def needs_the_table(fairdie_board: Board) -> None:
    """Skip, saying why, on a die that keeps no per-face counters: the tests
    that use it are of our firmware's rule and table."""
    if fairdie_board.die is None or fairdie_board.die.counters is None:
        pytest.skip(f"board {fairdie_board.name}: the die keeps no counters; these test our table")
