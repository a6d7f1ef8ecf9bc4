"""Types of the compiled noise kernels (built from _noise_api.h by _build.py).

Kept in step with _noise_api.h by tests/unit/test_sim_stub.py."""

from typing import Any

class _FFI:
    NULL: Any
    def new(self, cdecl: str, init: Any = ...) -> Any: ...
    def from_buffer(self, cdecl: str, python_buffer: Any = ...) -> Any: ...

ffi: _FFI

class _Lib:
    def fd_noise_bits53(self, s: Any) -> int: ...
    def fd_noise_random(self, s: Any) -> float: ...
    def fd_noise_floating(
        self,
        s: Any,
        target: float,
        pull: float,
        walk: float,
        jitter: float,
        vcc: float,
        out: Any,
        n: int,
    ) -> None: ...
    def fd_noise_uniform(self, s: Any, table: Any, out: Any, n: int) -> None: ...
    def fd_noise_biased(
        self, s: Any, cumulative: Any, len: int, last: int, table: Any, out: Any, n: int
    ) -> None: ...
    def fd_noise_weak(
        self, s: Any, upper: float, lo: float, hi: float, out: Any, n: int
    ) -> None: ...
    def fd_noise_hum(
        self,
        s: Any,
        start_s: float,
        since: Any,
        period_s: float,
        hz: float,
        amplitude: float,
        jitter: float,
        vcc: float,
        out: Any,
        n: int,
    ) -> None: ...

lib: _Lib
