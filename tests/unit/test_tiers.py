"""The test tiers work without the compiled simavr binding.

Each check runs pytest in a fresh interpreter in which importing
``fairdie.sim._simavr`` fails, as on a machine where the binding was never
built: ``pytest -m "not sim"`` must collect cleanly (the sim tier's modules
are left out, see ``SimTierWithoutBinding`` in tests/conftest.py) and the
unit tier must pass.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import settings

from fairdie.plugin import examples

ROOT = Path(__file__).resolve().parents[2]

_BLOCKED = textwrap.dedent(
    """
    import os
    import sys

    class Block:
        def find_spec(self, name, path=None, target=None):
            if name == "fairdie.sim._simavr":
                raise ImportError("fairdie.sim._simavr blocked: a machine without the binding")
            return None

    sys.meta_path.insert(0, Block())
    try:
        import fairdie.sim._simavr
    except ImportError:
        pass
    else:
        sys.exit("the block did not work")
    import pytest
    from hypothesis import settings

    # What is checked is that nothing needs the binding, not Hypothesis' depth.
    settings.register_profile("fairdie-tiers", deadline=None, max_examples=5)


    class Keep:
        # with FAIRDIE_TIERS_KEEP (files, one a line): write every test the session
        # selected to FAIRDIE_TIERS_SELECTED, then run only those files' tests not slow

        def __init__(self, keep, selected):
            self.keep, self.selected = keep, selected

        @pytest.hookimpl(trylast=True)  # after -m
        def pytest_collection_modifyitems(self, config, items):
            with open(self.selected, "w") as out:
                out.writelines(item.nodeid + "\\n" for item in items)
            run = [
                i for i in items
                if i.nodeid.split("::")[0] in self.keep and not i.get_closest_marker("slow")
            ]
            config.hook.pytest_deselected(items=[i for i in items if i not in run])
            items[:] = run


    keep = os.environ.get("FAIRDIE_TIERS_KEEP")
    plugins = [Keep(keep.splitlines(), os.environ["FAIRDIE_TIERS_SELECTED"])] if keep else []
    code = pytest.main(sys.argv[1:], plugins=plugins)
    # with FAIRDIE_TIERS_THEN (arguments, one a line): a second session in the
    # same interpreter (no second start-up), after the line THEN, its exit code last
    then = os.environ.get("FAIRDIE_TIERS_THEN")
    if then:
        print(THEN, flush=True)
        print(int(pytest.main(then.splitlines())), flush=True)
    sys.exit(code)
    """
)
#: the line between the two sessions' outputs (written into the script above)
THEN = "==== fairdie-tiers: then ===="
_BLOCKED = _BLOCKED.replace("print(THEN,", f"print({THEN!r},")


#: every session's first options. --assert=plain: nothing here reads an
#: assertion's message, and where bytecode is not written (PYTHONDONTWRITEBYTECODE)
#: pytest would rewrite every test module it collects, each run (most of the time)
_EACH = ("-p", "no:cacheprovider", "--assert=plain")


def _pytest_without_binding(*args: str, **extra_env: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"} | extra_env
    return subprocess.run(
        [sys.executable, "-c", _BLOCKED, *_EACH, *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


#: the unit tests of the files a user writes (boards, scenarios): their parsers are
#: the core's likeliest path into the binding, so make test runs them without it
PARSERS = sorted(
    str(p.relative_to(ROOT))
    for p in (ROOT / "tests/unit").glob("test_*.py")
    if p.name.startswith(("test_board", "test_scenario_files", "test_silver_dollar_board"))
)


def test_not_sim_collects_and_the_parsers_unit_tests_pass_without_the_binding(
    tmp_path: Path,
) -> None:
    """One session of ``pytest -m "not sim"`` over the whole project: it
    collects cleanly, selecting no sim test, then runs only the parsers'
    tests not marked slow (the rest of the unit tier: make campaigns).
    Then, in the same interpreter, selected sim tests are not hidden: without
    the binding, collecting them errors."""
    assert len(PARSERS) >= 7, PARSERS
    selected = tmp_path / "selected"
    r = _pytest_without_binding(
        "-m",
        "not sim",
        "-q",
        "--hypothesis-profile",
        "fairdie-tiers",
        FAIRDIE_TIERS_KEEP="\n".join(PARSERS),
        FAIRDIE_TIERS_SELECTED=str(selected),
        FAIRDIE_TIERS_THEN="\n".join([*_EACH, "tests/sim/test_engine.py", "--collect-only", "-q"]),
    )
    out, _, then = r.stdout.partition(THEN + "\n")
    *loud, code = then.splitlines() or ["no second session"]
    assert code != "0" and "fairdie.sim._simavr blocked" in "\n".join(loud), r.stdout[-3000:]
    assert r.returncode == 0, out[-3000:] + r.stderr[-3000:]
    nodes = selected.read_text().splitlines()
    here = "tests/unit/test_tiers.py::test_not_sim_collects_and_the_parsers_unit_tests_pass"
    assert any(n.startswith(here) for n in nodes)
    assert not [n for n in nodes if n.startswith("tests/sim/") or "/suite/" in n]
    assert {n.split("::")[0] for n in nodes} >= set(PARSERS)
    last = out.splitlines()[-1]
    assert " passed" in last and "error" not in last, last


@pytest.mark.slow  # make test keeps the collection and the parsers' tests above
def test_unit_tier_passes_without_the_binding() -> None:
    here = "tests/unit/test_tiers.py"
    r = _pytest_without_binding(
        "tests/unit",
        "-q",
        "-m",
        "not slow",
        "--deselect",
        here,
        "--hypothesis-profile",
        "fairdie-tiers",
    )
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert " passed" in r.stdout.splitlines()[-1]


def test_an_explicit_depth_scales_with_the_loaded_profile() -> None:
    """``examples(n)`` is ``n`` at Hypothesis' default depth and follows the
    profile: the re-run above is shallow, fairdie-thorough deep."""
    settings.register_profile("fairdie-test-shallow", max_examples=5)
    loaded = settings.get_current_profile_name()
    try:
        for profile, want in (
            ("fairdie-ci", 300),
            ("fairdie-dev", 300),
            ("fairdie-thorough", 3000),
            ("fairdie-test-shallow", 15),
        ):
            settings.load_profile(profile)
            assert examples(300) == want, profile
        assert examples(10) == 1  # never none
    finally:
        settings.load_profile(loaded)
