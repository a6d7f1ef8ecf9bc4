"""Known answers of firmware coverage, end to end: the engine records what
the test firmwares cov_c (C) and cov_asm (assembler) run, and the mapping
reports it per source line, branch and function.

- a function never called is 0%;
- an `if` whose else never runs shows one untaken branch outcome;
- a loop's exit branch is counted both ways (5 passes: 4 back, 1 out);
- an interrupt handler is covered only when its interrupt fires;
- code run only after a restore is counted once.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from fairdie.coverage import CoverageSet, FileReport, analyse
from fairdie.sim import Chip, StopReason, Until
from fairdie.toolchain import firmware_dir

pytestmark = [
    pytest.mark.sim,
    # waits on the engine's recording (Chip.coverage); remove once it is merged
    pytest.mark.skipif(not hasattr(Chip, "coverage"), reason="needs Chip.coverage()"),
]

TEST_FIRMWARE = firmware_dir() / "tests"

#: firmware -> (source, the `if` whose else never runs, the loop's branch)
CASES = {
    "cov_c": ("cov_c/main.c", ("main.c", "if (mode == 0)"), ("loop.c", "while (--i)")),
    "cov_asm": ("cov_asm/main.S", ("main.S", "brne 1f"), ("main.S", "brne 1b")),
}


def line_of(name: str, file: str, text: str) -> int:
    lines = (TEST_FIRMWARE / name / file).read_text().splitlines()
    (n,) = [i for i, ln in enumerate(lines, 1) if text in ln]
    return n


def source(rep: Any, name: str, file: str) -> FileReport:
    (fr,) = [f for f in rep.files if f.name == f"{name}/{file}"]
    return fr


def function(rep: Any, fn: str) -> tuple[FileReport, Any]:
    for fr in rep.files:
        if fn in fr.functions:
            return fr, fr.functions[fn]
    raise AssertionError(f"no function {fn}")


def body(fr: FileReport, fn: Any) -> list[int]:
    """The counts of a function's mapped lines: from its first line to the next function's."""
    ends = [f.line for f in fr.functions.values() if f.line > fn.line]
    last = min(ends, default=max(fr.lines) + 1)
    return [fr.lines[n] for n in range(fn.line, last) if n in fr.lines]


@pytest.fixture(params=sorted(CASES))
def chip(request: pytest.FixtureRequest, make_chip: Callable[..., Any]) -> Any:
    c = make_chip(request.param, power=False)
    c.coverage_on()
    c.power_on()
    c.name = request.param
    return c


def settle(chip: Any) -> None:
    """Run a few milliseconds, then on to the start of a main-loop pass."""
    chip.run(seconds=0.005)
    assert chip.run(seconds=0.01, until=Until.pc_at("decide")) & StopReason.PC


def report(chip: Any) -> Any:
    return analyse(CoverageSet([chip.coverage()]))


def test_a_function_never_called_is_zero(chip: Any) -> None:
    settle(chip)
    rep = report(chip)
    fr, fn = function(rep, "never_called")
    assert fn.hits == 0
    counts = body(fr, fn)
    assert counts and not any(counts)
    assert function(rep, "main")[1].hits == 1


def test_an_if_whose_else_never_runs_shows_one_untaken_outcome(chip: Any) -> None:
    settle(chip)
    rep = report(chip)
    _, (file, text), _ = CASES[chip.name]
    fr = source(rep, chip.name, file)
    (b,) = fr.branches[line_of(chip.name, file, text)]
    assert b.ran and b.hit == 1  # one outcome taken every time, the other never
    passes = function(rep, "decide")[1].hits
    assert passes > 3 and max(b.taken, b.not_taken) == passes


def test_a_loops_exit_branch_is_counted_both_ways(chip: Any) -> None:
    settle(chip)
    rep = report(chip)
    _, _, (file, text) = CASES[chip.name]
    (b,) = source(rep, chip.name, file).branches[line_of(chip.name, file, text)]
    # each pass of the main loop calls decide() and count_to() once (in C,
    # count_to's first instruction is also the loop's head: it runs 5 times a call)
    calls = function(rep, "decide")[1].hits
    assert calls > 3
    assert (b.taken, b.not_taken) == (4 * calls, calls)  # 5 passes a call: 4 back, 1 out
    entries = function(rep, "count_to")[1].hits
    assert entries == (5 * calls if chip.name == "cov_c" else calls)


def test_an_interrupt_handler_is_covered_only_when_it_fires(chip: Any) -> None:
    settle(chip)
    fr, isr = function(report(chip), "__vector_1")
    assert isr.hits == 0
    counts = body(fr, isr)
    assert counts and not any(counts)
    chip.drive("PB1", 0)  # INT0 on a falling edge: once
    settle(chip)
    fr, isr = function(report(chip), "__vector_1")
    assert isr.hits == 1
    assert set(body(fr, isr)) == {1}


def test_code_run_only_after_a_restore_is_counted_once(chip: Any) -> None:
    settle(chip)
    snap = chip.snapshot()
    settle(chip)
    assert function(report(chip), "after_restore")[1].hits == 0
    chip.restore(snap)
    chip.drive("PB3", 0)  # after_restore runs the first time PB3 reads low, once
    settle(chip)
    settle(chip)
    rep = report(chip)
    fr, fn = function(rep, "after_restore")
    assert fn.hits == 1
    assert set(body(fr, fn)) == {1}
    # what ran before the snapshot is not counted again by the restore
    assert function(rep, "main")[1].hits == 1


def test_lcov_of_a_run_has_the_known_answers(chip: Any, tmp_path: Path) -> None:
    from fairdie.coverage import write_lcov

    settle(chip)
    info = tmp_path / "run.info"
    write_lcov(CoverageSet([chip.coverage()]), info)
    text = info.read_text()
    assert "FNDA:0,never_called" in text and "FNDA:0,__vector_1" in text
    assert "FNDA:1,main" in text
