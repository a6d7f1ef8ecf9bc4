"""The seed's rule at its boundaries, on a seed build: the rebase at 255.

The seed's rule (fairdie.subjects.die._rule; rule.c) keeps six byte counters.
When the chosen face's counter is at 255 it rebases first: with the least
counter ``m`` above 0 it subtracts ``m`` from every counter; with ``m`` 0 it
closes the highest value ``g`` in 0..254 that no counter holds, taking one
from every counter above ``g``. Either way no counter wraps and the faces keep
their order, ties included. A chosen counter at 254 needs no rebase.

Each case below gives a table, a code and the table after, worked out by hand
from those words (not from the model), at a least count of 0, 1 and 2 and
with counters at 254 and 255; the chip and the model must both give it. A
Hypothesis property then draws tables from the boundary values.

These run on the shipped die-seed board (the seed build, die_t13a variant
``seed``), on a board that is die-seed under another name with the firmware
given for it, and on the session's board when it is a die of its own that
follows the seed rule (``[die] counters``).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fairdie.noise import Codes
from fairdie.plugin import examples
from fairdie.subjects.die.suite._support import model_of, session_boards

if TYPE_CHECKING:
    from fairdie.subjects.die import Die

pytestmark = pytest.mark.sim

SEED_BOARD = "die-seed"
OURS = ("die-direct", "die-charlieplex", SEED_BOARD)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """``seed_board``: die-seed, and the session's board when it is no die of ours."""
    if "seed_board" not in metafunc.fixturenames:
        return
    from fairdie.plugin import option_value
    from fairdie.subjects.die._board import same_die

    load_board = session_boards(metafunc.config)
    boards, ids = [SEED_BOARD], [SEED_BOARD]
    session = option_value(metafunc.config, "fairdie_board")
    if session is not None:
        given = load_board(session)
        if not any(same_die(load_board(b), given) for b in OURS):
            boards.append(session)
            ids.append(given.name)
    metafunc.parametrize("seed_board", boards, ids=ids)


@pytest.fixture
def seed_die(die_factory: Callable[..., Die], seed_board: str) -> Die:
    die = die_factory(board=seed_board)  # noise: each test sets its codes
    if model_of(die).name != "seed":
        pytest.skip(f"board {die.board.name}'s die follows the {model_of(die).name} rule")
    return die


#: (table before, code, face shown, table after), faces 1..6. The candidates
#: are the 1st, 3rd and 5th faces by (count, face number); code % 3 picks one.
CASES = {
    # a least count of 0: close the highest unheld value
    "least 0, gap at 254": ((0, 10, 20, 30, 255, 255), 2, 5, (0, 10, 20, 30, 255, 254)),
    "least 0, 253 and 254 held": (
        (0, 253, 254, 254, 255, 255),
        5,
        5,
        (0, 252, 253, 253, 255, 254),
    ),
    "least 0, 253 held, 254 free": (
        (0, 253, 20, 30, 255, 255),
        2,
        5,
        (0, 253, 20, 30, 255, 254),
    ),
    "least 0, five at 255": ((0, 255, 255, 255, 255, 255), 1, 3, (0, 254, 255, 254, 254, 254)),
    "least 0 twice, ties kept": ((255, 0, 255, 0, 7, 255), 2, 3, (254, 0, 255, 0, 7, 254)),
    # a least count above 0: subtract it
    "least 1": ((1, 10, 20, 30, 255, 255), 2, 5, (0, 9, 19, 29, 255, 254)),
    "least 2": ((2, 10, 20, 30, 255, 255), 1022, 5, (0, 8, 18, 28, 254, 253)),
    "least 2, ties": ((255, 2, 255, 2, 254, 255), 8, 3, (253, 0, 254, 0, 252, 253)),
    "all at 255": ((255,) * 6, 0, 1, (1, 0, 0, 0, 0, 0)),
    # counters at 254 and 255 without a rebase
    "chosen at 254": ((0, 10, 20, 30, 254, 255), 2, 5, (0, 10, 20, 30, 255, 255)),
    "others at 255": ((3, 255, 4, 255, 5, 255), 3, 1, (4, 255, 4, 255, 5, 255)),
    "chosen at 253, others 254": ((253, 254, 254, 254, 254, 254), 0, 1, (254,) * 6),
}


@pytest.mark.parametrize("case", CASES)
def test_the_rebase_at_its_boundaries(seed_die: Die, case: str) -> None:
    before, code, face, after = CASES[case]
    assert model_of(seed_die).press(model_of(seed_die).with_table(before), (code,))[0] == face
    seed_die.set_counts(before)
    seed_die.set_noise(Codes([code]))
    p = seed_die.roll(0.2)
    assert (p.face, seed_die.counts) == (face, after), (
        f"{case}: from {before} with code {code}: the chip showed {p.face}, kept"
        f" {seed_die.counts}; the rule says {face}, {after}"
    )
    assert p.display == str(face)


def test_the_cases_are_the_models(seed_die: Die) -> None:
    """The model agrees with the hand-worked cases (so a wrong case cannot
    pass the chip and fail the model, or the other way round)."""
    model = model_of(seed_die)
    for case, (before, code, face, after) in CASES.items():
        got, image = model.press(model.with_table(before), (code,))
        assert (got, model.table(image)) == (face, after), case


EDGES = (0, 1, 2, 253, 254, 255)


# each example loads its own counters and noise into the one die
@settings(
    max_examples=examples(120),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    table=st.tuples(*[st.sampled_from(EDGES)] * 6),
    code=st.integers(0, 1023),
)
def test_any_table_of_boundary_counts_keeps_the_order_and_never_wraps(
    seed_die: Die, table: tuple[int, ...], code: int
) -> None:
    model = model_of(seed_die)
    face, image = model.press(model.with_table(table), (code,))
    seed_die.set_counts(table)
    seed_die.set_noise(Codes([code]))
    p = seed_die.roll(0.2)
    after = seed_die.counts
    assert (p.face, after) == (face, model.table(image))
    assert face is not None
    i = face - 1
    shown = [c - (k == i) for k, c in enumerate(after)]  # before the chosen face went up
    assert shown[i] < 255, f"{table} -> {after}: the chosen counter had no room"
    for a, b in itertools.combinations(range(6), 2):
        was = (table[a] > table[b]) - (table[a] < table[b])
        assert was == (shown[a] > shown[b]) - (shown[a] < shown[b]), f"{table} -> {after}"
    if table[i] < 255:
        assert shown == list(table), f"no rebase due, yet {table} -> {after}"
