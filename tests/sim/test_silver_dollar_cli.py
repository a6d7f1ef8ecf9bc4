"""``fairdie silver-dollar``: starts and replies read off the emulated
firmware's LEDs and judged by the solver, bad input refused in one line,
and the game played on a pseudo-terminal."""

from __future__ import annotations

import io
import json
import os
import re
import termios
from collections.abc import Callable, Iterator

import pytest
from simsupport import Terminal, run, terminals

from fairdie.device import Setup
from fairdie.subjects.silver_dollar import Game
from fairdie.subjects.silver_dollar._play import DARK, LIT, PlayScreen, run_play
from fairdie.subjects.silver_dollar._solver import (
    Move,
    apply,
    cells,
    legal_moves,
    parse_position,
    valid_starts,
    winning_moves,
)
from fairdie.toolchain import build

CMD = "silver-dollar"


def json_run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, object]]:
    rc, out, err = run(capsys, CMD, *argv, "--json")
    assert "Traceback" not in err
    return rc, json.loads(out)


# ---- starts -----------------------------------------------------------------------


def test_starts_are_read_off_the_leds_and_differ_by_when_go_is_pressed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    rc, out = json_run(capsys, "starts", "--games", "12", "--seed", "4")
    valid = set(valid_starts())
    assert rc == 0 and out["games"] == 12 and out["valid_starts"] == len(valid) == 444
    starts = out["starts"]
    assert isinstance(starts, list) and len(starts) == 12
    assert all(parse_position(s) in valid for s in starts)
    assert out["distinct"] == len(set(starts)) >= 10 and out["invalid"] == []
    # game i waits the seed's i-th wait on a fresh device: the first 4 games
    # show that the seed, and only it, fixes the starts
    assert json_run(capsys, "starts", "--games", "4", "--seed", "4")[1]["starts"] == starts[:4]
    assert json_run(capsys, "starts", "--games", "4", "--seed", "5")[1]["starts"] != starts[:4]
    rc, text, _ = run(capsys, CMD, "starts", "--games", "2")
    assert rc == 0 and "game 2: " in text and "the solver counts 444 valid starts" in text


def test_starts_of_a_build_without_the_leftmost_cell_rule_fail(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # the command's verdict on a build with invalid starts: 8 games, of which
    # seed 0's game 6 starts with no dollar on cell 12 or 11 (of 20 games, 5
    # did); the suite and verify judge the mutant's starts over more games
    mutant = build("sdg_t84a", variant="mutant-start").hex
    rc, out, err = run(capsys, CMD, "starts", "--games", "8", "--firmware", str(mutant))
    assert rc == 1 and "game 8: " in out
    (line,) = err.splitlines()
    assert re.fullmatch(r"fairdie: \d+ of the starts are not valid starts: .*", line)


# ---- reply ------------------------------------------------------------------------


def test_the_device_replies_with_each_winning_move_about_equally(
    capsys: pytest.CaptureFixture[str],
) -> None:
    pos = parse_position("12,9,6,4,1")
    wins = winning_moves(pos)
    assert len(wins) == 2
    rc, out = json_run(capsys, "reply", "--position", "12,9,6,4,1", "--trials", "30")
    assert rc == 0 and out["all_winning"] is True
    replies = out["replies"]
    assert isinstance(replies, list) and len(replies) == 30
    for r in replies:  # each after-position, read from the LEDs, is the reply's
        src, dst = map(int, r["move"].split("->"))
        assert r["after"] == ",".join(
            str(c) for c in sorted(map(int, r["after"].split(",")), reverse=True)
        )
        assert parse_position(r["after"]) == apply(pos, Move(src, dst))
    assert set(out["tally"]) == {str(m) for m in wins}  # type: ignore[arg-type]
    assert out["uniform"]["uniform"] is True  # type: ignore[index]


def test_a_device_that_always_picks_the_first_winning_move_is_not_uniform(
    capsys: pytest.CaptureFixture[str],
) -> None:
    mutant = build("sdg_t84a", variant="mutant-first-win", defines={"SDG_TEST_POSITION": 1})
    rc, out = json_run(
        capsys, "reply", "--position", "12,9,6,4,1", "--trials", "20", "--firmware", str(mutant.elf)
    )
    assert rc == 0 and out["all_winning"] is True and len(out["tally"]) == 1  # type: ignore[arg-type]
    assert out["uniform"]["uniform"] is False  # type: ignore[index]


def test_from_a_lost_position_any_legal_reply_is_reported(
    capsys: pytest.CaptureFixture[str],
) -> None:
    pos = parse_position("12,9,6,3,1")
    assert winning_moves(pos) == []
    rc, text, _ = run(capsys, CMD, "reply", "--position", "12,9,6,3,1", "--trials", "3")
    assert rc == 0 and "trial 3: 12,9,6,3,1 -> " in text
    assert f"no winning reply from 12,9,6,3,1: any of {len(legal_moves(pos))} is fair" in text


# ---- bad input --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["reply", "--position", "12,9,6,3"], "a position has 5 dollars, not 4"),
        (["reply", "--position", "13,9,6,3,1"], "cell 13 is off the strip"),
        (["reply", "--position", "12,12,6,3,1"], "two dollars on one cell"),
        (["reply", "--position", "a,b"], "not five cell numbers"),
        (["reply", "--position", "5,4,3,2,1"], "5,4,3,2,1 is the end: the device has no move"),
        (["reply", "--position", "12,9,6,3,1", "--trials", "0"], "0 is out of range"),
        (["reply", "--position", "12,9,6,3,1", "--trials", "100001"], "out of range"),
        (["reply", "--trials", "3"], "required: --position"),
        (["starts", "--games", "0"], "0 is out of range"),
        (["starts", "--seed", "-1"], "out of range"),
        (["starts", "--board", "nosuch"], "no such board file"),
        (["starts", "--board", "die-direct"], "board die-direct is no Silver Dollar Game's"),
        (["starts", "--firmware", "/nonexistent/game.hex"], "no such firmware file"),
        (["starts", "--variant", "game"], "unrecognized arguments"),
        (["flip"], "invalid choice"),
        ([], "required: COMMAND"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    rc, out, err = run(capsys, CMD, *argv)
    assert rc == 2 and out == ""
    (line,) = err.splitlines()
    assert line.startswith("fairdie") and message in line, line


def test_reply_needs_a_build_that_takes_a_placed_position(
    capsys: pytest.CaptureFixture[str],
) -> None:
    shipped = build("sdg_t84a").hex
    argv = ["reply", "--position", "12,9,6,3,1", "--firmware", str(shipped)]
    rc, _, err = run(capsys, CMD, *argv)
    assert rc == 2
    assert err.endswith("is sdg.hex a test-position build (SDG_TEST_POSITION=1)?\n")
    assert len(err.splitlines()) == 1


# ---- play -------------------------------------------------------------------------


def _strip(screen: str) -> set[int]:
    """The cells drawn lit in a frame."""
    rows = screen.split("\n")
    i = next(i for i, row in enumerate(rows) if row.split() == [str(c) for c in range(12, 0, -1)])
    cells = re.findall(re.escape(LIT) + "|" + re.escape(DARK), rows[i + 1])
    assert len(cells) == 12, rows[i + 1]
    return {12 - k for k, c in enumerate(cells) if c == LIT}


def _position(screen: str) -> tuple[int, ...] | None:
    m = re.search(r"^position ([\d,]+)$", screen, re.M)
    return tuple(int(c) for c in m.group(1).split(",")) if m else None


def test_the_screen_names_the_devices_tune() -> None:
    dev = Setup.make(board="silver-dollar", variant="test-position").device()
    assert isinstance(dev, Game)
    dev.place(parse_position("6,4,3,2,1"))  # the device's only move is its last
    dev.power_on()
    screen = PlayScreen(dev, io.StringIO(), title="test")
    for _ in range(60):  # in steps, as the terminal's loop runs it
        dev.chip.run(seconds=0.02)
        screen.listen()
    frame = "\n".join(screen.frame())
    assert "heard: A5 F5 D5 C5" in frame and "position 5,4,3,2,1" in frame
    assert _strip(frame) == {5, 4, 3, 2, 1}
    assert len(dev.chip.trace) == 0  # the screen keeps the speaker's edges, not the trace


@pytest.fixture
def terminal() -> Iterator[Callable[..., Terminal]]:
    with terminals(CMD, "play") as make:
        yield make


def test_play_on_a_terminal_steps_a_dollar_gets_a_reply_and_quits(
    terminal: Callable[..., Terminal],
) -> None:
    t = terminal()
    s = t.wait_for(lambda s: "the idle light" in s)
    assert len(_strip(s)) == 1  # the idle light, drawn
    assert termios.tcgetattr(t.sub)[3] & (termios.ECHO | termios.ICANON) == 0
    t.send(b" ")  # GO: a game
    s = t.wait_for(lambda s: _position(s) is not None)
    start = _position(s)
    assert start is not None and parse_position(",".join(map(str, start))) in valid_starts()
    assert _strip(s) == set(start)
    pos = parse_position(",".join(map(str, start)))
    k, move = next(
        (k, m) for k, src in enumerate(start, 1) for m in legal_moves(pos) if m.src == src
    )
    t.send(str(k).encode())  # one step of the k-th dollar: a click
    stepped = apply(pos, Move(move.src, move.src - 1))
    s = t.wait_for(lambda s: _strip(s) == set(cells(stepped)) and "heard: B5" in s)
    t.send(b" ")  # GO: the device replies within 250 ms
    s = t.wait_for(lambda s: (p := _position(s)) is not None and p != cells(stepped))
    after = _position(s)
    assert after is not None
    replied = parse_position(",".join(map(str, after)))
    assert any(apply(stepped, m) == replied for m in legal_moves(stepped))
    t.send(b"q")
    assert t.proc.wait(timeout=30) == 0
    assert termios.tcgetattr(t.sub) == t.mode
    t.read(0.2)
    assert t.seen.endswith(b"\x1b[?25h") and b"Traceback" not in t.seen


def test_ctrl_c_quits_play_with_130_and_restores_the_terminal() -> None:
    # in process, on a pseudo-terminal: the play loop's raw mode makes Ctrl-C
    # a key (the terminal's signals off); the entry point on a terminal, its
    # exit status and the mode restored on the way out: the test above
    main_fd, sub = os.openpty()
    try:
        mode = termios.tcgetattr(sub)
        dev = Setup.make(board="silver-dollar").device()
        assert isinstance(dev, Game)
        out = io.StringIO()
        screen = PlayScreen(dev, out, title="test")
        ticks: list[float] = []

        def clock() -> float:  # emulated time, 10 ms a look; Ctrl-C typed at once
            if not ticks:
                os.write(main_fd, b"\x03")  # the terminal is raw by the first look
            ticks.append(len(ticks) * 0.01)
            assert ticks[-1] < 1, "Ctrl-C did not arrive as a key"
            return ticks[-1]

        assert run_play(screen, fd_in=sub, clock=clock) == 130
        assert termios.tcgetattr(sub) == mode
        assert out.getvalue().endswith("\x1b[?25h")  # the cursor shown again
    finally:
        os.close(main_fd)
        os.close(sub)


def test_play_needs_a_terminal(capsys: pytest.CaptureFixture[str]) -> None:
    # in process, its streams captured (no terminal); the entry point on a
    # terminal, its exit codes and the terminal's mode are the tests' above
    rc, out, err = run(capsys, CMD, "play")
    assert (rc, out) == (2, "")
    assert err == (
        "fairdie: error: silver-dollar play needs a terminal"
        " (use fairdie silver-dollar starts or reply)\n"
    )
