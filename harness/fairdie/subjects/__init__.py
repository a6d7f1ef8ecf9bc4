"""fairdie.subjects: the registry of subjects, the products fairdie ships tests for.

The core (chips, builds, boards, devices, stimuli, campaigns, verify, the
debugger, the plugin's generic fixtures and the generic commands) knows no
product. A subject is a folder beside this file holding everything about one
product: its firmware (``firmware/<target>/``), its boards (``boards/*.toml``),
its device class, reference models, checks, fixtures, suite and commands. It
describes itself with one :class:`Subject` value named ``SUBJECT`` in its
package.

The core finds subjects through :func:`registered` alone, and only at run
time: it imports no subject module by name (``make lint`` enforces this).
Folders are found without importing the subject, so a build, or a board with
no subject's section, never loads a product's Python. A new subject of ours
is a new folder plus one line in :data:`REGISTRY`; a subject in another
package registers itself with an entry point in the group
``fairdie.subjects`` (``name = "package.module"``).
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

__all__ = [
    "ENTRY_POINTS",
    "REGISTRY",
    "Command",
    "Subject",
    "board_folders",
    "board_sections",
    "command",
    "commands",
    "device_for",
    "firmware_folders",
    "load",
    "registered",
    "resolve",
    "subjects",
]

#: subject name -> its package; one line per subject
REGISTRY: dict[str, str] = {
    "die": "fairdie.subjects.die",
    "silver_dollar": "fairdie.subjects.silver_dollar",
}
#: where other packages register theirs
ENTRY_POINTS = "fairdie.subjects"


@cache
def _entry_points() -> tuple[tuple[str, str], ...]:
    from importlib.metadata import entry_points

    return tuple((e.name, e.value) for e in entry_points(group=ENTRY_POINTS))


def registered() -> dict[str, str]:
    """Subject name -> package: :data:`REGISTRY`, then the entry points
    (ours first: an entry point cannot replace one of ours)."""
    found = dict(_entry_points())
    found.update(REGISTRY)
    return found


@dataclass(frozen=True)
class Command:
    """A command a subject adds to ``fairdie``: ``main(argv) -> exit status``.

    ``main`` is ``"module:function"``, imported only when the command runs.
    """

    help: str
    main: str


@dataclass(frozen=True)
class Subject:
    """What one subject brings. Every field names code as ``"module:attr"``
    strings, loaded on first use, so listing subjects costs no imports."""

    name: str
    summary: str
    #: commands it adds to ``fairdie`` (``press``, ``lab``, ...)
    commands: Mapping[str, Command] = field(default_factory=dict)
    #: verify checks: ``"module:attr"`` of a sequence of :class:`fairdie.verify.Check` runners
    checks: str | None = None
    #: pytest plugin module with the subject's fixtures (loaded by the core plugin)
    fixtures: str | None = None
    #: board-file sections it adds: ``{"die": "module:parser"}``, each parser
    #: ``f(ctx, table, board) -> value`` (:func:`fairdie.board.parse_board` calls it)
    board_sections: Mapping[str, str] = field(default_factory=dict)
    #: ``"module:function"`` of ``f(setup) -> Device | None``: the subject's
    #: device for a setup whose board it claims (a board with a ``[die]`` table), else None
    device: str | None = None


def resolve(ref: str) -> Any:
    """The object a ``"module:attr"`` string names."""
    module, _, attr = ref.partition(":")
    obj: Any = importlib.import_module(module)
    for part in attr.split(".") if attr else ():
        obj = getattr(obj, part)
    return obj


@cache
def _folder(package: str) -> Path | None:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def _folders(sub: str) -> tuple[Path, ...]:
    out = []
    for package in registered().values():
        root = _folder(package)
        if root is not None and (root / sub).is_dir():
            out.append(root / sub)
    return tuple(out)


def board_folders() -> tuple[Path, ...]:
    """The subjects' ``boards/`` folders, in registry order."""
    return _folders("boards")


def firmware_folders() -> tuple[Path, ...]:
    """The subjects' ``firmware/`` folders (their build targets), in registry order."""
    return _folders("firmware")


def load(name: str) -> Subject:
    """The subject registered as ``name``."""
    package = registered()[name]
    subject = resolve(package + ":SUBJECT")
    if not isinstance(subject, Subject):
        raise TypeError(f"{package}.SUBJECT is not a Subject")
    return subject


def subjects() -> tuple[Subject, ...]:
    """Every registered subject (imports each subject's package)."""
    return tuple(load(name) for name in registered())


def commands() -> dict[str, tuple[Subject, Command]]:
    """Every subject's commands by name."""
    return {name: (s, c) for s in subjects() for name, c in s.commands.items()}


def command(name: str) -> Callable[[list[str]], int] | None:
    """The ``main`` of the subject command ``name``, or None."""
    found = commands().get(name)
    return None if found is None else resolve(found[1].main)


def board_sections() -> dict[str, tuple[str, str]]:
    """Section name -> (subject, ``"module:parser"``) of every subject's board sections."""
    return {k: (s.name, ref) for s in subjects() for k, ref in s.board_sections.items()}


def device_for(setup: Any) -> Any:
    """The device of the first subject that claims ``setup``'s board
    (a :class:`fairdie.device.Setup`), or None: then the core's Device serves."""
    for s in subjects():
        if s.device is not None:
            found = resolve(s.device)(setup)
            if found is not None:
                return found
    return None
