"""The README's "Testing your own firmware": its pytest example runs, on a
firmware and board of the kind users bring, with nothing but the options."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.sim

LIGHTSOUT = Path(__file__).resolve().parents[2] / "harness/fairdie/firmware/tests/lightsout"
EXAMPLE = """
def test_b0_toggles_its_neighbours(fairdie_device):
    dev = fairdie_device
    dev.power_on()
    dev.chip.run(seconds=0.05)
    dev.press("b0", hold=0.05)
    dev.chip.run(seconds=0.03)
    assert dev.lit() == {"l0", "l3"}
"""


@pytest.mark.usefixtures("shared_build_cache")  # a fresh HOME's cache would build it again
def test_the_readmes_pytest_example_passes(pytester, build_test_firmware) -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    assert EXAMPLE.strip() in readme  # the README shows this very test
    pytester.makepyfile(test_mine=EXAMPLE)
    elf = build_test_firmware("lightsout").elf
    r = pytester.runpytest_inprocess(
        f"--fairdie-board={LIGHTSOUT / 'board.toml'}",
        f"--fairdie-firmware={elf}",
        "-p",
        "no:randomly",
    )
    r.assert_outcomes(passed=1)
