"""Firmware coverage from the emulator, with no instrumented build.

The engine records which flash words ran and, for each conditional branch and
skip, whether it was taken; :class:`Coverage` holds that per firmware and
:class:`CoverageSet` for several. The ELF's DWARF line table maps addresses to
source lines, functions and branches; the writers turn that into an LCOV
tracefile, Cobertura XML and a self-contained HTML view.
"""

from fairdie.coverage._data import FORMAT_VERSION, Coverage, CoverageError, CoverageSet

__all__ = ["FORMAT_VERSION", "Coverage", "CoverageError", "CoverageSet"]
