"""``fairdie verify`` on firmware that is no die: the core's checks (the
energy and the EEPROM timing of a recorded run included) and the scenario
files its board names; exit 0 when it behaves, 1 naming the step."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fairdie.cli import main

pytestmark = pytest.mark.sim

LIGHTSOUT = Path(__file__).resolve().parents[2] / "harness/fairdie/firmware/tests/lightsout"

SOLVE = """\
[scenario]
name = "presses 0, 2 and 4 light all five"

[[step]]
wait = "50ms"
expect = {{ leds = ["l1", "l3"] }}

[[step]]
press = "b0"
hold = "80ms"

[[step]]
press = "b2"
hold = "80ms"

[[step]]
press = "b4"
hold = "80ms"

[[step]]
wait = "50ms"
expect = {{ leds = {leds} }}
"""


@pytest.fixture(scope="module")
def elf(build_test_firmware) -> str:
    return str(build_test_firmware("lightsout").elf)


def _board(tmp_path: Path, leds: str) -> Path:
    (tmp_path / "solve.toml").write_text(SOLVE.format(leds=leds))
    text = (LIGHTSOUT / "board.toml").read_text()
    board = tmp_path / "board.toml"
    board.write_text(text.replace("[board]\n", '[board]\nscenarios = ["solve.toml"]\n', 1))
    return board


def _verify(capsys, elf: str, board: Path) -> tuple[int, dict]:
    rc = main(["verify", elf, "--board", str(board), "--json"])
    return rc, json.loads(capsys.readouterr().out)


def test_a_board_whose_scenario_holds_passes(capsys, elf, tmp_path) -> None:
    rc, out = _verify(capsys, elf, _board(tmp_path, '["l0", "l1", "l2", "l3", "l4"]'))
    checks = {c["name"]: c for c in out["checks"]}
    assert rc == 0 and out["passed"]
    assert checks["scenarios"]["status"] == "pass"
    assert checks["mcu-and-memory"]["status"] == "pass"
    assert checks["faces"]["status"] == "skipped" and checks["faces"]["reason"]
    # the energy of the scenario's run: 50 + 3 x 80 + 50 ms, idle between 1 ms ticks
    energy = checks["energy"]
    assert energy["status"] == "pass" and energy["details"]["runs"] == ["scenario solve.toml"]
    e = out["energy"]
    assert e["run_s"] == pytest.approx(0.34, rel=0.01)
    parts = {p["name"]: p["ms"] for p in e["parts"]}
    assert parts.keys() == {"LEDs (ms summed over LEDs)", "sleep: idle", "CPU active"}
    assert parts["sleep: idle"] + parts["CPU active"] == pytest.approx(340, rel=0.01)
    # l1 and l3 lit from the start, all five by the end: between 2 and 5 LEDs all along
    assert 2 * 340 < parts["LEDs (ms summed over LEDs)"] < 5 * 340
    assert "a CR2032 (225 mAh) lasts" in energy["reason"]
    stored = checks["stored-before-shown"]
    assert stored["status"] == "skipped" and "wrote no EEPROM" in stored["reason"]


def test_with_no_scenarios_the_energy_is_of_two_seconds_with_no_input(capsys, elf) -> None:
    rc, out = _verify(capsys, elf, LIGHTSOUT / "board.toml")
    checks = {c["name"]: c for c in out["checks"]}
    assert rc == 0 and checks["energy"]["status"] == "pass"
    assert out["energy"]["runs"] == ["2 s from power-on, no input"] and out["energy"]["run_s"] == 2
    # l1 and l3 lit the whole time (but for the 5 us of each 1 ms tick the buttons are read)
    leds = {p["name"]: p["ms"] for p in out["energy"]["parts"]}["LEDs (ms summed over LEDs)"]
    assert leds == pytest.approx(2 * 2000, rel=0.01)


EEPROM_BOARD = """
[board]
name = "store-and-show"
mcu = "attiny13a"
f_cpu = 1200000
vcc_mv = 3000

[[led]]
name = "shown"
anode = "{anode}"
cathode = "{cathode}"
x = 0
y = 0
"""


@pytest.mark.parametrize(
    ("toggle_first", "anode", "cathode", "passes"),
    [
        (0, "VCC", "PB0", True),  # each write completes, then the LED changes
        (0, "PB0", "GND", True),
        (1, "PB0", "GND", False),  # the LED lights as the first write starts
    ],
)
def test_each_eeprom_write_completes_before_something_new_shows(
    capsys, build_test_firmware, tmp_path, toggle_first: int, anode: str, cathode: str, passes
) -> None:
    board = tmp_path / "board.toml"
    board.write_text(EEPROM_BOARD.format(anode=anode, cathode=cathode))
    elf = str(build_test_firmware("eeprom", EE_TOGGLE_FIRST=toggle_first).elf)
    rc, out = _verify(capsys, elf, board)
    checks = {c["name"]: c for c in out["checks"]}
    stored = checks["stored-before-shown"]
    assert stored["details"]["writes"] == 3
    if passes:
        assert rc == 0 and stored["status"] == "pass", stored["reason"]
        assert stored["reason"].startswith("3 EEPROM writes (2 s from power-on, no input)")
    else:
        assert rc == 1 and stored["status"] == "fail"
        assert stored["reason"].startswith(
            "shown lit while the EEPROM write of address 0 was in flight (0.0"
        )
        assert stored["details"]["address"] == 0
    # three writes: 3.4 ms erase and write, 1.8 ms erase, 1.8 ms write
    parts = {p["name"]: p["ms"] for p in out["energy"]["parts"]}
    assert parts["EEPROM programming"] == pytest.approx(7.0, rel=0.01)


def test_a_scenario_that_fails_names_its_step(capsys, elf, tmp_path) -> None:
    rc, out = _verify(capsys, elf, _board(tmp_path, '["l0"]'))
    scen = next(c for c in out["checks"] if c["name"] == "scenarios")
    assert rc == 1 and scen["status"] == "fail"
    assert "step 5" in scen["reason"] and "solve.toml" in scen["reason"]


def test_what_the_engine_does_not_model_is_in_the_report(capsys, build_test_firmware, tmp_path):
    elf = build_test_firmware("unmodelled", mcu="attiny13a").elf
    board = tmp_path / "bare.toml"
    board.write_text('[board]\nname = "bare"\nmcu = "attiny13a"\nf_cpu = 1200000\nvcc_mv = 3000\n')
    rc, out = _verify(capsys, str(elf), board)
    assert rc == 0 and {"PRR", "CLKPR"} <= set(out["unmodelled"])
    assert any("PRR" in note for note in out["notes"])


def test_the_evidence_files_are_made_for_a_report_only(elf, tmp_path, monkeypatch) -> None:
    """verify() from Python keeps each check's evidence files, for write_report;
    without ``evidence`` (the command with no --report) it names the same
    evidence and writes none of it (a VCD is most of a check's evidence)."""
    import fairdie._trace
    from fairdie._trace import is_our_vcd
    from fairdie.verify import verify

    written: list[Path] = []
    write = fairdie._trace.write
    monkeypatch.setattr(fairdie._trace, "write", lambda c, p, **k: written.append(write(c, p, **k)))
    board = str(_board(tmp_path, '["l0", "l1", "l2", "l3", "l4"]'))
    kept = verify(elf, board=board, only=["scenarios"])
    assert [p.name for p in written] == ["scenario-1.vcd"]
    named = verify(elf, board=board, only=["scenarios"], evidence=False)
    assert len(written) == 1  # no VCD written
    assert kept.passed and kept.evidence == named.evidence
    files = {e.file for links in kept.evidence.values() for e in links if e.file}
    assert "scenario-1.vcd" in files
    assert set(kept.files) == files and all(is_our_vcd(kept.files[f]) for f in files)
    assert named.files == {}
