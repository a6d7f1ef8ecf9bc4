"""Helpers the simulator tests share: the CLI in-process, and a VCD read back
with pyvcd's tokenizer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from vcd.reader import TokenKind, tokenize

from fairdie.cli import main

Wave = list[tuple[int, Any]]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        rc = main(list(argv))
    except SystemExit as e:  # argparse's own errors
        rc = int(e.code or 0)
    out, err = capsys.readouterr()
    return rc, out, err


def read_vcd(path: Path) -> tuple[str, dict[str, Wave]]:
    """(timescale, each variable's wave by name), with pyvcd's tokenizer."""
    names: dict[str, str] = {}
    waves: dict[str, Wave] = {}
    timescale = ""
    t = 0
    with path.open("rb") as f:
        for tok in tokenize(f):
            if tok.kind is TokenKind.TIMESCALE:
                timescale = str(tok.timescale)
            elif tok.kind is TokenKind.VAR:
                names[tok.var.id_code] = tok.var.reference
                waves[tok.var.reference] = []
            elif tok.kind is TokenKind.CHANGE_TIME:
                t = tok.time_change
            elif tok.kind is TokenKind.CHANGE_SCALAR:
                waves[names[tok.scalar_change.id_code]].append((t, tok.scalar_change.value))
            elif tok.kind is TokenKind.CHANGE_VECTOR:
                waves[names[tok.vector_change.id_code]].append((t, tok.vector_change.value))
    return timescale, waves
