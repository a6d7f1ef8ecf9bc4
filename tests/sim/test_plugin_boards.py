"""The shipped die suite runs every test that applies to a build on any board
that wires the die as ours do, not only on our board names: a copy of
die-direct's board file under another name, given our HEX, runs what
die-direct runs (in process, as tests/sim/test_plugin.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

# The engine loaded before any inner run (see tests/sim/test_plugin.py).
import fairdie.subjects.die._die  # noqa: F401
from fairdie.board import shipped_board_file
from fairdie.toolchain import build

SUITE = ("--pyargs", "fairdie.subjects.die.suite", "-p", "no:cacheprovider")
pytestmark = pytest.mark.usefixtures("shared_build_cache")  # see test_plugin.py
#: a cross-section of the suite's ways of choosing boards: tests parametrized
#: over our boards (faces, power), the conftest's board parameter (a fresh chip,
#: the loader), the seed board's own parameter (rebase) and the session's die
SELECTION = (
    "each_face_lights or fresh_chip or every_roll_shows or a_record_in_another"
    " or while_a_face_shows or rebase_at_its_boundaries"
)


def outcomes(result: pytest.RunResult) -> dict[str, int]:
    got = result.parseoutcomes()
    return {k: got.get(k, 0) for k in ("passed", "failed", "skipped")}


def test_a_renamed_copy_of_die_direct_runs_what_die_direct_runs(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    hex_path = build("die_t13a", variant="direct").hex
    text = shipped_board_file("die-direct").read_text()
    assert text.count('name = "die-direct"') == 1
    copy = tmp_path / "my-die.toml"
    copy.write_text(text.replace('name = "die-direct"', 'name = "my-die"'))

    def run(board: str) -> pytest.RunResult:
        return pytester.runpytest_inprocess(
            *SUITE,
            f"--fairdie-firmware={hex_path}",
            f"--fairdie-board={board}",
            "-k",
            SELECTION,
            "-rs",
        )

    ours, theirs = run("die-direct"), run(str(copy))
    want = outcomes(ours)
    assert want["failed"] == 0 and want["passed"] >= 8, ours.stdout.str()[-3000:]
    assert outcomes(theirs) == want, theirs.stdout.str()[-3000:]
    theirs.stdout.no_fnmatch_line("*needs a build for board die-direct*")
    theirs.stdout.fnmatch_lines(["*my-die*"])  # the session's board is named as it is
