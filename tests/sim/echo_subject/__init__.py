"""A subject of the tests' own, around the engine's echo firmware: a folder
(its board, its firmware target, a check, a fixture, a command) and one line
in fairdie.subjects.REGISTRY. Nothing in the core names it."""

from __future__ import annotations

from fairdie.subjects import Command, Subject

SUBJECT = Subject(
    name="echo",
    summary="an LED that follows a button (the engine's echo firmware)",
    commands={"echo-press": Command("press the echo board's button", "echo_subject.cli:main")},
    checks="echo_subject.checks:CHECKS",
    fixtures="echo_subject.fixtures",
)
