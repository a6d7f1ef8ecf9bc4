"""The ``fairdie`` command: the core's commands, then every subject's.

The core's commands work on any firmware and board (``build``, ``run``,
``trace``, ``verify``, ``debug``, and ``cov`` on the coverage files they
write); each subject adds its own through the registry
(:mod:`fairdie.subjects`), the die ``press``, ``roll``, ``demo``, ``lab``,
``faults`` and ``bench``. Every command parses its own arguments. Scripts depend on the
``--json`` outputs; every error is one line on stderr and a non-zero exit (2
for bad input, 130 for Ctrl-C, 143 for SIGTERM; 141, quietly, when the reader
of the output went away).
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from fairdie._cmdline import Parser, parser_once, run_command, run_stoppable

__all__ = ["CORE", "Entry", "main", "registry"]


@parser_once
def _build_parser() -> Parser:
    from fairdie.toolchain import add_build_arguments

    p = Parser(prog="fairdie build", description="Build a firmware target; print paths and sizes.")
    add_build_arguments(p)  # the same command as python -m fairdie.toolchain
    return p


def _build_main(argv: list[str]) -> int:
    from fairdie.toolchain import run_build_command

    return run_command(_build_parser(), argv, run_build_command)


def _verify_main(argv: list[str]) -> int:
    from fairdie.verify import verify_main

    return verify_main(argv)


def _run_main(argv: list[str]) -> int:
    from fairdie._run_cli import run_main

    return run_main(argv)


def _trace_main(argv: list[str]) -> int:
    from fairdie._trace import trace_main

    return trace_main(argv)


def _debug_main(argv: list[str]) -> int:
    from fairdie.debug import debug_main

    return debug_main(argv)


def _cov_main(argv: list[str]) -> int:
    from fairdie.coverage._cli import cov_main

    return cov_main(argv)


#: the core's commands: name -> (help, main)
CORE: dict[str, tuple[str, Callable[[list[str]], int]]] = {
    "build": ("build a firmware target and print its paths and sizes", _build_main),
    "run": ("run any firmware on its board for a time, until an event, or a scenario", _run_main),
    "trace": ("run as `run` does and write the run to a VCD file (--vcd)", _trace_main),
    "verify": ("check a build on its board in emulation before burning it", _verify_main),
    "debug": ("serve a firmware to avr-gdb (break, step, watch, monitor press)", _debug_main),
    "cov": ("merge firmware coverage files (--cov); report them as LCOV, XML, HTML", _cov_main),
}


@dataclass(frozen=True)
class Entry:
    """One command of ``fairdie``: its one line of help, what runs it, and
    the subject that adds it (None: the core's)."""

    help: str
    main: Callable[[list[str]], int]
    subject: str | None = None


def registry() -> dict[str, Entry]:
    """Every command of ``fairdie`` by name, the core's first, then each
    subject's: ``--help``, the unknown-command error and the dispatch all
    read this one table."""
    from fairdie.subjects import commands, resolve

    def lazy(ref: str) -> Callable[[list[str]], int]:
        return lambda argv: int(resolve(ref)(argv))

    found = {name: Entry(text, run) for name, (text, run) in CORE.items()}
    for name, (subject, cmd) in commands().items():
        found.setdefault(name, Entry(cmd.help, lazy(cmd.main), subject.name))
    return found


def _usage(every: dict[str, Entry]) -> str:
    from fairdie.subjects import subjects

    width = max(len(name) for name in every)
    lines = [
        "usage: fairdie [-v] COMMAND [ARGS...]   (fairdie COMMAND --help for its options)",
        "",
        "Cycle-accurate AVR test harness: your firmware on its board, in simavr.",
        "",
        "commands:",
    ]
    for name, e in every.items():
        tag = f" [{e.subject}]" if e.subject else ""
        lines.append(f"  {name:<{width}}  {e.help}{tag}")
    known = subjects()
    width = max((len(s.name) for s in known), default=0)
    lines += ["", "subjects (their commands are tagged):"]
    lines += [f"  {s.name:<{width}}  {s.summary}" for s in known]
    lines += ["", "options:", "  -v, --verbose  show simavr's own log on stderr (-vv: all of it)"]
    return "\n".join(lines)


def _verbose(level: int) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("simavr: %(message)s"))
    log = logging.getLogger("fairdie.simavr")
    log.addHandler(handler)
    log.setLevel(logging.WARNING if level == 1 else logging.DEBUG)


@contextmanager
def _hypothesis_storage() -> Iterator[None]:
    """While a command runs (and in its workers), Hypothesis (the power-cut
    search) keeps its files in fairdie's cache folder, not in ``.hypothesis/``
    of the current folder, unless HYPOTHESIS_STORAGE_DIRECTORY says where."""
    key = "HYPOTHESIS_STORAGE_DIRECTORY"
    if os.environ.get(key):
        yield
        return
    from fairdie.toolchain._cache import default_cache_dir

    os.environ[key] = str(default_cache_dir() / "hypothesis")
    try:
        yield
    finally:
        os.environ.pop(key, None)


def main(argv: Sequence[str] | None = None) -> int:
    """``fairdie ARGV``: the exit status. However a command is stopped (Ctrl-C,
    SIGTERM, a closed pipe), it ends with at most one line, no traceback."""
    args = list(sys.argv[1:] if argv is None else argv)

    def body() -> int:
        with _hypothesis_storage():
            return _main(args)

    return run_stoppable(body)


def _main(argv: list[str]) -> int:
    verbose = 0
    while argv and argv[0] in ("-v", "-vv", "--verbose"):
        verbose += 2 if argv.pop(0) == "-vv" else 1
    every = registry()
    if not argv or argv[0] in ("-h", "--help"):
        print(_usage(every))
        return 0 if argv else 2
    if verbose:
        _verbose(verbose)
    name, rest = argv[0], argv[1:]
    if name in every:
        return every[name].main(rest)
    print(
        f"fairdie: error: no command {name!r} (commands: {', '.join(every)})",
        file=sys.stderr,
    )
    return 2


if __name__ == "__main__":
    sys.exit(main())
