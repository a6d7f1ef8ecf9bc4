"""The plugin runs the shipped die suite against a user's build, in process
(pytester): our die as a HEX, its charlieplexed wiring, a die rolled by a
button on another wiring, and a firmware that is no die at all. The core's
fixtures need a board (``--fairdie-board``: the core knows no product); the
die's own fixtures default to die-direct."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings
from xdist_run import OTHER_BUILDS, SHARED, Run

# The inner runs share this process: the engine is loaded before any of them
# (fairdie's modules then stay loaded, tests/kept_modules.py; numpy, which the
# chip imports, cannot be loaded twice in one process).
import fairdie.subjects.die._die  # noqa: F401
from fairdie.toolchain import build, firmware_dir

BUTTON_DIE = firmware_dir() / "tests" / "button_die"
SUITE = ("--pyargs", "fairdie.subjects.die.suite", "-p", "no:cacheprovider")
DIRECT = "--fairdie-board=die-direct"
# what an inner session builds (ours, when no firmware is given) it builds into
# this process's cache, not each into a fresh one
pytestmark = pytest.mark.usefixtures("shared_build_cache")


def outcomes(result: pytest.RunResult) -> dict[str, int]:
    return {k: v for k, v in result.parseoutcomes().items() if k in ("passed", "failed", "skipped")}


def test_a_user_hex_runs_the_suite(pytester: pytest.Pytester) -> None:
    """A HEX (no symbols) as the firmware: what any die must do, our faces and
    the 10 s clear pass; the charlieplexed variants are deselected, not skipped.
    The whole suite on a HEX is test_wheel.py's, from the installed package:
    one run of it is enough."""
    hex_path = build("die_t13a", variant="direct").hex
    r = pytester.runpytest_inprocess(
        *SUITE,
        f"--fairdie-firmware={hex_path}",
        DIRECT,
        "-k",
        "any_die or each_face or ten_seconds",
    )
    got = outcomes(r)
    assert r.ret == 0, r.stdout.str()[-3000:]
    assert got["passed"] >= 10 and "skipped" not in got
    r.stdout.fnmatch_lines(["*fairdie: fairdie_firmware=*die.hex*"])


@pytest.mark.parametrize(
    ("variant", "board", "other"),
    [("direct", "die-direct", "die-charlieplex"), ("charlieplex", "die-charlieplex", "die-direct")],
)
def test_one_build_runs_what_applies_and_names_the_rest_in_one_line(
    pytester: pytest.Pytester, variant: str, board: str, other: str
) -> None:
    """Given one build, the suite runs the tests of that build and deselects the
    rest, naming them in one line with the build each needs; none is skipped."""
    hex_path = build("die_t13a", variant=variant).hex
    r = pytester.runpytest_inprocess(
        *SUITE, f"--fairdie-firmware={hex_path}", f"--fairdie-board={board}", "-k", OTHER_BUILDS
    )
    assert r.ret == 0, r.stdout.str()[-3000:]
    got = r.parseoutcomes()
    assert got["passed"] == 6 + 1  # each face, and the pull-up or the direct pins
    assert "skipped" not in got
    (line,) = [x for x in r.outlines if x.startswith("fairdie die suite:")]
    assert line == (
        "fairdie die suite: 21 tests deselected, not for the build given"
        f" (7 need a build for {other} at 1200000 Hz,"
        " 1 need a build for die-direct at 9600000 Hz,"
        " 1 need a build for die-charlieplex at 9600000 Hz,"
        " 12 need a build for die-seed at 1200000 Hz);"
        " they run when the suite builds ours (no --fairdie-firmware)"
    )


@SHARED
def test_under_xdist_the_line_comes_once_from_the_controller(xdist_run: Run) -> None:
    """And the JUnit suite properties, once each (the workers' own JUnit
    recording goes nowhere; tests/unit/test_junit_suite_properties.py: in one
    process). The shared session (xdist_run.py): the controller in this
    process, its line and its XML, the two workers in their own."""
    root = ET.parse(xdist_run.junit).getroot()
    ours = ("test_cov", "test_chip")  # the session's other tests (xdist_run.py)
    cases = [c for c in root.iter("testcase") if c.get("classname") not in ours]
    assert len(cases) == 7, xdist_run.out[-3000:]  # each face, and the direct pins
    bad = [c for c in cases for k in ("failure", "error", "skipped") if c.find(k) is not None]
    assert not bad, xdist_run.out[-3000:]
    lines = [x for x in xdist_run.out.splitlines() if x.startswith("fairdie die suite:")]
    assert len(lines) == 1 and lines[0].startswith("fairdie die suite: 21 tests deselected")
    suite = root.find("testsuite")
    assert suite is not None
    names = [(p.get("name"), p.get("value")) for p in suite.iterfind("properties/property")]
    assert names == [
        ("fairdie_firmware", str(xdist_run.firmware)),
        ("fairdie_board", "die-direct"),
        ("fairdie_seed", "5"),
    ]


def test_with_our_builds_the_tests_of_every_build_run(pytester: pytest.Pytester) -> None:
    """No firmware given: the suite builds ours, and the tests one given build
    would leave out run (here: the other clock on both wirings)."""
    r = pytester.runpytest_inprocess(*SUITE, "-k", "other_clock or direct_wiring or pullup_alone")
    assert r.ret == 0, r.stdout.str()[-3000:]
    assert outcomes(r) == {"passed": 4}
    assert not [x for x in r.outlines if x.startswith("fairdie die suite:")]


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
        DIRECT,
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
            f" --fairdie-firmware={wrong} --fairdie-board=die-direct --fairdie-seed=7",
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
    r = pytester.runpytest_inprocess(*SUITE, f"--fairdie-firmware={tmp_path / 'none.hex'}", DIRECT)
    assert r.ret == pytest.ExitCode.USAGE_ERROR
    assert "no such firmware file" in r.stderr.str() + r.stdout.str()


def test_a_firmware_needs_its_board(pytester: pytest.Pytester) -> None:
    """No default board: a firmware alone is a usage error, before any test runs."""
    hex_path = build("die_t13a", variant="direct").hex
    r = pytester.runpytest_inprocess(*SUITE, f"--fairdie-firmware={hex_path}")
    assert r.ret == pytest.ExitCode.USAGE_ERROR
    err = r.stderr.str()
    assert "--fairdie-firmware needs --fairdie-board" in err and "Traceback" not in err
    assert [line for line in err.splitlines() if line.strip()] == [
        "ERROR: fairdie: --fairdie-firmware needs --fairdie-board (the board it runs on)"
    ]


@pytest.mark.parametrize(
    ("seed", "message"),
    [
        ("twelve", "not a whole number: 'twelve'"),
        ("-1", "-1 is out of range (0..9223372036854775807)"),
        (str(2**64), f"{2**64} is out of range (0..9223372036854775807)"),
    ],
)
def test_a_bad_seed_is_one_usage_error_at_configure_time(
    pytester: pytest.Pytester, seed: str, message: str
) -> None:
    pytester.makepyfile("def test_never_run():\n    raise AssertionError('ran')\n")
    r = pytester.runpytest_inprocess("-p", "no:cacheprovider", f"--fairdie-seed={seed}")
    assert r.ret == pytest.ExitCode.USAGE_ERROR
    lines = [line for line in r.stderr.str().splitlines() if line.strip()]
    assert lines == [f"ERROR: fairdie: --fairdie-seed: {message}"]
    assert "ran" not in r.stdout.str()


def test_a_bad_seed_in_the_environment_is_named_as_such(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """FAIRDIE_SEED is checked with the range of every command's --seed."""
    from fairdie._cmdline import MAX_SEED

    monkeypatch.setenv("FAIRDIE_SEED", str(MAX_SEED + 1))
    pytester.makepyfile("def test_never_run():\n    raise AssertionError('ran')\n")
    r = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    assert r.ret == pytest.ExitCode.USAGE_ERROR
    lines = [line for line in r.stderr.str().splitlines() if line.strip()]
    bad = MAX_SEED + 1
    assert lines == [f"ERROR: fairdie: FAIRDIE_SEED: {bad} is out of range (0..{MAX_SEED})"]


def test_hypothesis_keeps_its_files_in_the_pytest_cache(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not in .hypothesis/ of the folder the tests run from (a subprocess:
    Hypothesis' storage folder is a process-wide setting)."""
    # the developers' profile: under CI's, derandomized, Hypothesis keeps no examples
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("FAIRDIE_HYPOTHESIS_PROFILE", raising=False)
    pytester.makepyfile(
        "from hypothesis import given, strategies as st\n"
        "@given(st.integers())\n"
        "def test_fails(x):\n"
        "    assert x < 10\n"
    )
    r = pytester.runpytest_subprocess("-p", "no:xdist")
    assert r.ret == 1
    assert not (pytester.path / ".hypothesis").exists()
    assert any((pytester.path / ".pytest_cache" / "d" / "hypothesis" / "examples").iterdir())


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
        monkeypatch.setenv("FAIRDIE_BOARD", "die-direct")
    else:
        pytester.makeini(f"[pytest]\nfairdie_firmware = {hex_path}\nfairdie_board = die-direct\n")
    r = pytester.runpytest_inprocess(*SUITE, "-k", "each_face and direct and 3")
    assert r.ret == 0, r.stdout.str()[-2000:]
    r.stdout.fnmatch_lines([f"*fairdie_firmware={hex_path}, fairdie_board=die-direct*"])


def test_fixtures_chain_and_the_factory_is_safe_inside_given(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        from hypothesis import given, settings, strategies as st

        import pickle

        SEEN = []

        def test_chain(
            fairdie_setup, fairdie_firmware, fairdie_chip, fairdie_device, fairdie_board
        ):
            assert fairdie_device.chip is fairdie_chip
            assert fairdie_chip.firmware is fairdie_firmware is fairdie_setup.load()
            assert fairdie_device.board is fairdie_board is fairdie_setup.board
            assert (fairdie_chip.mcu, fairdie_chip.frequency) == (
                fairdie_setup.mcu, fairdie_setup.f_cpu
            )
            assert pickle.loads(pickle.dumps(fairdie_setup)) == fairdie_setup
            fairdie_device.power_on()
            fairdie_chip.run(seconds=0.06)
            assert len(fairdie_device.lit()) >= 1
            SEEN.append((fairdie_setup, fairdie_firmware, fairdie_chip))

        def test_one_setup_one_firmware_a_fresh_chip_each(fairdie_firmware, fairdie_chip):
            setup, firmware, chip = SEEN[0]
            assert fairdie_firmware is firmware and fairdie_chip is not chip
            assert not fairdie_chip.powered and fairdie_chip.seed == setup.seed == 0

        @settings(max_examples=3)
        @given(seed=st.integers(0, 2**32))
        def test_factory_in_given(die_factory, seed):
            assert die_factory(seed=seed).roll(0.06).face in range(1, 7)
        """
    )
    r = pytester.runpytest_inprocess("-p", "no:cacheprovider", DIRECT)
    assert r.ret == 0, r.stdout.str()[-3000:]
    assert outcomes(r) == {"passed": 3}


def test_a_given_hex_is_the_setups_firmware_at_the_boards_clock(
    pytester: pytest.Pytester,
) -> None:
    hex_path = build("die_t13a", variant="direct").hex
    pytester.makepyfile(
        f"""
        from pathlib import Path

        def test_setup(fairdie_setup, fairdie_board, fairdie_device):
            assert fairdie_setup.firmware == Path({str(hex_path)!r})
            assert fairdie_setup.board is fairdie_board and fairdie_board.name == "die-direct"
            assert fairdie_setup.f_cpu == fairdie_board.f_cpu and fairdie_setup.seed == 5
            assert fairdie_device.chip.frequency == fairdie_board.f_cpu
        """
    )
    r = pytester.runpytest_inprocess(
        "-p", "no:cacheprovider", DIRECT, f"--fairdie-firmware={hex_path}", "--fairdie-seed=5"
    )
    assert outcomes(r) == {"passed": 1}, r.stdout.str()[-3000:]


def test_the_core_fixtures_need_a_board_and_the_dies_default_to_die_direct(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        """
        def test_core(fairdie_chip):
            pass

        def test_die(die, die_board):
            assert die_board.name == "die-direct" and die.board is die_board
            assert die.roll(0.06).face in range(1, 7)
        """
    )
    xml = pytester.path / "junit.xml"
    r = pytester.runpytest_inprocess("-p", "no:cacheprovider", f"--junitxml={xml}")
    assert outcomes(r) == {"passed": 1}, r.stdout.str()[-3000:]
    r.stdout.fnmatch_lines(["*ERROR at setup of test_core*", "*give --fairdie-board*"])
    suite = ET.parse(xml).getroot().iterfind("testsuite/properties/property")
    assert {p.get("name"): p.get("value") for p in suite} == {
        "fairdie_firmware": "built from the board",
        "fairdie_board": "none given",
        "fairdie_seed": "0",
    }


@pytest.fixture
def fresh_profile() -> Iterator[None]:
    """The inner session starts as a fresh process does, with Hypothesis'
    default profile loaded; this process's profile is put back after."""
    before = settings.get_current_profile_name()
    settings.load_profile("default")
    yield
    settings.load_profile(before)


def _profile_test(pytester: pytest.Pytester, profile: str) -> None:
    pytester.makepyfile(
        f"""
        from hypothesis import settings

        def test_profile():
            assert settings.get_current_profile_name() == {profile!r}
        """
    )


@pytest.mark.usefixtures("fresh_profile")
@pytest.mark.parametrize(("ci", "profile"), [("1", "fairdie-ci"), ("", "fairdie-dev")])
def test_a_session_without_a_profile_gets_ours(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, ci: str, profile: str
) -> None:
    monkeypatch.setenv("CI", ci)
    monkeypatch.delenv("FAIRDIE_HYPOTHESIS_PROFILE", raising=False)
    pytester.makepyfile(
        f"""
        from hypothesis import settings

        def test_profile():
            assert settings.get_current_profile_name() == {profile!r}
            assert settings.default.print_blob
            assert settings.default.derandomize == {profile == "fairdie-ci"}
        """
    )
    r = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    assert r.ret == 0, r.stdout.str()[-2000:]


@pytest.mark.usefixtures("fresh_profile")
@pytest.mark.parametrize("how", ["conftest", "hypothesis-option"])
def test_a_users_own_profile_stands(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    monkeypatch.setenv("CI", "1")
    monkeypatch.delenv("FAIRDIE_HYPOTHESIS_PROFILE", raising=False)
    pytester.makeconftest(
        """
        from hypothesis import settings

        settings.register_profile("mine", max_examples=7)
        """
        + ('settings.load_profile("mine")\n' if how == "conftest" else "")
    )
    _profile_test(pytester, "mine")
    extra = ["--hypothesis-profile=mine"] if how == "hypothesis-option" else []
    r = pytester.runpytest_inprocess("-p", "no:cacheprovider", *extra)
    assert r.ret == 0, r.stdout.str()[-2000:]


@pytest.mark.usefixtures("fresh_profile")
@pytest.mark.parametrize("form", ["option", "ini", "env"])
def test_a_profile_of_ours_loads_when_asked(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, form: str
) -> None:
    """Asked for, ours is loaded even over a profile the session loaded itself."""
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("FAIRDIE_HYPOTHESIS_PROFILE", raising=False)
    pytester.makeconftest(
        """
        from hypothesis import settings

        settings.register_profile("mine", max_examples=7)
        settings.load_profile("mine")
        """
    )
    _profile_test(pytester, "fairdie-thorough")
    args = ["-p", "no:cacheprovider"]
    if form == "option":
        args.append("--fairdie-hypothesis-profile=fairdie-thorough")
    elif form == "ini":
        pytester.makeini("[pytest]\nfairdie_hypothesis_profile = fairdie-thorough\n")
    else:
        monkeypatch.setenv("FAIRDIE_HYPOTHESIS_PROFILE", "fairdie-thorough")
    r = pytester.runpytest_inprocess(*args)
    assert r.ret == 0, r.stdout.str()[-2000:]


@pytest.mark.usefixtures("fresh_profile")
def test_an_unknown_profile_is_a_usage_error(pytester: pytest.Pytester) -> None:
    _profile_test(pytester, "never")
    r = pytester.runpytest_inprocess(
        "-p", "no:cacheprovider", "--fairdie-hypothesis-profile=fairdie-fast"
    )
    assert r.ret == pytest.ExitCode.USAGE_ERROR
    assert "no Hypothesis profile 'fairdie-fast'" in r.stderr.str()


def test_the_die_suite_on_a_board_that_is_no_die_is_one_usage_error(
    pytester: pytest.Pytester, build_test_firmware: Callable[..., Any]
) -> None:
    lightsout = Path(__file__).resolve().parents[2] / "harness/fairdie/firmware/tests/lightsout"
    elf = build_test_firmware("lightsout").elf
    r = pytester.runpytest_inprocess(
        *SUITE, f"--fairdie-board={lightsout / 'board.toml'}", f"--fairdie-firmware={elf}"
    )
    assert r.ret == pytest.ExitCode.USAGE_ERROR
    out = r.stdout.str() + r.stderr.str()
    assert out.count("the die suite needs a die: board lightsout: no face table") == 1
    assert "passed" not in out and "errors" not in out  # no test ran, none errored
