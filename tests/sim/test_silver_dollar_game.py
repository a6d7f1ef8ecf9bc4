"""The Silver Dollar Game as a device (:class:`Game`): the position read off
the strip and checked for ghosts, starts, moves made through the buttons,
replies read off the strip, and the tunes read as notes. Whether the
device's replies are winning ones, by the solver, is the game suite's to
check (test_device_play: a sample of 40 placed positions)."""

from __future__ import annotations

import pytest

from fairdie.device import Setup
from fairdie.errors import FairdieError
from fairdie.subjects.silver_dollar import Game, GhostError, Note
from fairdie.subjects.silver_dollar._game import note_named
from fairdie.subjects.silver_dollar._solver import (
    Move,
    PositionError,
    apply,
    cells,
    format_position,
    legal_moves,
    parse_position,
    valid_starts,
)
from fairdie.toolchain import build

BOARD = "silver-dollar"


def game(variant: str | None = None, seed: int = 0) -> Game:
    dev = Setup.make(board=BOARD, variant=variant, seed=seed).device()
    assert isinstance(dev, Game)  # the subject's hook claims the board
    return dev


def placed(text: str, chance: int = 0, firmware: str | None = None) -> Game:
    """A test-position build given ``text``, the device to move, powered on."""
    if firmware is None:
        dev = game("test-position")
    else:
        dev = Setup.make(firmware, board=BOARD).device()
        assert isinstance(dev, Game)
    dev.place(parse_position(text), chance)
    dev.power_on()
    return dev


def test_a_start_is_read_off_the_strip_and_is_the_position_the_device_holds() -> None:
    dev = game()
    with pytest.raises(FairdieError, match="dark"):
        dev.position()  # unpowered
    dev.power_on()
    dev.chip.run(seconds=0.1)
    with pytest.raises(FairdieError, match=r"no position: c\d+ lit \(the idle light") as e:
        dev.position()
    assert not isinstance(e.value, GhostError) and dev.ghosts() == frozenset()
    start = dev.start()
    assert start in valid_starts() and cells(start)[0] in (12, 11)
    assert dev.position() == dev.held() == start and dev.ghosts() == frozenset()
    assert dev.strip.name == "strip" and dev.position_address is not None


def test_a_pin_driven_from_outside_lights_ghosts_that_are_named() -> None:
    dev = game()
    start = dev.start()
    # PA3 held high: every LED whose anode is PA3 lights with its cathode (c7, c3, c1)
    dev.chip.drive("PA3", True)
    dev.chip.run(seconds=0.02)
    ghosts = dev.ghosts()
    assert ghosts and ghosts <= {"c7", "c3", "c1"} and not ghosts & {f"c{c}" for c in cells(start)}
    with pytest.raises(GhostError, match="lit beyond the position") as e:
        dev.position()
    assert all(name in str(e.value) for name in ghosts)
    dev.chip.drive("PA3", None)
    dev.chip.run(seconds=0.02)
    assert dev.ghosts() == frozenset() and dev.position() == start


def test_a_wrong_led_table_is_a_ghost_though_the_lit_cells_are_a_position() -> None:
    # cells 4 and 3 swapped in the LED table: 12,9,6,4,1 shows as 12,9,6,3,1
    mutant = build("sdg_t84a", variant="mutant-led-table", defines={"SDG_TEST_POSITION": 1})
    dev = placed("12,9,6,4,1", firmware=str(mutant.elf))
    with pytest.raises(GhostError, match=r"c[34] lit beyond the position .*; c[34] dark\)") as e:
        dev.wait_reply(parse_position("12,9,6,4,1"))
    held = dev.held()
    assert held is not None and f"the device holds {format_position(held)}" in str(e.value)
    assert dev.ghosts() in ({"c3"}, {"c4"})
    # the lit set alone is a position (its mirror in cells 3 and 4): only the held one tells
    assert dev.read() == format_position(held ^ 0b1100)
    # the good build shows what it holds
    dev = placed("12,9,6,4,1")
    reply = dev.wait_reply(parse_position("12,9,6,4,1"))
    assert reply is not None and dev.ghosts() == frozenset()


def test_every_start_is_valid_and_moves_get_replies() -> None:
    dev = game(seed=3)
    start = dev.start()
    assert start in valid_starts()
    mine = legal_moves(start)[-1]  # the longest move of the last dollar
    mark = dev.chip.trace.mark()
    dev.move(mine)
    after = apply(start, mine)
    reply = dev.wait_reply(after)
    assert reply is not None and reply in legal_moves(after)
    assert dev.position() == apply(after, reply)
    clicks = [n for n in dev.notes(mark) if n.name == "B5"]
    assert len(clicks) == mine.steps  # one click per cell
    with pytest.raises(PositionError, match="not legal"):
        dev.move(Move(12, 1))


def test_place_refuses_what_the_build_cannot_take() -> None:
    dev = game("test-position")
    with pytest.raises(PositionError, match="the end"):
        dev.place(parse_position("5,4,3,2,1"))
    with pytest.raises(PositionError, match="5 dollars"):
        dev.place(0b111)
    with pytest.raises(FairdieError, match="chance"):
        dev.place(parse_position("12,9,6,3,1"), 2**32)
    dev.power_on()
    with pytest.raises(FairdieError, match="before power-on"):
        dev.place(parse_position("12,9,6,3,1"))


def _edges_are_the_pin_changes(dev: Game) -> None:
    """The piezo's (PA5) edges as notes read them off the packed trace, where
    the strip's refresh on port A fills it: those its pin changes give."""
    trace = dev.chip.trace
    for since in (0, len(trace) // 2):
        changes = [(c.cycle, c.high(5)) for c in trace.pin_changes("A", since)]
        for level in (None, False, True):
            edges, high = [], level
            for cycle, now in changes:
                if high is not None and now != high:
                    edges.append(cycle)
                high = now
            assert trace.pin_edges("A", 5, since, level=level) == (edges, high)
    assert len(trace.pin_edges("A", 5)[0]) > 1000  # the tune's, and none of the strip's
    assert trace.pin_edges("B", 2)[0] == []  # GO's pin, never pressed: no edge


def test_a5_reads_as_880_hz_and_the_tunes_as_note_lists() -> None:
    # the device's only move, 6->5, is its last: it wins
    dev = placed("6,4,3,2,1")
    assert dev.wait_reply(parse_position("6,4,3,2,1")) == Move(6, 5)
    dev.chip.run(seconds=1.1)
    tune = dev.notes()
    assert [n.name for n in tune] == ["A5", "F5", "D5", "C5"]
    _edges_are_the_pin_changes(dev)
    assert [n.seconds for n in tune] == pytest.approx([0.2, 0.2, 0.2, 0.4], abs=0.005)
    a5 = tune[0]
    step = 8e6 / 128 / 71 - 8e6 / 128 / 72  # one step of OCR1A at A5
    assert isinstance(a5, Note) and abs(a5.hz - 880) < step
    # the device's only move leaves the human the last one: the human wins
    dev = placed("6,5,3,2,1")
    assert dev.wait_reply(parse_position("6,5,3,2,1")) == Move(5, 4)
    mark = dev.chip.trace.mark()
    dev.move(Move(6, 5))
    assert dev.wait_reply(parse_position("5,4,3,2,1")) is None
    dev.chip.run(seconds=0.8)
    assert [n.name for n in dev.notes(mark)] == ["B5", "C5", "E5", "G5", "A5", "B5"]


def test_a_tone_off_the_octave_has_no_name() -> None:
    assert note_named(880.3, 8_000_000) == "A5"
    assert note_named(880 + 13, 8_000_000) == ""  # more than a timer step off
    assert note_named(440.0, 8_000_000) == "" and note_named(525.2, 8_000_000) == "C5"
