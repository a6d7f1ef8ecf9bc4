"""fairdie.debug: a GDB remote stub of our own, so avr-gdb can debug a
firmware running in the engine (``fairdie debug``).

- :class:`DebugServer` serves one :class:`~fairdie.sim.Chip` (and its
  device, for ``monitor`` commands) on 127.0.0.1, one gdb at a time;
- breakpoints, write watches and range steps are checked by the engine in
  C, so a ``continue`` runs at engine speed and sleep still fast-forwards;
- :mod:`fairdie.debug._rsp` is the packet framing (pure Python, no chip).

Importing this package does not load the compiled simavr binding; the
server does, when it is first used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fairdie.debug._stub import HOST, DebugServer

__all__ = ["HOST", "DebugServer", "debug_main"]


def debug_main(argv: list[str]) -> int:
    """``fairdie debug ...``: see :mod:`fairdie.debug._cli`."""
    from fairdie.debug._cli import debug_main as main

    return main(argv)


def __getattr__(name: str) -> Any:
    if name in ("HOST", "DebugServer"):
        from fairdie.debug import _stub

        return getattr(_stub, name)
    raise AttributeError(f"module 'fairdie.debug' has no attribute {name!r}")
