"""What an ELF says of its code, for coverage: each instruction's source line
(the DWARF line table), the functions (DWARF subprograms, else code symbols),
every conditional branch and skip (decoded from flash), and the code that has
no line information (named by its symbols and address ranges).

C, C++ and assembler are read alike: avr-gcc's ``-g`` gives C and C++ line
tables and subprograms; the assembler's ``--gdwarf`` (which avr-gcc passes for
``.S`` files built with ``-g``) gives line tables only, so an assembler
function is a code symbol.
"""

from __future__ import annotations

import hashlib
from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from fairdie.coverage._data import CoverageError
from fairdie.coverage._decode import instructions, is_conditional, is_two_words

__all__ = ["Function", "Region", "SourceLine", "Unit", "read_elf"]

_SCOPES = frozenset(
    {"DW_TAG_namespace", "DW_TAG_class_type", "DW_TAG_structure_type", "DW_TAG_union_type"}
)


@dataclass(frozen=True, slots=True)
class SourceLine:
    file: str  #: the path the debug info gives (folder mapped by the build), or absolute
    line: int


@dataclass(frozen=True, slots=True)
class Function:
    name: str  #: as written in the source (C++: without its namespace)
    symbol: str  #: the linker's name (C++: mangled), unique in the firmware
    file: str
    line: int
    entries: tuple[int, ...]  #: byte addresses whose execution counts as entering it


@dataclass(frozen=True, slots=True)
class Region:
    """Code without line information, named by the symbol it starts at."""

    name: str
    start: int
    end: int
    instructions: tuple[int, ...]
    branches: tuple[int, ...]


@dataclass(frozen=True)
class Unit:
    """One ELF's code: where every instruction's line is, and what is not mapped."""

    flash_sha256: str
    lines: dict[int, SourceLine] = field(default_factory=dict)  #: instruction -> line
    branches: tuple[int, ...] = ()  #: every conditional instruction with a line
    functions: tuple[Function, ...] = ()
    unmapped: tuple[Region, ...] = ()


def _attr(die: Any, name: str) -> Any:
    a = die.attributes.get(name)
    return None if a is None else a.value


def _text(v: Any) -> str:
    return v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v)


def _file_names(dwarf: Any, cu: Any) -> tuple[Any, list[str]]:
    """The CU's line program and its file table as paths (index 1 is the first file)."""
    lp = dwarf.line_program_for_CU(cu)
    if lp is None:
        return None, []
    top = cu.get_top_DIE()
    comp = _text(_attr(top, "DW_AT_comp_dir") or "")
    dirs = [comp, *(_text(d) for d in lp["include_directory"])]
    names = [""]
    for fe in lp["file_entry"]:
        d = dirs[fe.dir_index] if fe.dir_index < len(dirs) else comp
        if d and not d.startswith("/") and fe.dir_index:
            d = f"{comp}/{d}" if comp else d
        name = _text(fe.name)
        names.append(name if name.startswith("/") or not d else f"{d}/{name}")
    return lp, names


def _rows(lp: Any, names: list[str]) -> Iterable[tuple[int, int, SourceLine | None]]:
    """``(start, end, line)`` of each stretch of the line table (line 0: None)."""
    prev = None
    for entry in lp.get_entries():
        s = entry.state
        if s is None:
            continue
        if prev is not None and s.address > prev.address:
            ok = prev.line > 0 and 0 < prev.file < len(names)
            yield prev.address, s.address, SourceLine(names[prev.file], prev.line) if ok else None
        prev = None if s.end_sequence else s


def _origin(die: Any) -> Any:
    """The declaration behind ``die``: through abstract origins (an inlined or
    out-of-line copy) and specifications (a C++ member defined outside its class)."""
    for _ in range(8):
        for key in ("DW_AT_abstract_origin", "DW_AT_specification"):
            if key in die.attributes:
                die = die.get_DIE_from_attribute(key)
                break
        else:
            break
    return die


def _qualified(die: Any) -> str:
    """``Outer::Inner::name`` for C++ (namespaces, classes), the plain name for C."""
    parts = [_text(_attr(die, "DW_AT_name") or "")]
    parent = die.get_parent()
    while parent is not None and parent.tag in _SCOPES:
        parts.append(_text(_attr(parent, "DW_AT_name") or "(anonymous namespace)"))
        parent = parent.get_parent()
    return "::".join(reversed(parts))


def _entry(die: Any) -> int | None:
    for key in ("DW_AT_entry_pc", "DW_AT_low_pc"):
        v = _attr(die, key)
        if isinstance(v, int):
            return v
    return None


def _linkage(die: Any) -> str | None:
    seen = 0
    while seen < 8:
        for key in ("DW_AT_linkage_name", "DW_AT_MIPS_linkage_name"):
            if key in die.attributes:
                return _text(die.attributes[key].value)
        for key in ("DW_AT_abstract_origin", "DW_AT_specification"):
            if key in die.attributes:
                die = die.get_DIE_from_attribute(key)
                break
        else:
            return None
        seen += 1
    return None


def _functions(dwarf: Any, cu: Any, names: list[str], lines: dict[int, SourceLine]) -> list[Any]:
    """``(origin offset, name, symbol, file, line, entry)`` of each function's code:
    a subprogram with code, and each inlined copy of one."""
    found = []
    for die in cu.iter_DIEs():
        if die.tag not in ("DW_TAG_subprogram", "DW_TAG_inlined_subroutine"):
            continue
        entry = _entry(die)
        if entry is None or entry not in lines:  # no code, or dropped by the linker
            continue
        o = _origin(die)
        if not _attr(o, "DW_AT_name"):
            continue
        name = _qualified(o)
        f = _attr(o, "DW_AT_decl_file")
        line = _attr(o, "DW_AT_decl_line") or 0
        ocu_names = names if o.cu.cu_offset == cu.cu_offset else _file_names(dwarf, o.cu)[1]
        file = ocu_names[f] if isinstance(f, int) and 0 < f < len(ocu_names) else None
        if file is None or not line:
            file, line = lines[entry].file, lines[entry].line
        found.append((o.offset, name, _linkage(die) or name, file, line, entry))
    return found


def _code_symbols(elf: Any) -> tuple[list[tuple[int, int, str, str]], int]:
    """``(address, size, kind, name)`` of the symbols in ``.text``, and where
    ``.text`` ends. The kind is "data" (an object), "function" (typed so, or a
    global label) or "label" (a local label)."""
    from fairdie.sim._elfinfo import (
        SHN_ABS,
        SHN_UNDEF,
        STB_LOCAL,
        STT_FUNC,
        STT_NOTYPE,
        STT_OBJECT,
        elf_symbols,
    )

    kinds = {STT_OBJECT: "data", STT_FUNC: "function", STT_NOTYPE: None}
    out = []
    text = elf.get_section_by_name(".text")
    lo, hi = (text["sh_addr"], text["sh_addr"] + text["sh_size"]) if text else (0, 0)
    for s in elf_symbols(elf):
        v = s.value
        if not s.name or s.type not in kinds:
            continue
        if lo <= v < hi and s.shndx not in (SHN_ABS, SHN_UNDEF):
            kind = kinds[s.type] or ("function" if s.bind != STB_LOCAL else "label")
            out.append((v, s.size, kind, s.name))
    return sorted(set(out)), hi


def _flash(path: Path) -> tuple[bytes, str]:
    from fairdie.errors import FirmwareError
    from fairdie.sim import load_firmware

    try:
        fw = load_firmware(path)
    except FirmwareError as e:
        raise CoverageError(str(e)) from None
    return fw.flash, hashlib.sha256(fw.flash).hexdigest()


def read_elf(path: str | Path) -> Unit:
    """The code map of the ELF at ``path`` (cached by path and modification time)."""
    p = Path(path)
    try:
        stamp = p.stat().st_mtime_ns
    except OSError as e:
        raise CoverageError(f"cannot read the ELF {p}: {e.strerror}") from None
    return _read_elf(p.resolve(), stamp)


@lru_cache(maxsize=256)  # a test session's firmwares (some 100), read ahead of its report
def _read_elf(path: Path, _stamp: int) -> Unit:
    from elftools.common.exceptions import DWARFError, ELFError
    from elftools.elf.elffile import ELFFile

    flash, sha = _flash(path)
    stretches: list[tuple[int, int, SourceLine]] = []
    raw_functions: list[Any] = []
    lines: dict[int, SourceLine] = {}
    try:
        with path.open("rb") as f:
            elf = ELFFile(f)
            symbols, text_end = _code_symbols(elf)
            if elf.has_dwarf_info():
                dwarf = elf.get_dwarf_info(relocate_dwarf_sections=_relocatable(elf))
                cus = list(dwarf.iter_CUs())
                tables = [_file_names(dwarf, cu) for cu in cus]
                for lp, names in tables:
                    if lp is not None:
                        stretches += [(a, b, sl) for a, b, sl in _rows(lp, names) if sl]
                # each row starts an instruction: decoding restarts there
                for a, b, sl in stretches:
                    for pc, _ in instructions(flash, a, b):
                        lines[pc] = sl
                for cu, (_, names) in zip(cus, tables, strict=True):
                    raw_functions += _functions(dwarf, cu, names, lines)
    except (ELFError, DWARFError, ValueError, KeyError, IndexError) as e:
        raise CoverageError(f"{path}: unreadable debug information ({e})") from None
    functions = _merge_functions(raw_functions, symbols, lines)
    branches = tuple(a for a in sorted(lines) if is_conditional(_word(flash, a)))
    unmapped = _unmapped(flash[:text_end], symbols, lines)
    return Unit(sha, lines, branches, functions, unmapped)


def _relocatable(elf: Any) -> bool:
    """Whether ``elf`` has relocation sections (a linked firmware has none):
    only then need pyelftools look for those of each debug section."""
    from elftools.elf.relocation import RelocationSection

    return any(isinstance(sec, RelocationSection) for sec in elf.iter_sections())


def _word(flash: bytes, a: int) -> int:
    return flash[a] | flash[a + 1] << 8 if a + 1 < len(flash) else 0xFFFF


def _merge_functions(
    raw: list[Any], symbols: list[Any], lines: dict[int, SourceLine]
) -> tuple[Function, ...]:
    """One :class:`Function` per function: its inlined copies are entries of it.
    Code symbols in mapped code that start no function (assembler) are functions too."""
    by_origin: dict[int, list[Any]] = {}
    for r in raw:
        by_origin.setdefault(r[0], []).append(r)
    out: dict[str, Function] = {}
    for group in by_origin.values():
        _, name, sym, file, line, _ = min(group, key=lambda r: r[5])
        entries = tuple(sorted({r[5] for r in group}))
        key = sym if sym not in out else f"{sym}@{entries[0]:#x}"
        out[key] = Function(name, key, file, line, entries)
    entered = {e for f in out.values() for e in f.entries}
    for v, _, t, name in symbols:
        if t != "function" or v in entered or v not in lines:
            continue
        sl = lines[v]
        key = name if name not in out else f"{name}@{v:#x}"
        out[key] = Function(name, key, sl.file, sl.line, (v,))
        entered.add(v)
    return tuple(sorted(out.values(), key=lambda f: (f.file, f.line, f.entries)))


def _unmapped(flash: bytes, symbols: list[Any], lines: dict[int, SourceLine]) -> tuple[Region, ...]:
    """Code without line information, one region from each code symbol (local
    labels whose names start with a dot do not cut it) to the next code
    symbol, data object or mapped instruction."""
    named: dict[int, str] = {}
    cuts = {len(flash) - len(flash) % 2}
    for v, size, t, name in symbols:
        if t == "data":
            cuts |= {v, v + size}
        elif t == "function" or not name.startswith("."):
            cuts.add(v)
            if v not in named or named[v].startswith("__") > name.startswith("__"):
                named[v] = name  # at one address, a user's name before a runtime alias
    ordered = sorted(cuts)
    out = []
    for v, name in sorted(named.items()):
        if v in lines:
            continue
        end = ordered[bisect_right(ordered, v)] if bisect_right(ordered, v) < len(ordered) else v
        ins: list[int] = []
        stop = v
        for pc, op in instructions(flash, v, end):
            if pc in lines:
                break
            ins.append(pc)
            stop = pc + (4 if is_two_words(op) else 2)
        if ins:
            branches = tuple(a for a in ins if is_conditional(_word(flash, a)))
            out.append(Region(name, v, stop, tuple(ins), branches))
    return tuple(out)
