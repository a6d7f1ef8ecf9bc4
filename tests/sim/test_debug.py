"""fairdie debug: our GDB remote stub, driven by the real avr-gdb in batch mode.

Each test starts a stub on port 0 in a thread over a fresh die (powered on,
halted at its reset vector) and runs ``avr-gdb -batch -nx`` against it.
gdb's answers are read through its Python API (``python print(...)``) where
a value matters, and the chip itself is checked after gdb has gone. The
framing tests at the end need neither gdb nor the chip.
"""

from __future__ import annotations

import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

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


# ---- the engine under the debugger ------------------------------------------------


def test_a_breakpoint_after_seconds_of_sleep_costs_no_wall_time():
    from fairdie.debug._target import Target
    from fairdie.subjects.die import Die

    die = Die(seed=1)
    chip = die.chip
    die.power_on()
    target = Target(chip)
    target.add_break(chip.symbol("store_save").address)
    never = lambda: False  # noqa: E731
    target.resume(never)  # the press's save
    t0 = time.perf_counter()
    target.resume(never)  # the clear's save, after 155 watchdog ticks of sleep
    wall = time.perf_counter() - t0
    assert chip.pc == chip.symbol("store_save").address
    assert 9.9 < chip.cycles_powered / chip.frequency < 10.0
    assert chip.sleep_steps < 400  # fast-forwarded: a few steps per tick
    assert wall < 1.0


def test_a_run_without_breakpoints_is_not_checked_per_instruction():
    # the debugger asks the engine for no PC stop when nothing is armed, so
    # the run batches; with a breakpoint it checks every instruction in C
    from fairdie.debug._target import Target
    from fairdie.subjects.die import Die

    chip = Die(seed=1).chip
    seen: list[object] = []
    run = chip.run

    def spy(*args: object, **kw: object) -> object:
        seen.append(kw.get("until"))
        return run(*args, **kw)

    chip.run = spy
    chip.power_on()
    target = Target(chip)
    stop = target.resume(lambda: len(seen) > 3)
    assert stop.signal == 2 and seen and all(u is None for u in seen)
    target.add_break(chip.symbol("store_save").address)
    seen.clear()
    chip.power_off()
    chip.power_on()
    target.resume(lambda: False)
    assert seen and all(u is not None for u in seen)


def _powered_die():
    from fairdie.debug._target import Target
    from fairdie.subjects.die import Die

    die = Die(seed=1)
    die.power_on()
    return die.chip, Target(die.chip)


def _pc_trace(chip, n: int) -> list[int]:
    """The PC before each of ``n`` instructions, one run per instruction
    (polling loops run pass by pass, as they do while breakpoints are set)."""
    pcs = []
    chip.skip_polling = False
    for _ in range(n):
        pcs.append(chip.pc)
        chip.run(1)
    chip.skip_polling = True
    return pcs


def test_breakpoints_stop_at_each_arrival_as_a_step_trace_says():
    chip, target = _powered_die()
    snap = chip.snapshot()
    trace = _pc_trace(chip, 3000)  # the press: ADC, store_load, fair_roll, store_save
    chip.restore(snap)
    # pairs of addresses that share a slot of the engine's filter ((pc >> 1) & 255)
    breaks = {b for a in trace[100::97] for b in (a, a ^ 0x200)}
    for b in breaks:
        target.add_break(b)
    want = [pc for pc in trace[1:] if pc in breaks][:40]
    stops = []
    for _ in want:
        target.resume(lambda: False)
        stops.append(chip.pc)
    assert stops == want


def test_watch_stops_match_the_bytes_changing():
    chip, target = _powered_die()
    rec = chip.symbol("store_record")
    snap = chip.snapshot()
    changes = []
    before = chip.read_data(rec.address, rec.size)
    for _ in range(40_000):
        chip.run(1)
        now = chip.read_data(rec.address, rec.size)
        if now != before:
            changes.append(chip.cycle)
        before = now
    chip.restore(snap)
    target.add_watch(0x800000 + rec.address, rec.size)
    stops = []
    while chip.cycle < changes[-1]:
        stop = target.resume(lambda: False)
        assert stop.watch == 0x800000 + rec.address
        stops.append(chip.cycle)
    assert stops == changes and len(changes) > 6


def test_stepi_from_sleep_stops_at_the_vector_that_wakes_it():
    from fairdie.sim import EventKind, Until

    chip, target = _powered_die()
    chip.run(seconds=1, until=Until.event(EventKind.SLEEP))
    assert chip.sleeping
    stop = target.step(lambda: False)
    assert stop.signal == 5 and not chip.sleeping
    assert chip.pc == 8 * 2  # WDT_vect, vector 8 of the ATtiny13A (one word each)


def test_a_range_step_runs_an_interrupt_whole_unless_it_breaks_inside():
    from fairdie.sim import EventKind, Until

    chip, target = _powered_die()
    chip.run(seconds=1, until=Until.event(EventKind.SLEEP))
    after_sleep, ticks = chip.pc, chip.read_var("wdt_ticks")
    snap = chip.snapshot()
    stop = target.resume(lambda: False, step_range=(after_sleep - 2, after_sleep + 2))
    assert stop.signal == 5 and chip.read_var("wdt_ticks") == ticks + 1
    assert not after_sleep - 2 <= chip.pc < after_sleep + 2  # left the range, not in the ISR
    assert chip.pc > chip.symbol("__vector_8").address + chip.symbol("__vector_8").size
    chip.restore(snap)
    target.add_break(chip.symbol("__vector_8").address)
    target.resume(lambda: False, step_range=(after_sleep - 2, after_sleep + 2))
    assert chip.pc == chip.symbol("__vector_8").address


# ---- the command line ------------------------------------------------------------------


def _sigint_as_from_a_terminal() -> None:
    """A child inherits an ignored or blocked SIGINT (Python then installs no
    KeyboardInterrupt for it), as some of the test process's libraries may leave it:
    start the command as a terminal would, with SIGINT at its default and unblocked."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def test_cli_listens_on_loopback_and_says_how_to_connect():
    proc = subprocess.Popen(
        [sys.executable, "-m", "fairdie.cli", "debug", "--board", "die-direct", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_sigint_as_from_a_terminal,
    )
    try:
        assert proc.stdout is not None
        lines = [proc.stdout.readline() for _ in range(3)]
        m = re.search(r"listening on 127\.0\.0\.1:(\d+)", lines[1])
        assert m, lines
        port = int(m.group(1))
        assert re.search(rf"avr-gdb \S+die\.elf .*-ex 'target remote :{port}'", lines[2])
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
            s.sendall(frame(b"?"))
            assert s.recv(1) == b"+"
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=10) == 130
        assert proc.stderr is not None and proc.stderr.read() == "fairdie: interrupted\n"
    finally:
        proc.kill()


def test_cli_port_in_use_is_one_line_and_exit_2(capsys):
    from fairdie.cli import main

    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        rc = main(["debug", "--board", "die-direct", "--port", str(port)])
    err = capsys.readouterr().err
    assert rc == 2
    assert err.count("\n") == 1 and err.startswith(f"fairdie: error: port {port} on 127.0.0.1")


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["debug", "/no/such/die.elf"], "no such firmware file"),
        (["debug", "--port", "70000"], "out of range"),
        (["debug", "--bogus"], "unrecognized arguments"),
        (["debug", "--port", "0"], "give a FIRMWARE (ELF or HEX) or a --board"),
        (["debug", "--mcu", "attiny85"], "give a FIRMWARE (ELF or HEX) or a --board"),
        (["debug", "--board", "die-direct", "--mcu", "attiny85"], "--mcu goes without --board"),
        (["debug", "--board", "/no/such/board.toml"], "no such board file"),
    ],
)
def test_cli_bad_input_is_one_line_and_exit_2(capsys, tmp_path, argv, says):
    from fairdie.cli import main

    rc = main(argv)
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and err.startswith("fairdie: error: ")
    assert says in err


def test_cli_garbage_firmware_is_one_line(capsys, tmp_path):
    from fairdie.cli import main

    bad = tmp_path / "die.hex"
    bad.write_text(":zz\n")
    rc = main(["debug", str(bad), "--port", "0"])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and err.startswith("fairdie: error: ")


# ---- monitor press on any board (no gdb) ------------------------------------------------


def _button_setup(tmp_path: Path, build: Callable[..., Any], *, die: bool) -> Any:
    """The button die's firmware on its board: with its ``[die]`` table (the
    die subject claims it: a Die) or without (the core's Device)."""
    from fairdie.device import Setup
    from fairdie.toolchain import firmware_dir

    text = (firmware_dir() / "tests" / "button_die" / "board.toml").read_text()
    board = tmp_path / "board.toml"
    board.write_text(text if die else text.split("\n[die]\n")[0] + "\n")
    return Setup.make(build("button_die").hex, board=board)


def test_monitor_press_names_any_board_button(tmp_path, build_test_firmware):
    from fairdie.debug._monitor import Monitor
    from fairdie.device import Device
    from fairdie.subjects.die import Die

    dev = _button_setup(tmp_path, build_test_firmware, die=False).device()
    assert type(dev) is Device  # no subject claims a board without a [die] table
    dev.power_on()
    dev.chip.run(seconds=0.05)
    monitor = Monitor(dev.chip, dev)
    before = dev.chip.cycle
    answer = monitor.run("press roll 0.3")
    assert dev.chip.cycle - before >= dev.chip.cycles_for(0.3)
    face = dev.read("face")
    assert face in "123456" and len(face) == 1  # the press rolled a face
    lit = ", ".join(sorted(dev.lit()))
    assert answer.startswith(f"pressed roll for 0.3 s: LEDs lit: {lit}; face {face!r}; cycle ")
    # its only button needs no name; the default hold is 0.2 s
    assert monitor.run("press").startswith("pressed roll for 0.2 s: LEDs lit: ")
    assert not isinstance(dev, Die) and dev.chip.powered
    assert monitor.run("press nope") == (
        "monitor press: board button-die has no button 'nope' (buttons: roll)\n"
    )
    assert monitor.run("press roll soon") == "monitor press: not a number of seconds: 'soon'\n"
    assert monitor.run("press roll 0").startswith("monitor press: hold 0.0 s is out of range")
    assert monitor.run("press roll 1 2").startswith("monitor press: say `monitor press [NAME")


def test_monitor_press_without_a_name_is_the_devices_own(tmp_path, build_test_firmware):
    """A die presses its own way (``debug_press``); a named button still presses."""
    from fairdie.debug._monitor import Monitor
    from fairdie.subjects.die import Die

    die = _button_setup(tmp_path, build_test_firmware, die=True).device()
    assert isinstance(die, Die)
    die.power_on()
    monitor = Monitor(die.chip, die)
    answer = monitor.run("press")
    assert die.presses == 1
    assert answer.startswith(f"press 1: face {die.display()}, display {die.display()!r}")
    assert monitor.run("press roll 0.2").startswith("pressed roll for 0.2 s: LEDs lit: ")
    assert die.presses == 1  # a named press is the board's button, not the die's roll


def test_monitor_press_without_a_board_says_so(make_chip):
    from fairdie.debug._monitor import Monitor

    answer = Monitor(make_chip("ctc")).run("press")
    assert (
        answer == "monitor press: no board here: run fairdie debug with --board to press buttons\n"
    )


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
