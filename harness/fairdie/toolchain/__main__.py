"""``python -m fairdie.toolchain``: the same build command as ``fairdie build``."""

from __future__ import annotations

import sys

from fairdie._cmdline import run_stoppable

from ._cli import format_build, main

__all__ = ["format_build", "main"]

if __name__ == "__main__":
    sys.exit(run_stoppable(main, "python -m fairdie.toolchain"))
