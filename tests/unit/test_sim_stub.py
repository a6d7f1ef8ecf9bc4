"""The typed stub of the compiled module names exactly what _api.h declares."""

from __future__ import annotations

import re
from pathlib import Path

SIM = Path(__file__).resolve().parents[2] / "harness" / "fairdie" / "sim"


def _api() -> tuple[set[str], set[str]]:
    text = re.sub(r"/\*.*?\*/", "", (SIM / "_api.h").read_text(), flags=re.S)
    defines = set(re.findall(r"^#define (\w+) ", text, flags=re.M))
    functions = set(re.findall(r"\b(fd_\w+)\(", text))
    return defines, functions


def test_stub_matches_the_declarations():
    defines, functions = _api()
    stub = (SIM / "_simavr.pyi").read_text()
    assert set(re.findall(r"^    (FD_\w+): int$", stub, flags=re.M)) == defines
    assert set(re.findall(r"^    def (fd_\w+)\(", stub, flags=re.M)) == functions


def test_api_header_is_a_plain_cdef():
    # cffi reads _api.h whole: no includes, guards or computed defines
    for line in (SIM / "_api.h").read_text().splitlines():
        if line.startswith("#"):
            assert re.match(r"#define \w+ \d+\b", line), line
