"""How a refused command line looks (tests/sim/test_bad_input*.py): exit 2, one
error line, nothing on stdout, the input files unchanged; and the build of our
die whose files those tests cut, patch and damage."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest
from simsupport import run

from fairdie.toolchain import Build, build


@functools.cache
def die() -> Build:
    """Our die's build (``die_t13a``), made once per process."""
    return build("die_t13a")


def _snapshot(paths: list[Path]) -> dict[Path, tuple[bytes, int]]:
    return {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in paths if p.is_file()}


def refused(capsys: pytest.CaptureFixture[str], *argv: str, inputs: tuple[Path, ...] = ()) -> str:
    """Run ``fairdie *argv``: exit 2, one error line on stderr (argparse's usage
    lines above it allowed), nothing on stdout, the input files unchanged. The
    error line."""
    before = _snapshot(list(inputs))
    rc, out, err = run(capsys, *argv)
    assert rc == 2, (rc, err)
    assert out == "" and "Traceback" not in err
    lines = err.splitlines()
    assert lines and ": error: " in lines[-1], err
    assert all(line.startswith(("usage:", " ")) for line in lines[:-1]), err
    assert _snapshot(list(inputs)) == before
    return lines[-1]
