"""Stopping a command: Ctrl-C is one line and exit 130, SIGTERM one line and
exit 143, and neither leaves a worker process or a resource tracker behind;
a reader that closes the pipe early ends it quietly.

Each case starts the real ``fairdie`` in a session of its own, waits until
its two workers run, signals it, and looks for every process it had started.

The suite runs one command per way of stopping it (each command and each
signal once); the rest of the cross-product is slow, and each of its cases
fails in the suite's case of the same command or the same signal.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

FAIRDIE = Path(sys.executable).with_name("fairdie")

COMMANDS = {
    "lab campaign": ["lab", "campaign", "--presses", "20000", "--jobs", "2"],
    "faults": ["faults", "--jobs", "2"],
    "verify": ["verify", "--board", "die-direct", "--jobs", "2"],
}
#: how the signal is sent: Ctrl-C at a terminal reaches the process group
HOW = {
    "ctrl-c": (signal.SIGINT, True, 130, "fairdie: interrupted"),
    "sigint": (signal.SIGINT, False, 130, "fairdie: interrupted"),
    "sigterm": (signal.SIGTERM, False, 143, "fairdie: terminated"),
}


def _as_from_a_terminal() -> None:
    """A child inherits an ignored or blocked SIGINT (this test process may
    have either from an earlier test): start the command as a shell would,
    with SIGINT at its default and unblocked."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _workers(proc: psutil.Process, timeout: float) -> list[psutil.Process]:
    """Every process ``proc`` started, once two of them are pool workers."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            kids = proc.children(recursive=True)
            workers = [k for k in kids if "--multiprocessing-fork" in k.cmdline()]
        except psutil.NoSuchProcess:  # a child came and went while listed
            continue
        if len(workers) >= 2:
            time.sleep(0.5)  # into their first pieces
            return proc.children(recursive=True)
        time.sleep(0.05)
    raise AssertionError("no two workers started")


def _alive(procs: list[psutil.Process]) -> list[str]:
    out = []
    for p in procs:
        try:
            if p.status() != psutil.STATUS_ZOMBIE:
                out.append(" ".join(p.cmdline()))
        except psutil.NoSuchProcess:
            pass
    return out


#: the suite's cases: every command once, every way of stopping once
FAST = {("lab campaign", "ctrl-c"), ("faults", "sigterm"), ("verify", "sigint")}


@pytest.mark.parametrize(
    ("command", "how"),
    [
        pytest.param(c, h, id=f"{c}-{h}", marks=() if (c, h) in FAST else pytest.mark.slow)
        for c in COMMANDS
        for h in HOW
    ],
)
def test_a_stopped_command_ends_its_workers(command: str, how: str) -> None:
    sig, group, code, line = HOW[how]
    p = subprocess.Popen(
        [str(FAIRDIE), *COMMANDS[command]],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, as a shell job is
        preexec_fn=_as_from_a_terminal,
    )
    try:
        started = _workers(psutil.Process(p.pid), timeout=120)
        assert any("resource_tracker" in " ".join(k.cmdline()) for k in started)
        t0 = time.monotonic()
        if group:
            os.killpg(p.pid, sig)
        else:
            p.send_signal(sig)
        _out, err = p.communicate(timeout=5)
        assert time.monotonic() - t0 < 5
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    assert (p.returncode, err) == (code, line + "\n")
    deadline = time.monotonic() + 5
    while _alive(started) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _alive(started) == []


@pytest.mark.parametrize(
    "argv",
    [
        [str(FAIRDIE), "press", "--count", "2", "--json"],
        [sys.executable, "-m", "fairdie.toolchain", "--target", "die_t13a", "--json"],
    ],
    ids=["fairdie-press", "python-m-fairdie.toolchain"],
)
def test_a_reader_that_stops_early_ends_it_quietly(argv: list[str]) -> None:
    """``fairdie press --json | head -c 20``: no BrokenPipeError, exit 141 as
    if SIGPIPE had ended it; the same for the build's own entry point."""
    r, w = os.pipe()
    p = subprocess.Popen(
        argv,
        stdout=w,
        stderr=subprocess.PIPE,
        text=True,
    )
    os.close(w)
    os.close(r)  # the reader is gone before anything was written
    _out, err = p.communicate(timeout=120)
    assert (p.returncode, err) == (141, "")
