"""fairdie debug: our GDB remote stub, driven by the real avr-gdb in batch mode.

Each test starts a stub on port 0 in a thread over a fresh die (powered on,
halted at its reset vector) and runs ``avr-gdb -batch -nx`` against it.
gdb's answers are read through its Python API (``python print(...)``) where
a value matters, and the chip itself is checked after gdb has gone. The
framing tests at the end need neither gdb nor the chip. The engine under the
debugger is in test_debug_engine.py, the command line and ``monitor press`` on
any board in test_debug_cli.py.
"""

from __future__ import annotations

import re
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Iterator

import pytest

from fairdie.debug._rsp import INTERRUPT, Kind, PacketReader, checksum, escape, frame, unescape

AVR_GDB = shutil.which("avr-gdb")
needs_gdb = pytest.mark.skipif(AVR_GDB is None, reason="avr-gdb is not installed (gdb-avr)")

# one line per stop, from gdb's Python API: function, source line, PC
WHERE = 'python f = gdb.selected_frame(); print("WHERE", f.name(), f.find_sal().line, hex(f.pc()))'


class Stub:
    """A die under the stub, served from a thread."""

    def __init__(self) -> None:
        from fairdie.debug import DebugServer
        from fairdie.subjects.die import Die

        self.die = Die(seed=1)
        self.chip = self.die.chip
        self.die.power_on()
        self.elf = str(self.chip.firmware.path)
        self.server = DebugServer(self.chip, self.die, port=0, log=lambda line: None)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def gdb(self, *commands: str, timeout: float = 20) -> str:
        """Run avr-gdb in batch mode with these commands; its whole output."""
        r = subprocess.run(self.argv(*commands), capture_output=True, text=True, timeout=timeout)
        return r.stdout + r.stderr

    def argv(self, *commands: str) -> list[str]:
        assert AVR_GDB is not None
        args = [AVR_GDB, "-batch", "-nx", "-ex", f"target remote :{self.server.port}"]
        for c in commands:
            args += ["-ex", c]
        return [*args, self.elf]

    def close(self) -> None:
        self.server.close()
        self.thread.join(5)


@pytest.fixture
def stub() -> Iterator[Stub]:
    s = Stub()
    yield s
    s.close()


def wheres(out: str) -> list[tuple[str, int, int]]:
    return [
        (f, int(line), int(pc, 16)) for f, line, pc in re.findall(r"WHERE (\S+) (\d+) (\S+)", out)
    ]


def values(out: str, tag: str) -> list[str]:
    return re.findall(rf"^{tag} (.*)$", out, flags=re.M)


# ---- avr-gdb against the stub --------------------------------------------------------


@needs_gdb
def test_break_at_a_function_and_continue(stub):
    chip = stub.chip
    t0 = time.perf_counter()
    out = stub.gdb("break fair_roll", "break store_save", "continue", WHERE, "continue", WHERE)
    wall = time.perf_counter() - t0
    (f1, _, pc1), (f2, _, pc2) = wheres(out)
    assert (f1, pc1) == ("fair_roll", chip.symbol("fair_roll").address)
    assert f2 == "store_save" and pc2 >= chip.symbol("store_save").address
    assert "Breakpoint 1, fair_roll" in out and "Breakpoint 2, store_save" in out
    assert chip.pc == pc2  # the chip stays where gdb left it
    assert stub.server.target.breakpoints == []  # gdb removed them; the session cleared
    assert wall < 10


@needs_gdb
def test_stepi_runs_one_instruction(stub):
    chip = stub.chip
    ((_, _, at_main),) = wheres(stub.gdb("break main", "continue", WHERE))
    before = chip.cycle
    out = stub.gdb(WHERE, "stepi", WHERE, "stepi", WHERE)
    pcs = [pc for _, _, pc in wheres(out)]
    assert pcs[0] == at_main
    # main begins with one-word instructions that do not branch (ldi/out)
    assert pcs[1:] == [at_main + 2, at_main + 4]
    assert chip.cycle - before in (2, 3, 4)  # two instructions of one or two cycles


@needs_gdb
def test_step_and_next_by_line(stub):
    out = stub.gdb(
        "break store_load", "continue", "finish", WHERE, "step", WHERE, "step", WHERE,
        "delete", "break store_save", "continue", WHERE, "next", WHERE, "next", WHERE,
    )  # fmt: skip
    (f0, _, _), (f1, _, _), (f1b, _, _), (f2, l2, _), (f3, l3, _), (f4, l4, _) = wheres(out)
    # finish returns from store_load to main; step goes to the next line (the
    # health test's verdict), then enters the roll it calls
    assert f0 == f1 == "main" and f1b == "fair_roll"
    # next: line by line inside store_save
    assert f2 == f3 == f4 == "store_save" and l2 < l3 < l4


@needs_gdb
def test_print_and_set_a_variable(stub):
    chip = stub.chip
    out = stub.gdb(
        "break store_save",
        "continue",
        'python v = gdb.parse_and_eval("store_record")',
        'python print("REC", [int(v[i]) for i in range(6)])',
        "set var wdt_ticks = 7",
        'python print("TICKS", int(gdb.parse_and_eval("wdt_ticks")))',
    )
    (rec,) = values(out, "REC")
    assert eval(rec) == list(chip.read_symbol("store_record"))  # SRAM at 0x800000 + address
    assert values(out, "TICKS") == ["7"] and chip.read_var("wdt_ticks") == 7


@needs_gdb
def test_examine_eeprom_and_io_registers(stub):
    chip = stub.chip
    chip.write_eeprom(0, bytes(range(0x10, 0x18)))
    out = stub.gdb(
        "x/8xb 0x810000",
        "break sleep_until",
        "continue",
        'python print("PORTB", int(gdb.parse_and_eval("*(unsigned char *) 0x800038")))',
        'python print("DDRB", int(gdb.parse_and_eval("*(unsigned char *) 0x800037")))',
        'python print("SREG", int(gdb.parse_and_eval("$SREG")))',
    )
    first = re.search(r"0x810000.*?:\s+((?:0x[0-9a-f]{2}\s*){8})", out)
    assert first is not None, out
    assert [int(b, 16) for b in first.group(1).split()] == list(range(0x10, 0x18))
    ddr, port, _ = chip.port_regs("B")
    assert values(out, "PORTB") == [str(port)] and port != 0  # the face is lit
    assert values(out, "DDRB") == [str(ddr)] == ["15"]
    assert values(out, "SREG") == [str(chip.read_io("SREG"))]


@needs_gdb
def test_watchpoint_on_an_sram_variable(stub):
    chip = stub.chip
    out = stub.gdb(
        "break sleep_until", "continue", "delete", "watch wdt_ticks",
        "continue", WHERE, "continue", WHERE,
    )  # fmt: skip
    assert "Hardware watchpoint 2: wdt_ticks" in out  # answered with Z2, not single steps
    assert re.search(r"Old value = 0 .*\n.*New value = 1 ", out)
    assert re.search(r"Old value = 1 .*\n.*New value = 2 ", out)
    # each stop right after the write, in the watchdog's ISR
    assert [f for f, _, _ in wheres(out)] == ["__vector_8", "__vector_8"]
    assert chip.read_var("wdt_ticks") == 2


@needs_gdb
def test_detach_and_attach_again(stub):
    first = stub.gdb("break store_save", "continue", WHERE, "detach")
    assert "detached" in first
    second = stub.gdb(WHERE, "break fair_roll", "kill")
    assert wheres(first)[0] == wheres(second)[0]  # the chip waited where it was left
    third = stub.gdb(WHERE, "monitor status")  # kill ends the session like detach
    assert wheres(third)[0] == wheres(first)[0] and "powered, cycle" in third
    assert stub.server.sessions == 3
    assert stub.server.target.breakpoints == []


@needs_gdb
def test_ctrl_c_interrupts_a_continue(stub):
    target = stub.server.target
    gdb = subprocess.Popen(
        stub.argv("continue", WHERE, "monitor status"),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 10
        while target.cycles_run < 1_000_000 and time.monotonic() < deadline:
            time.sleep(0.02)  # until the chip runs under gdb's continue
        assert target.cycles_run >= 1_000_000
        gdb.send_signal(signal.SIGINT)  # gdb passes it on as 0x03
        out, _ = gdb.communicate(timeout=10)
    finally:
        gdb.kill()
    assert "Program received signal SIGINT" in out
    assert len(wheres(out)) == 1 and "powered, cycle" in out


@needs_gdb
def test_monitor_commands_drive_the_die(stub):
    from fairdie.noise import code_for_mv

    die, chip = stub.die, stub.chip
    out = stub.gdb(
        "monitor power off",
        "continue",
        "monitor power on",
        "maint flush register-cache",
        WHERE,
        "monitor noise stuck:1500",
        "monitor press",
        "monitor frobnicate",
    )
    assert "powered off at cycle" in out
    assert "Program received signal SIGPWR" in out  # nothing runs without power
    assert wheres(out)[0][2] == 0  # a power-on reset
    assert "noise stuck:1500 on ADC2" in out
    # a stuck pin fails the health tests: the press shows the fault pattern
    (press,) = re.findall(r"press 1: display '(\w+)'", out)
    assert chip.powered and die.display() == press == "fault"
    stuck = code_for_mv(1500, chip.vcc_mv)
    assert chip.adc_codes() and set(chip.adc_codes()) == {stuck}
    unknown = [line for line in out.splitlines() if "frobnicate" in line]
    assert unknown == ["monitor: unknown command 'frobnicate': try `monitor help`"]


@needs_gdb
def test_read_watches_are_refused_cleanly(stub):
    out = stub.gdb("rwatch wdt_ticks", "continue", WHERE)
    assert re.search(r"(Could not insert|does not support|Cannot).*watchpoint", out, re.I)
    assert stub.thread.is_alive()


# ---- packet framing (no chip, no gdb) ----------------------------------------------------


def test_checksum_and_frame():
    assert checksum(b"") == 0 and checksum(b"OK") == 0x9A
    assert frame(b"OK") == b"$OK#9a"
    assert frame(b"qSupported") == b"$qSupported#37"


def test_escape_round_trip():
    raw = bytes(range(256))
    esc = escape(raw)
    assert not set(b"$#*").intersection(esc)
    assert esc.count(b"}") == 4  # each of $ # } * once, as } and byte ^ 0x20
    assert unescape(esc) == raw
    assert frame(b"a$b") == b"$a}\x04b#" + b"%02x" % checksum(b"a}\x04b")


def test_reader_acks_good_packets_and_nacks_bad_checksums():
    r = PacketReader()
    items = r.feed(b"+$g#67$m0,4#00")
    assert [i.kind for i in items] == [Kind.ACK, Kind.PACKET]
    assert items[1].payload == b"g"
    assert r.take_acks() == b"+-"  # the second packet's checksum is wrong
    assert r.bad_packets == 1


def test_reader_joins_split_packets_and_sees_interrupts():
    r = PacketReader()
    wire = frame(b"vCont;c") + bytes([INTERRUPT]) + frame(b"X800060,2:#$")
    got = [i for chunk in (wire[:3], wire[3:11], wire[11:]) for i in r.feed(chunk)]
    assert [i.kind for i in got] == [Kind.PACKET, Kind.INTERRUPT, Kind.PACKET]
    assert got[0].payload == b"vCont;c"
    assert got[2].payload == b"X800060,2:#$"  # binary data unescaped
    assert r.take_acks() == b"++"


def test_reader_without_acks_and_with_noise():
    r = PacketReader()
    r.ack_mode = False
    items = r.feed(b"garbage$?#3f$bad#00")
    assert [i.payload for i in items] == [b"?"]
    assert r.take_acks() == b"" and r.bad_packets == 1
