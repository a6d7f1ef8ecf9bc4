"""The plugin runs the shipped die suite against a user's build, in process
(pytester): our die as a HEX, its charlieplexed wiring, a die rolled by a
button on another wiring, and a firmware that is no die at all."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

# The inner runs share this process. Import the engine here, once: pytester
# drops the modules an inner run imported, and a second copy of the engine
# module would answer the compiled module's callbacks for chips it never made.
import fairdie.subjects.die._die  # noqa: F401
from fairdie.toolchain import build, firmware_dir

BUTTON_DIE = firmware_dir() / "tests" / "button_die"
SUITE = ("--pyargs", "fairdie.subjects.die.suite", "-p", "no:cacheprovider")


def outcomes(result: pytest.RunResult) -> dict[str, int]:
    return {k: v for k, v in result.parseoutcomes().items() if k in ("passed", "failed", "skipped")}


def test_a_user_hex_runs_the_whole_suite(pytester: pytest.Pytester) -> None:
    hex_path = build("die_t13a", variant="direct").hex
    r = pytester.runpytest_inprocess(
        *SUITE, f"--fairdie-firmware={hex_path}", "-k", "not machine and not realistic"
    )
    got = outcomes(r)
    assert r.ret == 0, r.stdout.str()[-3000:]
    assert got["passed"] >= 10
    # variants needing another build (the charlieplex wiring, another clock) skip, saying so
    assert got["skipped"] >= 1
    r.stdout.fnmatch_lines(["*fairdie: fairdie_firmware=*die.hex*"])


def test_a_charlieplex_build_with_its_board(pytester: pytest.Pytester) -> None:
    hex_path = build("die_t13a", variant="charlieplex").hex
    r = pytester.runpytest_inprocess(
        *SUITE,
        f"--fairdie-firmware={hex_path}",
        "--fairdie-board=die-charlieplex",
        "-k",
        "any_die or each_face or ten_seconds",
    )
    assert r.ret == 0, r.stdout.str()[-3000:]
    assert outcomes(r)["passed"] >= 9


def test_a_button_die_passes_the_generic_tests_and_skips_ours(
    pytester: pytest.Pytester, build_test_firmware: Callable[..., Any]
) -> None:
    hex_path = build_test_firmware("button_die").hex
    r = pytester.runpytest_inprocess(
        *SUITE, f"--fairdie-firmware={hex_path}", f"--fairdie-board={BUTTON_DIE / 'board.toml'}"
    )
    assert r.ret == 0, r.stdout.str()[-3000:]
    got = outcomes(r)
    assert got["passed"] == 3  # every face valid, every face reachable, one steady face
    assert got["skipped"] >= 10  # our rule and table: it keeps no counters
    r.stdout.no_fnmatch_line("*die_t13a*")  # nothing of ours was built or run


def test_a_wrong_firmware_fails_and_says_how_to_replay(
    pytester: pytest.Pytester, build_test_firmware: Callable[..., Any], tmp_path: Path
) -> None:
    wrong = build_test_firmware("ctc").hex  # blinks PB0: the centre, a "1" every roll
    xml = tmp_path / "junit.xml"
    r = pytester.runpytest_inprocess(
        *SUITE,
        f"--fairdie-firmware={wrong}",
        "--fairdie-seed=7",
        "-k",
        "every_face_is_reachable",
        f"--junitxml={xml}",
        "-o",
        "junit_family=xunit2",
        "-W",
        "error::pytest.PytestWarning",
    )
    assert r.ret == 1
    r.stdout.fnmatch_lines(
        [
            "*faces never shown in 600 rolls: [[]2, 3, 4, 5, 6[]]*",
            "*fairdie replay*",
            f"pytest */fairdie/subjects/die/suite/test_any_die.py::test_every_face_is_reachable"
            f" --fairdie-firmware={wrong} --fairdie-seed=7",
        ]
    )
    suite = ET.parse(xml).getroot().iterfind("testsuite/properties/property")
    props = {p.get("name"): p.get("value") for p in suite}
    assert props == {
        "fairdie_firmware": str(wrong),
        "fairdie_board": "die-direct",
        "fairdie_seed": "7",
    }


def test_a_bad_option_is_a_usage_error(pytester: pytest.Pytester, tmp_path: Path) -> None:
    r = pytester.runpytest_inprocess(*SUITE, f"--fairdie-firmware={tmp_path / 'none.hex'}")
    assert r.ret == pytest.ExitCode.USAGE_ERROR
    assert "no such firmware file" in r.stderr.str() + r.stdout.str()


def test_a_board_without_a_target_needs_a_firmware(pytester: pytest.Pytester) -> None:
    r = pytester.runpytest_inprocess(*SUITE, f"--fairdie-board={BUTTON_DIE / 'board.toml'}")
    assert r.ret == pytest.ExitCode.USAGE_ERROR
    assert "names no firmware target: give --fairdie-firmware" in r.stderr.str()


@pytest.mark.parametrize("form", ["env", "ini"])
def test_option_forms(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, form: str
) -> None:
    hex_path = build("die_t13a", variant="direct").hex
    if form == "env":
        monkeypatch.setenv("FAIRDIE_FIRMWARE", str(hex_path))
    else:
        pytester.makeini(f"[pytest]\nfairdie_firmware = {hex_path}\n")
    r = pytester.runpytest_inprocess(*SUITE, "-k", "each_face and direct and 3")
    assert r.ret == 0, r.stdout.str()[-2000:]
    r.stdout.fnmatch_lines([f"*fairdie_firmware={hex_path}*"])


def test_fixtures_chain_and_the_factory_is_safe_inside_given(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        from hypothesis import given, settings, strategies as st

        def test_chain(fairdie_firmware, fairdie_chip, fairdie_device, fairdie_board):
            assert fairdie_device.chip is fairdie_chip
            assert fairdie_chip.firmware is fairdie_firmware
            assert fairdie_device.board is fairdie_board
            fairdie_device.power_on()
            fairdie_chip.run(seconds=0.06)
            assert len(fairdie_device.lit()) >= 1

        @settings(max_examples=3)
        @given(seed=st.integers(0, 2**32))
        def test_factory_in_given(die_factory, seed):
            assert die_factory(seed=seed).roll(0.06).face in range(1, 7)
        """
    )
    r = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    assert r.ret == 0, r.stdout.str()[-3000:]
    assert outcomes(r) == {"passed": 2}


@pytest.mark.parametrize(("ci", "profile"), [("1", "fairdie-ci"), ("", "fairdie-dev")])
def test_the_plugin_ships_the_hypothesis_profiles(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, ci: str, profile: str
) -> None:
    monkeypatch.setenv("CI", ci)
    monkeypatch.delenv("FAIRDIE_HYPOTHESIS_PROFILE", raising=False)
    pytester.makepyfile(
        f"""
        from hypothesis import settings

        def test_profile():
            assert settings._current_profile == {profile!r}
            assert settings.default.print_blob
            assert settings.default.derandomize == {profile == "fairdie-ci"}
        """
    )
    r = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    assert r.ret == 0, r.stdout.str()[-2000:]
