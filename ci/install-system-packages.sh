#!/usr/bin/env bash
# Install the Debian/Ubuntu packages fairdie needs, and only those missing.
#
#   ci/install-system-packages.sh            the full set (what `make setup` runs)
#   ci/install-system-packages.sh PKG...     just these packages
#
# Checks each package with dpkg-query first, so a re-run with everything present
# costs almost nothing and needs no root. When something is missing it runs
# `apt-get update` once, then `apt-get install`, as root or through sudo.
#
# Environment:
#   PYTHON                      the interpreter `make setup` will use (default python3);
#                               its venv module and C headers come from python3-venv and
#                               python3-dev when it is the system's own Python
#   FAIRDIE_SKIP_SYSTEM_PACKAGES=1   check nothing, install nothing (other distros,
#                               or when you manage the packages yourself)
set -euo pipefail

if [[ "${FAIRDIE_SKIP_SYSTEM_PACKAGES:-0}" == 1 ]]; then
    echo "system packages: skipped (FAIRDIE_SKIP_SYSTEM_PACKAGES=1)"
    exit 0
fi

python=${PYTHON:-python3}

# AVR toolchain and debugger, simavr (1.6 on Debian bookworm) with its headers and
# pkg-config file, the host C compiler for the cffi extension, clang-format, lcov
# (its genhtml reads the coverage tracefiles in the tests), and
# Chromium, which the tests run headless to render fairdie verify's HTML report.
wanted=(
    gcc-avr avr-libc binutils-avr gdb-avr
    libsimavr-dev libelf-dev pkg-config
    gcc libc6-dev make
    clang-format
    lcov
    chromium
)

# The system Python lacks venv/ensurepip and its C headers unless python3-venv and
# python3-dev are installed. A Python of its own (pyenv, a tarball build) has both.
python_packages() {
    if ! command -v "$python" >/dev/null 2>&1; then
        echo python3 python3-venv python3-dev
        return
    fi
    local prefix
    prefix=$("$python" -c 'import sys; print(sys.base_prefix)' 2>/dev/null || true)
    [[ "$prefix" == /usr ]] || return 0
    "$python" -c 'import ensurepip, venv' >/dev/null 2>&1 || echo python3-venv
    "$python" -c '
import os, sys, sysconfig
sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))
' >/dev/null 2>&1 || echo python3-dev
}

if (($# > 0)); then
    wanted=("$@")
else
    read -r -a extra <<<"$(python_packages)"
    wanted+=("${extra[@]}")
fi

if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
    echo "error: no apt-get/dpkg-query (not Debian/Ubuntu): install ${wanted[*]} yourself, then rerun with FAIRDIE_SKIP_SYSTEM_PACKAGES=1" >&2
    exit 1
fi

missing=()
for pkg in "${wanted[@]}"; do
    status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
    [[ "$status" == "install ok installed" ]] || missing+=("$pkg")
done

if ((${#missing[@]} == 0)); then
    echo "system packages: all ${#wanted[@]} present"
    exit 0
fi

if [[ $(id -u) -eq 0 ]]; then
    as_root=(env)
elif command -v sudo >/dev/null 2>&1; then
    as_root=(sudo env)
else
    echo "error: missing packages (${missing[*]}) and neither root nor sudo: install them as root, then rerun" >&2
    exit 1
fi

echo "system packages: installing ${missing[*]}"
"${as_root[@]}" DEBIAN_FRONTEND=noninteractive apt-get update -q
"${as_root[@]}" DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -q -o Dpkg::Use-Pty=0 --no-install-recommends "${missing[@]}"
