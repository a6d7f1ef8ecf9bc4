"""cffi build script for ``fairdie.sim._simavr`` (API mode, built at install).

The C boundary lives in files side by side: this script, ``_api.h`` (the
declarations Python sees; read whole as the cdef), ``_shim.h``, the shim's
private header ``_shim_private.h`` and its sources ``_shim_*.c`` (one per
concern, listed in that header), with ``_simavr.pyi`` typing the compiled
module. They link the system libsimavr 1.6 (Debian: libsimavr-dev). Nothing
generated is committed: ``pip install`` runs this through setup.py's
``cffi_modules``.

The build stops with one line when libsimavr is not 1.6: simavr 1.7's
ATtiny13 core is broken, and the shim's fixes are written against 1.6.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from cffi import FFI

HERE = Path(__file__).resolve().parent
#: The simavr release the shim is written and tested against.
SIMAVR_VERSION = "1.6"

_CALLBACKS = """
extern "Python+C" int fd_py_adc(uint64_t chip_id, int channel);
extern "Python+C" int fd_py_adc_block(uint64_t chip_id, int channel);
"""


def _run(*cmd: str) -> str | None:
    if shutil.which(cmd[0]) is None:
        return None
    r = subprocess.run(cmd, capture_output=True, text=True)
    return r.stdout.strip() if r.returncode == 0 else None


def simavr_version() -> str | None:
    """The installed libsimavr's version: pkg-config's, else Debian's package's."""
    v = _run("pkg-config", "--modversion", "simavr")
    if v:
        return v
    deb = _run("dpkg-query", "-W", "-f=${Version}", "libsimavr-dev")
    return deb.split("+")[0].split("-")[0] if deb else None


def check_simavr_version(found: str | None) -> None:
    """Raise SystemExit with one line unless ``found`` is simavr 1.6.x."""
    if found is None:
        raise SystemExit(
            "fairdie: libsimavr not found (install libsimavr-dev 1.6, or run `make setup`)"
        )
    if found != SIMAVR_VERSION and not found.startswith(SIMAVR_VERSION + "."):
        raise SystemExit(
            f"fairdie: libsimavr {found} found, but fairdie needs {SIMAVR_VERSION}"
            " (1.7 breaks the ATtiny13 core): install Debian bookworm's libsimavr-dev"
        )


def _pkg_config(*args: str) -> list[str]:
    out = _run("pkg-config", *args, "simavr")
    return out.split() if out else []


def _relative(path: Path) -> str:
    # setuptools wants sources relative to setup.py's directory
    try:
        return os.path.relpath(path)
    except ValueError:
        return str(path)


def shim_sources() -> list[Path]:
    """The shim's C files, compiled with the cffi module."""
    return sorted(HERE.glob("_shim_*.c"))


def make_builder() -> FFI:
    ffi = FFI()
    ffi.cdef((HERE / "_api.h").read_text() + "\n" + _CALLBACKS)
    ffi.set_source(
        "fairdie.sim._simavr",
        '#include "_shim.h"\n',
        sources=[_relative(p) for p in shim_sources()],
        include_dirs=[str(HERE)],
        libraries=["simavr", "m"],
        library_dirs=[a[2:] for a in _pkg_config("--libs") if a.startswith("-L")],
        # -ffp-contract=off: no fused multiply-add, so the noise kernels'
        # doubles are Python's, operation for operation, on every machine
        extra_compile_args=[
            "-O2",
            "-std=gnu11",
            "-ffp-contract=off",
            "-Wall",
            "-Wextra",
            "-Wno-unused-parameter",
        ],
    )
    return ffi


if os.environ.get("FAIRDIE_SKIP_SIMAVR_VERSION_CHECK") != "1":
    check_simavr_version(simavr_version())
ffibuilder = make_builder()

if __name__ == "__main__":
    ffibuilder.compile(verbose=True)
