"""``fairdie echo-press``: press the echo board's button once, say what the LED did."""

from __future__ import annotations

from echo_subject.follow import follows
from fairdie.device import Setup


def main(argv: list[str]) -> int:
    if argv:
        print(f"fairdie echo-press: error: no arguments, got {argv[0]!r}")
        return 2
    before, during, after = follows(Setup.make(board="echo").device())
    print(f"LED before {before}, while pressed {during}, after {after}")
    return 0 if (before, during, after) == (True, False, True) else 1
