;
; store.S: the ring of records (see store.h), in assembly because in C with
; avr-libc's EEPROM routines (avr-gcc 5.4 -Os) it took 452 bytes of the 1024,
; here 208. fairdie.subjects.die._ring is its Python codec, byte for byte and
; write for write.
;
; EEPROM bytes 0..59 hold 10 slots of 6 bytes; 60..63 are unused.
;   byte 0  seq: bit 7 the record's phase, the lap (0..7) in bits 4..6,
;           the slot's number (0..9) in bits 0..3
;   byte 1  table bits 0..7
;   byte 2  table bits 8..11 in bits 0..3, pool bits 8..11 in bits 4..7
;   byte 3  pool bits 0..7
;   byte 4  check: the XOR of bytes 0..3 and 0x5B
;   byte 5  gate: 0xA5 for phase 0, 0x5A for phase 1
; A slot is valid when its seq names the slot, its check matches and its
; gate is its phase's. A record's place is lap * 10 + slot, modulo 80; the
; newest valid record holds the state: the scan in slot order keeps a record
; 1..15 ahead of the one kept before it, as 7-bit seqs. The records a ring
; of saves holds are at most 9 places apart, 15 as seqs (a lap boundary
; skips 6), so the scan finds the newest; a wider window would take records
; left from laps ago, in any other bytes, for newer ones, and a save could
; then never become the newest.
;
; A save writes the slot after the newest, each byte at most once, in
; order 0, 1, .., 5, with the phase opposite to the gate the slot holds. So
; a power cut, whatever value it leaves in the byte being written, leaves
; the state before the save or after it:
; - the seq goes first: a torn seq passes only as the slot's old record:
;   the gate is the old phase's, and the check, one-to-one in the seq,
;   names the old seq;
; - the state and then the check go next: while they are written, the
;   seq's phase and the gate disagree, so no value of theirs passes;
; - the gate goes last: only its write can make the slot pass, and only
;   with every other byte already new.
; A gate is written only as a save's last byte, so a gate that names a
; phase always sits on bytes 1..4 of the record it completed, or on the
; half-written bytes of a save whose seq already has the other phase: a
; later save with the same seq rewrites only what differs, still invalid.
; (A check and a phase bit in one byte would not do: a torn marker could
; name the new phase with a wrong check, and then a torn seq or byte of the
; next save could match it.)
;
; A byte that already holds its value is not written (as avr-libc's
; eeprom_update_byte, which this replaces): fewer writes, less wear, and
; the model's save_writes lists exactly the writes made. Each write is an
; erase and write in one operation (EEPM = 00), started by EEMPE and then
; EEPE within 4 cycles, with interrupts off around the pair; the next
; access waits until EEPE is clear, and store_save returns only when the
; last write is done, so a face that is shown is never lost.
;
; Registers (avr-gcc ABI: only call-clobbered ones, r1 stays 0): X points
; into store_record, r30 is the EEPROM address, r24 the byte read there,
; r22 the check, r23 the seq, r25 the slot, r18..r21 scratch; in the load,
; T says a record was found, r19 holds its seq.

#include <avr/io.h>

#include "store.h"

#define CHECK_KEY 0x5B /* neither an erased nor a zeroed slot is valid */
#define GATE_0 0xA5
#define GATE_1 0x5A
#define FRESH_SEQ ((STORE_LAPS - 1) << 4 | (STORE_SLOTS - 1)) /* the next: lap 0, slot 0 */

    .file "store.S"         ; else the object's own path names it in the ELF

; void store_load(void): the newest valid record into store_record, or a
; fresh state (seq FRESH_SEQ, table 0, pool 0: 1) if none is valid.
    .section .text.store_load, "ax", @progbits
    .global store_load
    .type store_load, @function
store_load:
    ldi r26, lo8(store_record)
    ldi r27, hi8(store_record)
    ldi r24, FRESH_SEQ
    st X+, r24
    st X+, r1
    st X+, r1
    st X, r1
    clt                     ; nothing found yet
    clr r30                 ; slot 0's first byte
    clr r25
.Lslot:
    ldi r22, CHECK_KEY
    rcall ee_read           ; seq
    mov r23, r24
    ldi r18, STORE_RECORD - 1
1:
    rcall ee_read           ; bytes 1..5: r22 = check(r) ^ r[4] ^ r[5]
    dec r18
    brne 1b
    mov r18, r23
    andi r18, 0x0F
    cp r18, r25
    brne .Lnext             ; the seq names another slot
    cp r22, r24
    brne .Lnext             ; r22 ^ r[5] != 0: the check does not match
    sbrc r23, 7
    com r24                 ; phase 1: GATE_1 = ~GATE_0
    cpi r24, GATE_0
    brne .Lnext             ; not the gate of the seq's phase
    brtc .Ltake             ; the first valid record
    mov r18, r23            ; newer: 1..15 ahead as 7-bit seqs
    sub r18, r19
    andi r18, 0x7F
    breq .Lnext
    cpi r18, 16
    brsh .Lnext
.Ltake:
    set
    mov r19, r23
    subi r30, STORE_RECORD  ; read the record again, into store_record
    ldi r26, lo8(store_record)
2:
    rcall ee_read
    st X+, r24
    cpi r26, lo8(store_record + STORE_RECORD)
    brne 2b
.Lnext:
    inc r25
    cpi r25, STORE_SLOTS
    brne .Lslot
    ret
    .size store_load, . - store_load

; void store_save(void): store_record's state (bytes 1..3) as the next
; record: seq, check and gate into store_record, then bytes 0..5 into the
; slot in order, each only if it differs; returns when EEPROM is idle.
    .section .text.store_save, "ax", @progbits
    .global store_save
    .type store_save, @function
store_save:
    ldi r26, lo8(store_record)
    ldi r27, hi8(store_record)
    ld r23, X               ; the newest seq (its phase bit goes below)
    inc r23
    mov r25, r23
    andi r25, 0x0F          ; the slot after the newest
    cpi r25, STORE_SLOTS
    brne 1f
    subi r23, -(16 - STORE_SLOTS) ; the next lap's slot 0
    clr r25
1:
    andi r23, 0x7F
    mov r30, r25
    add r30, r30
    add r30, r25
    add r30, r30            ; the slot's first byte: slot * 6
    subi r30, -(STORE_RECORD - 1)
    rcall ee_read           ; the slot's gate
    subi r30, STORE_RECORD
    ldi r21, GATE_0
    cpi r24, GATE_1
    breq 2f                 ; phase 0 if the slot's gate is phase 1's,
    ori r23, 0x80           ; else phase 1
    ldi r21, GATE_1
2:
    st X+, r23              ; seq
    ldi r22, CHECK_KEY
    eor r22, r23
    ldi r18, 3
3:
    ld r24, X+              ; the state
    eor r22, r24
    dec r18
    brne 3b
    st X+, r22              ; check
    st X, r21               ; gate
    subi r26, STORE_RECORD - 1
.Lbyte:
    ld r20, X+
    rcall ee_read           ; the byte there now; EEARL keeps its address
    cp r24, r20
    breq 4f                 ; unchanged: no write
    out _SFR_IO_ADDR(EECR), r1 ; EEPM = 00: erase and write
    out _SFR_IO_ADDR(EEDR), r20
    in r0, _SFR_IO_ADDR(SREG)
    cli
    sbi _SFR_IO_ADDR(EECR), EEMPE
    sbi _SFR_IO_ADDR(EECR), EEPE ; within 4 cycles of EEMPE
    out _SFR_IO_ADDR(SREG), r0
4:
    cpi r26, lo8(store_record + STORE_RECORD)
    brne .Lbyte
5:
    sbic _SFR_IO_ADDR(EECR), EEPE
    rjmp 5b                 ; until the last write is done
    ret
    .size store_save, . - store_save

; ee_read: r24 = EEPROM[r30] once no write is under way, r22 ^= r24, r30 += 1.
    .section .text.store_ee_read, "ax", @progbits
ee_read:
    sbic _SFR_IO_ADDR(EECR), EEPE
    rjmp ee_read
    out _SFR_IO_ADDR(EEARL), r30
    sbi _SFR_IO_ADDR(EECR), EERE
    in r24, _SFR_IO_ADDR(EEDR)
    eor r22, r24
    inc r30
    ret
    .size ee_read, . - ee_read
