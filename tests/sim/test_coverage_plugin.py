"""``--fairdie-cov``: the coverage of every chip a session makes, merged over
xdist workers, written as asked, summed up at the end, and held to a floor."""

from __future__ import annotations

from xml.etree import ElementTree

import pytest
from xdist_run import COV_TESTS, SHARED, Run

# The inner runs share this process: the engine loaded before any (see test_plugin.py).
import fairdie.sim._chip  # noqa: F401
from fairdie.coverage import CoverageSet

# the inner sessions build cov_c into this process's cache, not each into a fresh one
pytestmark = pytest.mark.usefixtures("shared_build_cache")


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    pytester.makepyfile(test_cov=COV_TESTS)
    return pytester.runpytest_inprocess("-p", "no:cacheprovider", *args)


@SHARED
def test_two_workers_count_what_one_process_counts(
    pytester: pytest.Pytester, xdist_run: Run
) -> None:
    """COV_TESTS spread over the two workers of the shared session (xdist_run.py,
    which runs die suite tests and a chip test beside them: one more firmware)
    count what they count here, in one process."""
    serial = _run(
        pytester, "-n", "0", "--fairdie-cov=json:serial.json", "--fairdie-cov=lcov:a.info"
    )
    assert serial.ret == 0, serial.stdout.str()
    assert xdist_run.ret == 1, xdist_run.out[-3000:]  # the chip test fails, no other:
    cases = ElementTree.parse(xdist_run.junit).getroot().iter("testcase")
    failed = {c.get("name"): c.find("failure") is not None for c in cases}
    assert {n for n, f in failed.items() if f} == {"test_pb0"}, failed
    assert sum(n.startswith(("test_loops", "test_interrupt", "test_after")) for n in failed) == 5
    one = CoverageSet.load(pytester.path / "serial.json")
    two = CoverageSet.load(xdist_run.path / "parallel.json")
    assert len(one) == 4  # four builds of cov_c
    assert len(two) == 5  # and the die
    assert one == CoverageSet(c for c in two if one.get(c.flash_sha256) is not None)
    # a file row and a total in the summary; the LCOV tracefile written
    out = serial.stdout.str()
    assert "fairdie firmware coverage" in out and "main.c" in out and "total" in out
    assert (pytester.path / "a.info").read_text().startswith("TN:")
    assert "fairdie firmware coverage" in xdist_run.out


def test_fail_under_fails_a_passing_session(pytester: pytest.Pytester) -> None:
    low = _run(pytester, "-n", "0", "--fairdie-cov-fail-under=0")
    assert low.ret == 0
    high = _run(pytester, "-n", "0", "--fairdie-cov-fail-under=100")
    assert high.ret == 1
    assert "below --fairdie-cov-fail-under=100" in high.stdout.str()
    written = [p.name for p in pytester.path.iterdir() if not p.name.startswith(".")]
    # no output asked for, none written (Python may keep the test's bytecode)
    assert sorted(set(written) - {"__pycache__"}) == ["test_cov.py"]


@pytest.mark.parametrize(
    "arg",
    [
        "--fairdie-cov=bogus:x",
        "--fairdie-cov=lcov",
        "--fairdie-cov=lcov:missing/x.info",
        "--fairdie-cov-fail-under=101",
    ],
)
def test_a_bad_option_is_a_usage_error(pytester: pytest.Pytester, arg: str) -> None:
    r = _run(pytester, arg)
    assert r.ret == pytest.ExitCode.USAGE_ERROR
    assert "fairdie: --fairdie-cov" in r.stderr.str()


@pytest.mark.usefixtures("unrecorded")
def test_without_the_option_no_chip_records(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_off="""
        from fairdie.sim import Chip
        from fairdie.toolchain import build, firmware_dir

        def test_off():
            b = build(firmware_dir() / "tests" / "cov_c")
            assert not Chip(b.elf, mcu=b.mcu, f_cpu=b.f_cpu).coverage_recording
        """
    )
    r = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-n", "0")
    assert r.ret == 0
    assert "fairdie firmware coverage" not in r.stdout.str()


@pytest.mark.parametrize("kind", ["json", "lcov", "xml", "html"])
def test_an_output_over_the_users_own_is_refused_before_any_test(
    pytester: pytest.Pytester, kind: str
) -> None:
    """The commands' guard: a file only over one fairdie wrote, a folder only
    if fairdie's; a refused file claims no folder asked for beside it."""
    theirs = pytester.path / "theirs"
    if kind == "html":
        theirs.mkdir()
        (theirs / "index.html").write_text("<p>the user's own page</p>\n")
    else:
        theirs.write_text("the user's own\n")
    before = {p.name for p in pytester.path.rglob("*")}
    extra = [] if kind == "html" else ["--fairdie-cov=html:view"]
    r = _run(pytester, "-n", "0", f"--fairdie-cov={kind}:theirs", *extra)
    assert r.ret == pytest.ExitCode.USAGE_ERROR
    assert "fairdie did not write" in r.stderr.str() and "--fairdie-cov-force" in r.stderr.str()
    assert "passed" not in r.stdout.str()
    assert {p.name for p in pytester.path.rglob("*")} == before | {"test_cov.py"}
    r = _run(pytester, "-n", "0", f"--fairdie-cov={kind}:theirs", "--fairdie-cov-force")
    assert r.ret == 0, r.stdout.str() + r.stderr.str()
    assert "the user's own" not in (theirs / "index.html" if kind == "html" else theirs).read_text()


def test_outputs_fairdie_wrote_are_written_again(pytester: pytest.Pytester) -> None:
    outs = ["--fairdie-cov=json:c.json", "--fairdie-cov=lcov:c.info", "--fairdie-cov=xml:c.xml"]
    for _ in range(2):
        r = _run(pytester, "-n", "0", *outs, "--fairdie-cov=html:view")
        assert r.ret == 0, r.stdout.str() + r.stderr.str()
    assert len(CoverageSet.load(pytester.path / "c.json")) == 4
