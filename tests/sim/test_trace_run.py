"""``fairdie trace``: any firmware, run as ``fairdie run`` runs it, written as
a VCD that names the board's LEDs (``led.NAME``) and buttons (``btn.NAME``)
and the sleep mode; and ``fairdie run`` naming what the engine does not
model. The VCD is read back with pyvcd's tokenizer, scopes and all."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from simsupport import run
from vcd.reader import TokenKind, tokenize

from fairdie.toolchain import build, firmware_dir

pytestmark = pytest.mark.sim

TESTS = firmware_dir() / "tests"
BUTTON_BOARD = str(TESTS / "button_die" / "board.toml")
LIGHTS_BOARD = str(TESTS / "lightsout" / "board.toml")
Wave = list[tuple[int, str]]


def read_scoped(path: Path) -> dict[str, Wave]:
    """Each variable's wave by its scoped name (``led.c``, ``chip.PB0``)."""
    scope: list[str] = []
    ids: dict[str, str] = {}
    waves: dict[str, Wave] = {}
    t = 0
    with path.open("rb") as f:
        for tok in tokenize(f):
            if tok.kind is TokenKind.SCOPE:
                scope.append(tok.scope.ident)
            elif tok.kind is TokenKind.UPSCOPE:
                scope.pop()
            elif tok.kind is TokenKind.VAR:
                name = ".".join([*scope, tok.var.reference])
                ids[tok.var.id_code] = name
                waves[name] = []
            elif tok.kind is TokenKind.CHANGE_TIME:
                t = tok.time_change
            elif tok.kind is TokenKind.CHANGE_SCALAR:
                waves[ids[tok.scalar_change.id_code]].append((t, tok.scalar_change.value))
            elif tok.kind is TokenKind.CHANGE_STRING:
                waves[ids[tok.string_change.id_code]].append((t, tok.string_change.value))
    return waves


def values(wave: Wave) -> list[str]:
    return [v for _, v in wave]


def test_a_button_die_press_names_its_leds_and_its_button(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    scenario = tmp_path / "press.toml"
    scenario.write_text(
        '[scenario]\nfirmware = "tests/button_die"\n'
        f'board = "{BUTTON_BOARD}"\n'
        '[[step]]\nwait = "50ms"\n[[step]]\npress = "roll"\nhold = "100ms"\n'
        '[[step]]\nwait = "100ms"\nexpect = { display = { face = "5" } }\n'
    )
    vcd = tmp_path / "press.vcd"
    rc, out, err = run(capsys, "trace", "--scenario", str(scenario), "--vcd", str(vcd), "--json")
    assert rc == 0, err
    r = json.loads(out)
    assert r["passed"] and r["vcd"] == str(vcd) and r["events"]["pin"] > 0
    waves = read_scoped(vcd)
    leds = ["tl", "br", "tr", "bl", "ml", "mr", "c"]
    assert {n for n in waves if n.startswith(("led.", "btn."))} == {
        *(f"led.{n}" for n in leds),
        "btn.roll",
    }
    roll = waves["btn.roll"]  # pressed at 50 ms for 100 ms, bouncing at each edge
    press = next(t for t, v in roll if v == "1")
    assert press == pytest.approx(50e6, rel=0.01)
    assert [v for t, v in roll if t <= press + 99e6][-1] == "1"
    assert values(roll)[0] == values(roll)[-1] == "0"
    # face 5 is lit after the press: tl, br, tr, bl (multiplexed) and c; ml, mr stay dark
    for n in ("tl", "br", "tr", "bl", "c"):
        assert "1" in values(waves[f"led.{n}"]), n
    assert values(waves["led.ml"]) == ["0"] and values(waves["led.mr"]) == ["0"]
    assert values(waves["chip.sleep_mode"])[-1] in ("idle", "awake")


@pytest.mark.parametrize(("idle", "mode"), [(0, "power-down"), (1, "idle")])
def test_the_sleep_mode_is_a_named_signal(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, idle: int, mode: str
) -> None:
    b = build(TESTS / "sleep", defines={"SLEEP_IDLE": idle})
    vcd = tmp_path / "sleep.vcd"
    clock = ["--mcu", b.mcu, "--f-cpu", str(b.f_cpu)]
    rc, out, err = run(capsys, "trace", str(b.elf), *clock, "--vcd", str(vcd), "--for", "5ms")
    assert rc == 0, err
    assert f"wrote {vcd}: " in out and "0 LEDs, 0 buttons" in out
    wave = read_scoped(vcd)["chip.sleep_mode"]
    assert values(wave)[:2] == ["awake", mode]
    if idle:  # the timer wakes it each millisecond; power-down sleeps on
        assert values(wave).count("idle") >= 4 and "awake" in values(wave)[2:]
    else:
        assert values(wave) == ["awake", "power-down"]


def test_lights_out_names_its_five_shared_pins_as_leds_and_buttons(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    vcd = tmp_path / "lo.vcd"
    rc, out, err = run(
        capsys, "trace", "tests/lightsout", "--board", LIGHTS_BOARD, "--vcd", str(vcd),
        "--for", "20ms",
    )  # fmt: skip
    assert rc == 0, err
    assert "warning: attiny85: firmware uses PRR (power reduction)" in out
    waves = read_scoped(vcd)
    assert all(f"led.l{n}" in waves and f"btn.b{n}" in waves for n in range(5))
    assert values(waves["led.l1"])[-1] == "1" and values(waves["led.l0"])[-1] == "0"
    assert values(waves["btn.b0"]) == ["0"]  # never pressed


def test_a_press_vcd_names_the_dies_leds_beside_its_pins_and_the_sleep_mode(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """``fairdie press --vcd``: each LED under the board's name, lit exactly
    while its anode pin is high (its cathode is GND), the raw pins beside them,
    and the sleep mode as text."""
    from fairdie.board import load_board

    vcd = tmp_path / "press.vcd"
    rc, _, err = run(capsys, "press", "--vcd", str(vcd), "--seed", "11", "--count", "3")
    assert rc == 0, err
    waves = read_scoped(vcd)
    board = load_board("die-direct")
    assert {n for n in waves if n.startswith("led.")} == {f"led.{x.name}" for x in board.leds}
    assert {f"chip.{p}" for p in ("PB0", "PB1", "PB2", "PB3")} <= set(waves)
    for led in board.leds:
        assert led.cathode == "GND"
        pin = [(t, "1" if v == "1" else "0") for t, v in waves[f"chip.{led.anode}"]]
        lit = waves[f"led.{led.name}"]
        assert lit == [x for n, x in enumerate(pin) if n == 0 or x[1] != pin[n - 1][1]], led.name
    assert any("1" in values(waves[f"led.{x.name}"]) for x in board.leds)
    modes = values(waves["chip.sleep_mode"])
    assert "power-down" in modes and "awake" in modes


def test_a_speaker_is_named_beside_its_pin(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    board = TESTS / "buzzer" / "board.toml"
    vcd = tmp_path / "bz.vcd"
    rc, _, err = run(
        capsys, "trace", "tests/buzzer", "--board", str(board), "--vcd", str(vcd), "--for", "5ms"
    )
    assert rc == 0, err
    waves = read_scoped(vcd)
    assert waves["spk.speaker"] == waves["chip.PB3"]  # the board's [speaker] pin
    assert values(waves["spk.speaker"]).count("1") >= 4
    assert values(waves["chip.sleep_mode"])[:2] == ["awake", "idle"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--vcd", "{tmp}/fw.hex"], "holds a file fairdie did not write"),
        (["--vcd", "{tmp}"], "is a directory"),
        (["--vcd", "{tmp}/no/such.vcd"], "no such directory"),
        ([], "the following arguments are required: --vcd"),
        (["--vcd", "{tmp}/a.vcd", "--until", "nothing"], "expected an event"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, argv: list[str], message: str
) -> None:
    (tmp_path / "fw.hex").write_text(":00000001FF\n")
    args = [a.format(tmp=tmp_path) for a in argv]
    rc, out, err = run(capsys, "trace", "tests/sleep", *args)
    assert rc == 2 and out == "" and err.count("\n") == 1 and message in err, err
    assert (tmp_path / "fw.hex").read_text() == ":00000001FF\n"


def test_an_old_vcd_is_overwritten(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    vcd = tmp_path / "a.vcd"
    assert run(capsys, "trace", "tests/sleep", "--vcd", str(vcd), "--for", "1ms")[0] == 0
    assert run(capsys, "trace", "tests/sleep", "--vcd", str(vcd), "--for", "2ms")[0] == 0
    assert read_scoped(vcd)  # a VCD, rewritten


def test_run_names_what_the_engine_does_not_model(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run(capsys, "run", "tests/unmodelled", "--for", "1ms", "--json")
    assert rc == 0, err
    r = json.loads(out)
    assert [u["name"] for u in r["unmodelled"]] == ["PRR", "CLKPR"]
    assert r["unmodelled"][1]["effect"] == "the clock stays F_CPU"
    rc, out, _ = run(capsys, "run", "tests/unmodelled", "--for", "1ms")
    assert (
        "warning: attiny13a: firmware uses CLKPR (clock prescaler), which the engine does not"
        " model: the clock stays F_CPU" in out.splitlines()
    )
