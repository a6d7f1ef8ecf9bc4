"""The LCOV tracefile (geninfo's format, read by genhtml and most CI services)."""

from __future__ import annotations

import re

from fairdie.coverage._report import Report, file_summary

__all__ = ["is_our_lcov", "lcov_text"]

#: how a tracefile :func:`lcov_text` wrote begins: a test name, a source
#: file, then its functions (or their count, for none)
_OUR_LCOV = re.compile(rb"\ATN:[^\n]*\nSF:[^\n]*\nFNF?:")


def is_our_lcov(head: bytes) -> bool:
    """Whether ``head`` (a file's first bytes) begins an LCOV tracefile as fairdie writes one."""
    return _OUR_LCOV.match(head) is not None


def _name(symbol: str) -> str:
    # FN and FNDA separate fields with commas: a C++ name's commas would split it
    return symbol.replace(",", ";")


def lcov_text(report: Report, test_name: str = "") -> str:
    """One record per source file: functions, branches (block: the branch's
    index on its line; branch 0: taken, 1: not taken; ``-``: never ran), lines."""
    out: list[str] = []
    for fr in report.files:
        s = file_summary(fr)
        out += [f"TN:{test_name}", f"SF:{fr.path}"]
        fns = sorted(fr.functions.values(), key=lambda f: (f.line, f.symbol))
        out += [f"FN:{f.line},{_name(f.symbol)}" for f in fns]
        out += [f"FNDA:{f.hits},{_name(f.symbol)}" for f in fns]
        out += [f"FNF:{s.functions_found}", f"FNH:{s.functions_hit}"]
        for line in sorted(fr.branches):
            for block, b in enumerate(fr.branches[line]):
                for branch, n in enumerate((b.taken, b.not_taken)):
                    out.append(f"BRDA:{line},{block},{branch},{n if b.ran else '-'}")
        out += [f"BRF:{s.branches_found}", f"BRH:{s.branches_hit}"]
        out += [f"DA:{line},{fr.lines[line]}" for line in sorted(fr.lines)]
        out += [f"LF:{s.lines_found}", f"LH:{s.lines_hit}", "end_of_record"]
    return "".join(f"{line}\n" for line in out)
