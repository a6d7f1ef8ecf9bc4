"""The typed stub of the compiled module names exactly what _api.h declares."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

SIM = Path(__file__).resolve().parents[2] / "harness" / "fairdie" / "sim"


def _api(header: str) -> tuple[set[str], set[str]]:
    text = re.sub(r"/\*.*?\*/", "", (SIM / header).read_text(), flags=re.S)
    defines = set(re.findall(r"^#define (\w+) ", text, flags=re.M))
    functions = set(re.findall(r"\b(fd_\w+)\(", text))
    return defines, functions


@pytest.mark.parametrize(
    ("header", "stub"), [("_api.h", "_simavr.pyi"), ("_noise_api.h", "_kernels.pyi")]
)
def test_stub_matches_the_declarations(header: str, stub: str) -> None:
    defines, functions = _api(header)
    text = (SIM / stub).read_text()
    assert set(re.findall(r"^    (FD_\w+): int$", text, flags=re.M)) == defines
    assert set(re.findall(r"^    def (fd_\w+)\(", text, flags=re.M)) == functions


@pytest.mark.parametrize("header", ["_api.h", "_noise_api.h"])
def test_api_header_is_a_plain_cdef(header: str) -> None:
    # cffi reads the header whole: no includes, guards or computed defines
    for line in (SIM / header).read_text().splitlines():
        if line.startswith("#"):
            assert re.match(r"#define \w+ \d+\b", line), line
