"""``fairdie roll``: key repeats grouped into holds (synthetic times), the
screen after a press and a clear, and the command on a pseudo-terminal."""

from __future__ import annotations

import io
import re
import signal
import termios
import time
from collections.abc import Callable, Iterator

import pytest
from simsupport import Terminal, run, terminals

from fairdie.subjects.die._roll import CLEAR_S, REPEAT_GAP_S, TAP_S, KeyHolds, RollScreen

RATE = 1 / 30  # a terminal's key repeat interval (30 a second)
DELAY = 0.5  # its repeat delay


def _held_key(start: float, seconds: float) -> list[float]:
    """The times a terminal sends a key held from ``start`` for ``seconds``."""
    times = [start]
    t = start + DELAY
    while t < start + seconds:
        times.append(t)
        t += RATE
    return times


def _holds(times: list[float]) -> list[float]:
    """Feed key times as the command does (expiring while it waits) and end."""
    holds = KeyHolds()
    out = [h for t in times for h in (holds.expire(t), holds.key(t)) if h is not None]
    done = holds.expire(times[-1] + REPEAT_GAP_S)
    return [*out, done] if done is not None else out


# ---- the grouping of key repeats ---------------------------------------------


def test_a_key_that_does_not_repeat_is_a_tap() -> None:
    holds = KeyHolds()
    assert holds.key(5.0) is None and holds.holding
    assert holds.expire(5.0 + REPEAT_GAP_S - 0.01) is None  # it may still repeat
    assert holds.deadline() == pytest.approx(5.0 + REPEAT_GAP_S)
    assert holds.expire(5.0 + REPEAT_GAP_S) == TAP_S
    assert not holds.holding and holds.expire(100.0) is None


def test_repeats_are_one_hold_from_the_first_key_to_the_last_repeat_and_its_interval() -> None:
    times = _held_key(0.0, 1.0)
    assert len(times) > 10
    (hold,) = _holds(times)
    assert hold == pytest.approx(times[-1] + RATE)
    assert 1.0 <= hold < 1.0 + 2 * RATE


def test_keys_further_apart_than_the_gap_are_separate_presses() -> None:
    first = _held_key(0.0, 2.0)
    second = [first[-1] + REPEAT_GAP_S + 0.05]  # a tap soon after letting go
    third = _held_key(second[0] + 1.0, 0.8)
    holds = _holds(first + second + third)
    assert holds == pytest.approx([first[-1] + RATE, TAP_S, third[-1] - third[0] + RATE])
    # a key after the gap ends the hold even if nothing expired it in between
    h = KeyHolds()
    for t in first:
        assert h.key(t) is None
    assert h.key(first[-1] + 5.0) == pytest.approx(first[-1] + RATE)


def test_a_hold_past_10_s_is_measured_as_such() -> None:
    times = _held_key(100.0, 10.5)
    holds = KeyHolds()
    for t in times:
        assert holds.key(t) is None  # one hold all the way
        assert holds.held_s() <= max(TAP_S, t - 100.0 + RATE + 1e-9)
    assert holds.held_s() > CLEAR_S
    assert holds.expire(times[-1] + REPEAT_GAP_S) == pytest.approx(10.5, abs=RATE)


def test_a_key_then_one_repeat_and_a_quit_in_the_middle_of_a_hold() -> None:
    holds = KeyHolds()
    holds.key(0.0)
    holds.key(DELAY)  # one repeat: the interval is not known yet
    assert holds.held_s() == pytest.approx(DELAY)
    assert holds.end() == pytest.approx(DELAY)  # q ends the hold in progress
    assert holds.end() is None
    with pytest.raises(ValueError):
        KeyHolds(gap_s=0)


# ---- the screen --------------------------------------------------------------


def test_the_screen_shows_faces_as_dice_the_table_and_a_clear() -> None:
    from fairdie.subjects.die import Die, render_face

    die = Die(board="die-direct", variant="direct", seed=7)
    out = io.StringIO()
    screen = RollScreen(die, out, title="fairdie roll: test", width=lambda: 80)
    screen.show()
    assert "presses 0" in out.getvalue() and "\n".join(render_face("off")) in out.getvalue()
    for _ in range(3):
        screen.roll(TAP_S)
    frame = "\n".join(screen.frame(screen.status()))
    shown = [str(p.face) for p in screen.presses]
    dice = [" ".join(lines) for lines in zip(*(render_face(f) for f in shown), strict=True)]
    assert "\n".join(dice).replace(" ", "") in frame.replace(" ", "")
    assert "presses 3" in frame and f"press 3: face {shown[-1]}, held 0.20 s" in frame
    # the fair rule keeps offsets, labelled so; the faces shown are counted beside them
    assert "offset " + " ".join(f"{c:>4}" for c in die.counts) in frame
    assert "\ncount " not in frame
    (shown_row,) = [row for row in frame.split("\n") if row.startswith("shown ")]
    assert sum(int(c) for c in shown_row.split()[1:7]) == 3
    assert sum(die.counts) > 0

    hold = _holds(_held_key(0.0, 10.5))[0]
    press = screen.roll(hold)
    assert press.display == "all" and die.counts == (0, 0, 0, 0, 0, 0)
    screen.show()
    last = out.getvalue().rsplit("\x1b[J", 1)[1]
    rows = last.split("\n")[3:8]  # the row of dice, the last press at the right
    assert [row.rstrip()[-9:] for row in rows] == render_face("all")
    assert "offset    0    0    0    0    0    0" in last
    first = f"face {press.face}, then " if press.face else ""
    assert f"press 4: held {hold:.2f} s: {first}all LEDs lit: the die cleared its table" in last
    assert screen.holding(10.2).endswith("(past 10 s: the die clears its table)")
    assert screen.holding(9.0) == "holding 9.0 s"


# ---- on a terminal -----------------------------------------------------------


@pytest.fixture
def terminal() -> Iterator[Callable[..., Terminal]]:
    with terminals("roll") as make:
        yield make


def _shown(screen: str) -> list[int]:
    """The row of how often each face was shown."""
    m = re.search(r"^shown((?:\s+\d+){6})\s", screen, re.M)
    assert m, screen
    return [int(c) for c in m.group(1).split()]


def test_roll_on_a_terminal_presses_holds_and_quits(terminal: Callable[..., Terminal]) -> None:
    from fairdie.subjects.die import render_face

    t = terminal("--seed", "3")
    t.wait_for(lambda s: "presses 0" in s)
    assert termios.tcgetattr(t.sub)[3] & (termios.ECHO | termios.ICANON) == 0  # keys, no echo

    t.send(b" ")  # a press
    s = t.wait_for(lambda s: "presses 1" in s and "press 1:" in s)
    m = re.search(r"press 1: face (\d), held 0\.20 s", s)
    assert m, s
    assert "\n".join(render_face(m.group(1))) in s  # the face, drawn as a die
    assert sum(_shown(s)) == 1 and _shown(s)[int(m.group(1)) - 1] == 1

    # a key held for about 1 s: the first key, the repeat delay, then repeats
    start = time.monotonic()
    t.send(b" ")
    time.sleep(DELAY)
    while time.monotonic() - start < 1.0:
        t.send(b" ")
        time.sleep(RATE)
    s = t.wait_for(lambda s: "presses 2" in s and "press 2:" in s)
    m = re.search(r"press 2: face (\d), held (\d+\.\d+) s", s)
    assert m, s
    assert 0.95 <= float(m.group(2)) <= 1.4, s  # one press, held about 1 s
    assert sum(_shown(s)) == 2

    t.send(b"\r")  # enter presses too
    t.wait_for(lambda s: "presses 3" in s and "press 3:" in s)
    t.send(b"q")
    assert t.proc.wait(timeout=30) == 0
    assert termios.tcgetattr(t.sub) == t.mode  # the terminal as it was
    t.read(0.2)
    assert t.seen.endswith(b"\x1b[?25h")  # the cursor shown again
    assert b"Traceback" not in t.seen


def test_ctrl_c_quits_and_restores_the_terminal(terminal: Callable[..., Terminal]) -> None:
    t = terminal()
    t.wait_for(lambda s: "presses 0" in s)
    t.send(b"\x03")
    assert t.proc.wait(timeout=30) == 130
    assert termios.tcgetattr(t.sub) == t.mode


def test_sigterm_ends_it_with_one_line_and_restores_the_terminal(
    terminal: Callable[..., Terminal],
) -> None:
    t = terminal()
    t.wait_for(lambda s: "presses 0" in s)
    t.proc.send_signal(signal.SIGTERM)
    assert t.proc.wait(timeout=30) == 143
    assert termios.tcgetattr(t.sub) == t.mode
    t.read(0.2)
    assert t.seen.endswith(b"fairdie: terminated\r\n") and b"Traceback" not in t.seen


def test_roll_needs_a_terminal(capsys: pytest.CaptureFixture[str]) -> None:
    """In this process (the tests above run the command itself): neither
    its input nor its output is a terminal."""
    rc, out, err = run(capsys, "roll")
    assert rc == 2
    assert err == "fairdie: error: roll needs a terminal (use fairdie press)\n"
    assert out == ""
