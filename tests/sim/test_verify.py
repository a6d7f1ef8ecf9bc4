"""``fairdie verify``: the default build passes every check; each broken build
(real firmware, built with a mutation switch of die_t13a) fails on the check
that is about its fault; a maker's own die runs what applies and says what
it skipped; a board that is no die runs the core's checks and lists the die's
as skipped, with the reason; bad input is one line and exit status 2."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from quick_runs import SHARED, run_once
from simsupport import TAB, png_colours, run_on_a_terminal

from fairdie.board import parse_board
from fairdie.cli import main
from fairdie.errors import BoardError
from fairdie.subjects.die.checks._campaigns import STANDARD_NOISES
from fairdie.toolchain import build
from fairdie.verify import FIGURES, all_checks
from fairdie.verify._cli import format_verdict
from fairdie.verify._recorded import RUN_CHECKS

pytestmark = pytest.mark.sim

TESTS = Path(__file__).resolve().parents[2] / "harness" / "fairdie" / "firmware" / "tests"
BUTTON_DIE = TESTS / "button_die"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    rc = main(["verify", *args, "--json"])
    out, err = capsys.readouterr()
    assert err == ""  # no progress bar under --json, nothing else either
    return rc, json.loads(out)


def checks(out: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["name"]: c for c in out["checks"]}


DIRECT = ("--board", "die-direct")  # a file no shipped board builds names its board
NAMES = [c.name for c, _ in all_checks()]
DIE_NAMES = [c.name for c, s in all_checks() if s is not None and s.subject == "die"]
#: the other subjects' checks: skipped on a die's board (each says it is not theirs)
OTHER = {c.name for c, s in all_checks() if s is not None and s.subject != "die"}
RUN_NAMES = [c.name for c in RUN_CHECKS]  # the core's, which the die's replace on a die


def mutant(**defines: int) -> str:
    return str(build("die_t13a", defines=defines).elf)


@pytest.fixture
def quick_tier_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The power-cut check's quick tier through quick_runs.run_once: a build's
    tier that test_faults cuts too (the same target, recipe and seed) is run
    once in this process, and read by both."""
    import fairdie.subjects.die.faults as faults

    monkeypatch.setattr(faults, "run_faults", run_once)


# ---- the default build ------------------------------------------------------------------


@SHARED
@pytest.mark.usefixtures("quick_tier_once")
def test_the_default_build_passes_every_check(tmp_path: Path, capsys) -> None:
    report = tmp_path / "report"
    rc, out = run(capsys, "--board", "die-direct", "--presses", "400", "--report", str(report))
    assert rc == 0, [(c["name"], c["reason"]) for c in out["checks"] if c["status"] != "pass"]
    assert [c["name"] for c in out["checks"]] == NAMES
    assert {c["name"]: c["status"] for c in out["checks"] if c["status"] != "pass"} == {
        "scenarios": "skipped",  # die-direct names none
        **dict.fromkeys(OTHER, "skipped"),
    }
    assert checks(out)["scenarios"]["reason"] == "no scenarios on this board"
    assert out["build"] == "direct" and out["model"] == "fair" and out["built"]
    c = checks(out)
    campaigns = c["fairness"]["details"]["campaigns"]
    assert campaigns.keys() == set(STANDARD_NOISES) >= {"dead", "weak:10", "stuck:1500"}
    # a pin with no noise is flagged at every press, and nothing it shows is guessed
    for noise in ("stuck:1500", "stuck:1000", "rail-low", "rail-high", "dead", "weak:50"):
        assert campaigns[noise]["health_failures"] == campaigns[noise]["presses"], noise
    for noise in ("floating", "uniform", "hum:50"):
        row = campaigns[noise]
        assert row["health_failures"] == 0, noise
        assert row["guess_rate_informed"] <= 0.36 and row["guess_rate_blind"] <= 0.25, noise
    cuts = c["power-cuts"]
    assert cuts["details"]["violations"] == 0
    # the counts by their names: cuts simulated, cycles covered, images booted, torn values
    assert 0 < cuts["details"]["cuts"] < cuts["details"]["cycles_covered"]
    assert "256 at" in cuts["reason"] and "cycles covered" in cuts["reason"]
    assert cuts["details"]["torn_values"].startswith("G1 cuts every write")
    assert c["stored-before-shown"]["details"]["margin_ms"] >= 0
    # the energy estimate: from the states the chip was in, and says what it rests on
    e = out["energy"]
    parts = {p["name"]: p for p in e["parts"]}
    assert parts["sleep: power-down, watchdog on"]["ms"] > 900  # SM bits: power-down
    assert parts["EEPROM programming"]["ms"] == pytest.approx(6 * 3.4, rel=0.01)  # 6 bytes
    # 64..256 conversions of 13 ADC clocks at 150 kHz: some 70 (6 ms) for healthy noise
    assert 5 < parts["ADC on"]["ms"] < 23 and 20 < parts["CPU active"]["ms"] < 40
    # faces 1..6 light 1..6 LEDs: 3.5 on average, lit ~0.976 s of the 1 s press
    assert parts["LEDs (ms summed over LEDs)"]["ms"] == pytest.approx(3.5 * 976, rel=0.01)
    assert e["presses_from_cr2032"] == pytest.approx(225 * 3.6e6 / e["per_press_uc"], rel=1e-3)
    assert {f["name"] for f in e["figures"]} <= set(FIGURES)
    assert all(f["source"] for f in e["figures"])
    # the report: one self-contained page, every plot embedded
    page = (report / "index.html").read_text()
    assert out["report"] == str(report / "index.html")
    assert page.count("src='data:image/png;base64,") == 6
    assert not re.search(r"src=['\"](?!data:)", page)
    # each PNG drawn: its data in their colours
    for png, drawn in (
        ("faces.png", {TAB[0]}),
        ("spread.png", set(TAB)),
        ("guess_rate.png", set(TAB)),
        ("timing.png", {"#0969da", "#bf8700", "#8250df", "#57606a", "#cf222e"}),
        ("energy.png", {"#0969da"}),
        ("battery.png", {"#0969da", "#cf222e"}),
    ):
        assert drawn <= png_colours(report / png), png
    # the human form: a table of every check, then the energy's figures
    text = format_verdict(out)
    for name in NAMES[:-1]:
        if name not in OTHER:
            assert re.search(rf"^{re.escape(name)}\s+pass\s+\S", text, re.M)
    assert "Table 18-1" in text
    assert f"verify passed: 13 passed, 0 failed, {1 + len(OTHER)} skipped" in text
    assert c["brown-out"]["reason"].endswith("burn lfuse 0x6A hfuse 0xFD")
    assert out["fuses"] == "lfuse 0x6A hfuse 0xFD"


def test_a_file_is_identified_as_its_build_and_its_board_chosen(capsys) -> None:
    elf = str(build("die_t13a", variant="charlieplex").elf)
    rc, out = run(capsys, elf, "--only", "faces")
    assert rc == 0
    assert out["board"] == "die-charlieplex" and out["build"] == "charlieplex"
    assert out["model"] == "fair"


# ---- broken builds fail on the right check -----------------------------------------------


def test_a_wrong_led_map_fails_the_faces(capsys) -> None:
    rc, out = run(capsys, mutant(DIE_MUTANT_LED_MAP=1), *DIRECT, "--only", "faces")
    c = checks(out)
    assert rc == 1
    assert c["model"]["status"] == "pass" and out["model"] == "fair"  # it stores right
    assert c["faces"]["status"] == "fail"
    # C and D swapped: faces 4 and 5 are wrong (6 lights B, C and D either way)
    assert c["faces"]["reason"].startswith("face 4 lit ")
    assert c["faces"]["details"]["wrong"] == 2


def test_a_roll_stored_after_the_face_lights_is_caught(capsys) -> None:
    rc, out = run(capsys, mutant(DIE_MUTANT_SHOW_FIRST=1), *DIRECT, "--only", "stored-before-shown")
    c = checks(out)["stored-before-shown"]
    assert rc == 1 and c["status"] == "fail"
    assert c["details"]["margin_ms"] < -15  # six 3.4 ms writes after the face lit
    assert "a power cut in between loses a roll already shown" in c["reason"]


@pytest.mark.parametrize(
    ("ticks", "held"),
    [(150, "held 9.9 s: it was cleared already"), (160, "held 10.05 s: the table was not")],
)
def test_a_clear_at_the_wrong_time_fails(capsys, ticks: int, held: str) -> None:
    rc, out = run(capsys, mutant(DIE_MUTANT_CLEAR_TICKS=ticks), *DIRECT, "--only", "clear-10s")
    c = checks(out)["clear-10s"]
    assert rc == 1 and c["status"] == "fail" and c["reason"].startswith(held)


def test_a_rebase_that_wraps_fails_the_count(capsys) -> None:
    elf = str(build("die_t13a", variant="seed", defines={"DIE_MUTANT_REBASE_WRAP": 1}).elf)
    rc, out = run(capsys, elf, *DIRECT, "--only", "faces,press-counts")
    c = checks(out)
    assert rc == 1 and out["model"] == "seed" and out["build"] is None
    assert c["faces"]["status"] == "pass"
    assert c["press-counts"]["status"] == "fail"
    assert c["press-counts"]["reason"].startswith("from [0, 255, 255, 255, 255, 255] with code 1")


@SHARED
@pytest.mark.usefixtures("quick_tier_once")
def test_the_seeds_storage_fails_the_power_cuts_and_its_rule_the_fairness(capsys) -> None:
    elf = str(build("die_t13a", variant="seed").elf)
    rc, out = run(capsys, elf, *DIRECT, "--only", "power-cuts,fairness", "--presses", "300")
    c = checks(out)
    assert rc == 1 and out["build"] == "seed" and out["model"] == "seed"
    assert c["board-wiring"]["status"] == "pass"  # a direct-drive build on a direct board
    cuts = c["power-cuts"]
    assert cuts["status"] == "fail" and cuts["details"]["violations"] > 0
    assert "; the first: I1 the cut left state " in cuts["reason"]
    assert "replay: fairdie faults --replay G" in cuts["reason"]
    fair = c["fairness"]
    assert fair["status"] == "fail" and "worst spread > 3 under" in fair["reason"]
    # a stuck pin leaves the seed's rule a deterministic die, which either player reads
    assert "guesses 0.9" in fair["reason"] and "under stuck:" in fair["reason"]
    stuck = fair["details"]["campaigns"]["stuck:1500"]
    assert stuck["worst_spread"] > 3 and stuck["longest_absence"] > 39


def test_a_direct_build_on_a_charlieplexed_board_fails_the_pairing(capsys) -> None:
    elf = str(build("die_t13a", variant="direct").elf)
    rc, out = run(capsys, elf, "--board", "die-charlieplex", "--only", "board-wiring")
    c = checks(out)["board-wiring"]
    assert rc == 1 and c["status"] == "fail"
    assert "charlieplexed" in c["reason"] and "(direct) drives them directly" in c["reason"]


def test_a_build_for_another_clock_fails_the_clock(capsys) -> None:
    elf = str(build("die_t13a", f_cpu=9_600_000).elf)
    rc, out = run(capsys, elf, *DIRECT, "--only", "clock")
    c = checks(out)["clock"]
    assert rc == 1 and c["status"] == "fail" and "9600000 Hz" in c["reason"]


def test_a_build_for_another_mcu_fails_and_nothing_else_runs(capsys) -> None:
    elf = str(build(TESTS / "m328p").elf)
    rc, out = run(capsys, elf, "--board", "die-direct")
    c = checks(out)
    assert rc == 1 and c["mcu-and-memory"]["status"] == "fail"
    assert "atmega328p" in c["mcu-and-memory"]["reason"]
    assert all(
        v["status"] == "skipped" and "cannot run on this board" in v["reason"]
        for k, v in c.items()
        if k != "mcu-and-memory" and k not in OTHER
    )


def test_mutation_switches_off_leave_the_default_build() -> None:
    default = build("die_t13a")
    off = build(
        "die_t13a",
        defines={
            "DIE_MUTANT_LED_MAP": 0,
            "DIE_MUTANT_SHOW_FIRST": 0,
            "DIE_MUTANT_REBASE_WRAP": 0,
            "DIE_MUTANT_NO_HEALTH": 0,
            "DIE_MUTANT_BOD_OFF": 0,
        },
    )
    assert off.hex.read_bytes() == default.hex.read_bytes()
    assert default.flash_bytes <= default.flash_budget  # the budget is the property, not a size
    seed = build("die_t13a", variant="seed")
    seed_off = build("die_t13a", variant="seed", defines={"DIE_MUTANT_REBASE_WRAP": 0})
    assert seed_off.hex.read_bytes() == seed.hex.read_bytes()


# ---- a maker's own die ------------------------------------------------------------------


def test_a_button_die_runs_what_applies_and_says_what_it_skipped(capsys) -> None:
    hexfile = str(build(BUTTON_DIE).hex)
    rc, out = run(capsys, hexfile, "--board", str(BUTTON_DIE / "board.toml"))
    c = checks(out)
    assert rc == 0 and out["model"] is None
    status = {k: v["status"] for k, v in c.items() if k not in OTHER}
    assert all(c[k]["status"] == "skipped" for k in OTHER)
    assert status == {
        "mcu-and-memory": "pass",
        "clock": "skipped",  # a HEX names no clock
        "board-wiring": "skipped",
        "model": "skipped",
        "faces": "pass",
        "press-counts": "skipped",
        "clear-10s": "skipped",
        "fresh-chip": "pass",
        "stored-before-shown": "skipped",
        "fairness": "skipped",
        "power-cuts": "skipped",
        "energy": "pass",
        "brown-out": "pass",  # it writes no EEPROM
        "scenarios": "skipped",
    }
    assert c["brown-out"]["reason"].startswith("writes no EEPROM")
    assert "no firmware target" in c["model"]["reason"]
    assert "no reference model" in c["fairness"]["reason"]
    assert "no reference model" in c["power-cuts"]["reason"]
    assert "wrote EEPROM" in c["stored-before-shown"]["reason"]
    assert "all six came up" in c["faces"]["reason"]
    e = out["energy"]
    sleeps = {p["name"] for p in e["parts"] if p["name"].startswith("sleep")}
    assert sleeps == {"sleep: idle"}  # its SM bits: idle, Timer0 keeps running
    assert e["standby_ma"] > 0 and "stays powered" in c["energy"]["reason"]


# ---- a board that is no die ----------------------------------------------------------------

TONE_BOARD = """
[board]
name = "tone-box"
mcu = "attiny84a"
f_cpu = 1200000
vcc_mv = 3000

[speaker]
pin = "PA5"
"""


def test_a_board_that_is_no_die_runs_the_core_checks_and_skips_the_dies(
    capsys, tmp_path: Path
) -> None:
    board = tmp_path / "tone.toml"
    board.write_text(TONE_BOARD)
    elf = str(build(TESTS / "tone").elf)
    rc, out = run(capsys, elf, "--board", str(board))
    c = checks(out)
    assert rc == 0 and out["passed"] and out["board"] == "tone-box"
    assert [x["name"] for x in out["checks"]] == NAMES
    assert c["mcu-and-memory"]["status"] == "pass"
    assert c["mcu-and-memory"]["reason"].startswith("built for the attiny84a")
    assert c["board-wiring"]["status"] == "skipped"
    assert "names no firmware target" in c["board-wiring"]["reason"]
    assert c["scenarios"] == {**c["scenarios"], "status": "skipped"}
    assert c["scenarios"]["reason"] == "no scenarios on this board"
    for name in set(DIE_NAMES) - set(RUN_NAMES):
        assert c[name]["status"] == "skipped", name
        assert c[name]["reason"] == "board tone-box is no die: no [die] table"
    # the die's energy and stored-before-shown replace the core's on a die only: here the
    # core's run, on 2 s of the tone firmware with no input
    assert (
        c["energy"]["status"] == "pass" and "2 s from power-on, no input" in c["energy"]["reason"]
    )
    assert out["energy"]["run_s"] == 2 and out["energy"]["presses_recorded"] == 0
    assert c["stored-before-shown"]["status"] == "skipped"
    assert "wrote no EEPROM" in c["stored-before-shown"]["reason"]
    # the die's checks learnt nothing; the core's brown-out check names the fuses
    assert "model" not in out and out["facts"] == ["fuses"]
    assert out["fuses"] == "lfuse 0x62 hfuse 0xDF efuse 0xFF"  # an ATtiny85's factory values
    assert c["brown-out"]["status"] == "pass"
    text = format_verdict(out)
    assert re.search(r"^power-cuts\s+skipped\s+board tone-box is no die", text, re.M)
    # asked for a die's check only: it is still skipped for the board, not run
    rc, out = run(capsys, elf, "--board", str(board), "--only", "faces")
    assert rc == 0 and checks(out)["faces"]["reason"].endswith("no [die] table")


LED_BOARD = """
[board]
name = "one-led"
mcu = "attiny13a"
f_cpu = 1200000
vcc_mv = 3000

[[led]]
name = "l0"
anode = "VCC"
cathode = "{pin}"
"""


@pytest.mark.parametrize(("pin", "status"), [("PB0", "pass"), ("PB3", "skipped")])
def test_the_cores_energy_is_skipped_for_a_run_that_lights_no_led(
    capsys, tmp_path: Path, pin: str, status: str
) -> None:
    # busy toggles PB0 and leaves PB3 an input: the LED on PB3 never lights, and a
    # charge estimate without the board's LEDs would pass a firmware that shows nothing
    board = tmp_path / "one-led.toml"
    board.write_text(LED_BOARD.format(pin=pin))
    rc, out = run(capsys, str(build(TESTS / "busy").elf), "--board", str(board), "--only", "energy")
    energy = checks(out)["energy"]
    assert rc == 0 and energy["status"] == status
    if status == "skipped":
        assert "lit none of the board's 1 LEDs" in energy["reason"] and out["energy"] is None
    else:
        assert out["energy"]["run_s"] == 2


def test_a_file_no_shipped_board_builds_needs_a_board(capsys) -> None:
    rc = main(["verify", str(build(TESTS / "tone").elf)])
    out, err = capsys.readouterr()
    assert rc == 2 and out == "" and err.count("\n") == 1
    assert "no shipped board's firmware target builds this file: give --board BOARD" in err


def test_a_restored_die_rolls_as_a_new_one() -> None:
    """verify's dice are one chip restored to the state it was made in."""
    from fairdie.subjects.die import Die
    from fairdie.subjects.die._fresh import FreshDice

    dice = FreshDice(lambda: Die(board="die-direct", seed=3))
    first = [dice.get().roll(0.06) for _ in range(1)] + [dice.get(bytes(64)).roll(0.06)]
    again = [dice.get().roll(0.06), dice.get(bytes(64)).roll(0.06)]
    new = [
        Die(board="die-direct", seed=3).roll(0.06),
        Die(board="die-direct", seed=3, eeprom=bytes(64)).roll(0.06),
    ]
    assert first == again == new and dice.chips == 1


def test_the_board_gives_the_led_current() -> None:
    text = {"board": {"name": "x", "mcu": "attiny13a", "f_cpu": 1200000, "vcc_mv": 3000}}
    assert parse_board(text).led_ma == 2.0
    assert parse_board({"board": {**text["board"], "led_ma": 5}}).led_ma == 5.0
    with pytest.raises(BoardError, match="led_ma must be a positive number up to 40"):
        parse_board({"board": {**text["board"], "led_ma": 0}})


# ---- bad input ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["/no/such.elf"], "/no/such.elf: no such firmware file"),
        (["--only", "nope"], "no check 'nope'"),
        (["--board", "/no/board.toml"], "/no/board.toml: no such board file"),
        (["--hold", "20"], "out of range"),
        (["--eep", "x.eep"], "--eep goes with a HEX FIRMWARE"),
        ([], "nothing to verify: give FIRMWARE (an ELF or HEX) and --board BOARD"),
        ([str(BUTTON_DIE / "board.toml")], "neither an ELF nor an Intel HEX"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(capsys, args: list[str], message: str) -> None:
    rc = main(["verify", *args])
    out, err = capsys.readouterr()
    assert rc == 2 and out == ""
    assert err.startswith("fairdie: error: ") and err.count("\n") == 1 and message in err


def test_a_subject_adds_its_own_options_and_the_core_has_none_of_them(capsys) -> None:
    from dataclasses import fields

    from fairdie.verify import Options
    from fairdie.verify._cli import _parser
    from fairdie.verify._run import subject_checks

    assert [f.name for f in fields(Options)] == ["seed", "jobs", "scheduler", "subjects"]
    assert main(["verify", "--help"]) == 0
    help_text = capsys.readouterr().out
    die_part = help_text[help_text.index("the die's options (its boards only):") :]
    assert "--presses N" in die_part and "--hold SECONDS" in die_part
    core_part = help_text[help_text.index("options:") : help_text.index("the die's options")]
    assert "--presses" not in core_part and "--seed S" in core_part
    # the parsed values reach the die's checks as the die's own options value
    (die,) = [s for s in subject_checks() if s.subject == "die"]
    assert die.options is not None
    args = _parser([], [die]).parse_args(["--presses", "300", "--hold", "0.5"])
    got = Options(subjects={"die": die.options.read(args)}).of(die)
    assert (got.presses, got.hold) == (300, 0.5)
    assert Options().of(die) == die.options.default  # verify() from Python: the defaults


def test_a_progress_bar_shows_on_a_terminal_only():
    rc, seen = run_on_a_terminal("verify", "--board", "die-direct", "--only", "faces")
    assert rc == 0 and b"%" in seen and b"/100" in seen, seen  # tqdm's bar, on the terminal


def test_a_die_that_rolls_when_its_noise_fails_fails_fairness(capsys) -> None:
    """The mutant that ignores its health tests rolls from the pool alone under
    a stuck pin, a face where its model shows the fault: the campaign stops at
    its first press (a build whose model rolled so too would be read by the
    firmware-aware player, as the seed build's is)."""
    elf = build("die_t13a", defines={"DIE_MUTANT_NO_HEALTH": 1}).elf
    rc, out = run(
        capsys,
        str(elf),
        *DIRECT,
        "--only",
        "fairness",
        "--presses",
        "300",
        "--noise",
        "stuck:1500",
        "--noise",
        "floating",
    )
    fair = checks(out)["fairness"]
    assert rc == 1 and fair["status"] == "fail", fair
    assert fair["reason"].startswith("stuck:1500: press 0: the chip showed ")
    assert "the model the fault; replay: fairdie lab campaign" in fair["reason"]


def test_log_axes_are_labelled_in_plain_numbers() -> None:
    """plain_numbers keeps matplotlib's choice of labelled ticks and writes
    them as numbers, not mathtext (its formatter's private hook, checked here)."""
    from fairdie.verify._plots import new_figure, plain_numbers

    ax = new_figure((4, 3)).subplots()
    ax.plot([1, 20_000], [1, 2])
    ax.set_xscale("log")
    plain_numbers(ax.xaxis)
    labels = [t.get_text() for t in ax.xaxis.get_ticklabels() if t.get_text()]
    assert {"10", "1,000", "10,000"} <= set(labels), labels
    assert not any("$" in t for t in labels), labels
