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

_WARNINGS = ("-Wall", "-Wextra", "-Wno-unused-parameter")
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
        libraries=["simavr"],
        library_dirs=[a[2:] for a in _pkg_config("--libs") if a.startswith("-L")],
        extra_compile_args=["-O2", "-std=gnu11", *_WARNINGS],
    )
    return ffi


def make_kernels_builder() -> FFI:
    """``fairdie.sim._kernels``: the noise models' kernels, with libm only
    (no simavr), so the models work where the binding is not built."""
    ffi = FFI()
    ffi.cdef((HERE / "_noise_api.h").read_text())
    ffi.set_source(
        "fairdie.sim._kernels",
        '#include <stdint.h>\n#include "_noise_api.h"\n',
        sources=[_relative(HERE / "_noise_kernels.c")],
        include_dirs=[str(HERE)],
        libraries=["m"],
        # no fused multiply-add and no fast-math: each double is the one the
        # model's Python arithmetic gives, on every machine
        extra_compile_args=["-O2", "-std=gnu11", "-ffp-contract=off", "-fno-fast-math", *_WARNINGS],
    )
    return ffi


if os.environ.get("FAIRDIE_SKIP_SIMAVR_VERSION_CHECK") != "1":
    check_simavr_version(simavr_version())
ffibuilder = make_builder()
kernels_ffibuilder = make_kernels_builder()

if __name__ == "__main__":
    ffibuilder.compile(verbose=True)
    kernels_ffibuilder.compile(verbose=True)
