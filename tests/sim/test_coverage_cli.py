"""``--cov PATH`` on the commands that run firmware: a coverage file, or LCOV
by suffix, of every chip the command ran; bad input is one line and exit 2."""

from __future__ import annotations

from pathlib import Path

import pytest
from simsupport import run

from fairdie.coverage import CoverageSet

SCENARIO = Path(__file__).resolve().parents[1] / "scenarios" / "test_buzzer.toml"


def _one(path: Path) -> CoverageSet:
    covset = CoverageSet.load(path)
    assert len(covset) == 1
    return covset


def test_press_writes_a_coverage_file_and_counts_every_press(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    rc, _, err = run(capsys, "press", "--count", "1", "--cov", str(tmp_path / "one.json"))
    assert rc == 0 and "coverage: " in err
    rc, _, _ = run(capsys, "press", "--count", "3", "--cov", str(tmp_path / "three.json"))
    assert rc == 0
    (one,), (three,) = _one(tmp_path / "one.json"), _one(tmp_path / "three.json")
    assert one.mcu == "attiny13a" and one.elf and one.elf.endswith("die.elf")
    # every press starts the firmware alike: three presses run the reset vector 3x as often
    assert one.hits[0] > 0 and three.hits[0] == 3 * one.hits[0]
    assert set(one.hits) <= set(three.hits)


def test_run_and_a_scenario_write_lcov_by_suffix(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    rc, _, _ = run(
        capsys, "run", "die_t13a", "--board", "die-direct", "--for", "50ms", "--cov",
        str(tmp_path / "run.info"),
    )  # fmt: skip
    assert rc == 0
    text = (tmp_path / "run.info").read_text()
    assert text.startswith("TN:") and "main.c" in text and "end_of_record" in text
    rc, _, err = run(capsys, "run", "--scenario", str(SCENARIO), "--cov", str(tmp_path / "s.json"))
    assert rc == 0, err
    assert _one(tmp_path / "s.json")


def test_verify_records_its_chips(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "v.json"
    rc, _, err = run(capsys, "verify", "--board=die-direct", "--only=faces", "--cov", str(out))
    assert rc == 0, err
    (cov,) = _one(out)
    assert len(cov.hits) > 50 and cov.branches


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["verify", "--jobs", "2"], "--cov sees the chips of this process only"),
        (["press"], "no such directory"),
        (["run", "die_t13a", "--board", "die-direct"], "no such directory"),
    ],
)
def test_bad_cov_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, args: list[str], message: str
) -> None:
    where = tmp_path / ("x.json" if args[0] == "verify" else "missing/x.json")
    rc, _, err = run(capsys, *args, "--cov", str(where))
    assert rc == 2
    assert message in err and len(err.strip().splitlines()) == 1
    assert not any(tmp_path.iterdir())  # nothing written


def test_cov_merges_and_reports_what_commands_wrote(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    a, b, merged = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "m.json"
    assert run(capsys, "press", "--count", "1", "--cov", str(a))[0] == 0
    assert run(capsys, "press", "--count", "2", "--cov", str(b))[0] == 0
    rc, out, _ = run(capsys, "cov", "merge", "-o", str(merged), str(a), str(b))
    assert rc == 0 and "1 firmware" in out
    ((one,), (two,)) = _one(a), _one(b)
    (both,) = _one(merged)
    assert both.hits[0] == one.hits[0] + two.hits[0] == 3 * one.hits[0]
    rc, out, _ = run(capsys, "cov", "report", str(merged), "--lcov", str(tmp_path / "m.info"))
    assert rc == 0 and "die_t13a/main.c" in out
    assert (tmp_path / "m.info").read_text().startswith("TN:")


def test_outputs_fairdie_wrote_are_written_again_and_force_writes_over_the_users(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Each output is told from the user's file by its first bytes (or a
    folder by its marker); run twice, every one is replaced; --force
    replaces the user's."""
    cov = tmp_path / "c.json"
    info, xml, view, merged = (tmp_path / n for n in ("c.info", "c.xml", "view", "m.json"))
    for _ in range(2):
        assert run(capsys, "press", "--count", "1", "--cov", str(cov))[0] == 0
        assert run(capsys, "run", "die_t13a", "--board", "die-direct", "--cov", str(info))[0] == 0
        assert run(capsys, "cov", "merge", "-o", str(merged), str(cov))[0] == 0
        outs = ["--lcov", str(info), "--xml", str(xml), "--html", str(view)]
        rc, _, err = run(capsys, "cov", "report", str(merged), *outs)
        assert rc == 0, err
    assert xml.read_text().startswith("<?xml") and (view / "index.html").is_file()
    for argv in (
        ["cov", "report", str(cov), "--xml", "{o}"],
        ["cov", "merge", "-o", "{o}", str(cov)],
        ["run", "die_t13a", "--board", "die-direct", "--cov", "{o}.info"],
    ):
        theirs = tmp_path / "theirs"
        for p in (theirs, tmp_path / "theirs.info"):
            p.write_text("TN:\nSF:the user's own\n")
        args = [a.format(o=theirs) for a in argv]
        rc, _, err = run(capsys, *args)
        assert rc == 2 and "fairdie did not write" in err, err
        rc, _, err = run(capsys, *args, "--force")
        assert rc == 0, err
        assert "the user's own" not in Path(args[-1] if "{o}" in argv[-1] else theirs).read_text()
