"""cffi build script for ``fairdie.sim._simavr`` (API mode, built at install).

The C boundary lives in three files side by side: this script, ``_shim.h``
(which is also the cdef) and ``_shim.c``. They link the system libsimavr 1.6
(Debian: libsimavr-dev). Nothing generated is committed: ``pip install`` runs
this through setup.py's ``cffi_modules``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from cffi import FFI

HERE = Path(__file__).resolve().parent


def _cdef() -> str:
    """The shim header minus the preprocessor lines cffi does not parse."""
    keep = []
    for line in (HERE / "_shim.h").read_text().splitlines():
        s = line.strip()
        if s.startswith(("#ifndef", "#endif", "#include", "#define FAIRDIE_SHIM_H")):
            continue
        if s.startswith("#define"):
            line = line.split("/*")[0]
        keep.append(line)
    keep.append('extern "Python+C" int fd_py_adc(void *handle, int channel);')
    return "\n".join(keep)


def _pkg_config(*args: str) -> list[str]:
    if shutil.which("pkg-config") is None:
        return []
    r = subprocess.run(["pkg-config", *args, "simavr"], capture_output=True, text=True)
    return r.stdout.split() if r.returncode == 0 else []


def _relative(path: Path) -> str:
    # setuptools wants sources relative to setup.py's directory
    try:
        return os.path.relpath(path)
    except ValueError:
        return str(path)


ffibuilder = FFI()
ffibuilder.cdef(_cdef())
ffibuilder.set_source(
    "fairdie.sim._simavr",
    '#include "_shim.h"\n',
    sources=[_relative(HERE / "_shim.c")],
    include_dirs=[str(HERE)],
    libraries=["simavr"],
    library_dirs=[a[2:] for a in _pkg_config("--libs") if a.startswith("-L")],
    extra_compile_args=["-O2", "-std=gnu11", "-Wall", "-Wextra", "-Wno-unused-parameter"],
)

if __name__ == "__main__":
    ffibuilder.compile(verbose=True)
