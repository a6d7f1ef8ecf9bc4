"""``fairdie build --out DIR``: the files to burn, copied out of the cache.

``DIR`` gets the ELF, the HEX, the EEP when the build has EEPROM data, and
``fuses`` (one ``NAME 0xVV`` line per fuse byte, avrdude's names). A file
already there is replaced only when fairdie wrote it (its name and SHA-256
are in ``DIR/.fairdie-outputs``), else the build is refused (one line) unless
``force``. An EEP fairdie wrote for an earlier build that has none is removed,
so no stale EEPROM image sits beside the HEX.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Iterable
from pathlib import Path

from fairdie.errors import ToolchainError

from ._build import Build

__all__ = ["MANIFEST", "check_outputs", "fuses_text", "write_out"]

#: the file in an output folder naming what fairdie wrote there (name -> SHA-256)
MANIFEST = ".fairdie-outputs"


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _manifest(folder: Path) -> dict[str, str]:
    try:
        data = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def _ours(path: Path, manifest: dict[str, str]) -> bool:
    try:
        return path.is_file() and manifest.get(path.name) == _sha256(path)
    except OSError:
        return False


def check_outputs(folder: Path, names: Iterable[str], *, force: bool, option: str) -> None:
    """Refuse (one-line :class:`ToolchainError`) to write ``names`` in ``folder``
    over a file fairdie did not write there, unless ``force``."""
    if folder.exists() and not folder.is_dir():
        raise ToolchainError(f"{option} {folder}: not a folder")
    manifest = _manifest(folder)
    for name in names:
        path = folder / name
        if not (path.exists() or path.is_symlink()):
            continue
        if path.is_dir() or not (path.is_file() or force):
            raise ToolchainError(f"{option} {folder}: {name} is there and is no regular file")
        if not force and not _ours(path, manifest):
            raise ToolchainError(
                f"{option} {folder}: {name} is there and fairdie did not write it"
                " (--force replaces it)"
            )


def fuses_text(b: Build) -> str:
    """The ``fuses`` file: a comment naming the build, then one line per fuse byte."""
    head = f"# {b.target}" + (f" ({b.variant})" if b.variant else "") + f": {b.mcu} @ {b.f_cpu} Hz"
    f = b.fuses
    if f is None:
        return f"{head}\n# no fuse table for the {b.mcu}: set its fuses yourself\n"
    lines = [f"{n} 0x{v:02X}" for n, v in zip(("lfuse", "hfuse", "efuse"), f.values, strict=False)]
    return "\n".join([f"{head}; {f.source}; brown-out detector {f.bod}", *lines]) + "\n"


def write_out(b: Build, folder: Path, *, force: bool = False) -> list[Path]:
    """Copy ``b``'s files into ``folder`` (made if missing); the paths written."""
    sources = [b.elf, b.hex, *([b.eep] if b.eeprom_bytes else [])]
    names = [p.name for p in sources] + ["fuses"]
    check_outputs(folder, names, force=force, option="--out")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        manifest = _manifest(folder)
        stale = folder / b.eep.name
        if not b.eeprom_bytes and _ours(stale, manifest):
            stale.unlink()
            manifest.pop(stale.name, None)
        written = []
        for src in sources:
            dst = folder / src.name
            if dst.is_symlink():
                dst.unlink()
            shutil.copyfile(src, dst)
            written.append(dst)
        fuses = folder / "fuses"
        if fuses.is_symlink():
            fuses.unlink()
        fuses.write_text(fuses_text(b), encoding="ascii")
        written.append(fuses)
        manifest.update({p.name: _sha256(p) for p in written})
        tmp = folder / f"{MANIFEST}.tmp"
        tmp.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        os.replace(tmp, folder / MANIFEST)
    except OSError as e:
        raise ToolchainError(f"--out {folder}: {e.strerror or e}") from None
    return written
