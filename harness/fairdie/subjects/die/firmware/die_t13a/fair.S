;
; fair.S: the noise source's health tests and the fair rule (see fair.h and
; the banner of main.c), in assembly: in C (avr-gcc 5.4 -Os) the rule alone
; took 386 bytes of the 1024.
;
; Chance comes from two sources combined: fresh unbiased bits from the
; floating pin (fair_sample: von Neumann over the codes' low bits, after the
; health tests of fair.h) and a 12-bit LFSR pool kept in EEPROM. Each bit
; drawn is the pool's next output bit XOR the next fresh bit while they
; last, and that fresh bit is also fed into the pool. A press rolls only
; with FAIR_BITS fresh bits, so a player who knows the firmware, the pool
; and every face before can do no better than the rule's weights (about
; 1 draw in 14 needs more bits: the pool's, after the fresh ones were fed
; into it). A dead, stuck or railed pin, or one that rarely changes, fails
; the health tests and the die shows the fault pattern instead of a face.
; What no health test can see: a signal that keeps changing its low bit in
; a fixed pattern is predictable to whoever knows the pattern. The measured
; figures for each kind of player: README, "Who can predict the die".
;
; A face's weight is 8, 3 or 1 when its offset above the least-counted face
; is 0, 1 or 2, and none at 3: no face ever gets more than 3 ahead of
; another (once the table is so), and no face waits long. The weights are
; the measured trade-off (README: "Choosing the rule"). The draw is uniform
; over the total weight by rejection, without modulo bias: k bits make a
; value below 2^k, and one not below the total is dropped for k new bits.
;
; fair_sample, as fairdie.subjects.die._fair.sample models it, code i from 0:
;   - a pair (codes 2j, 2j+1) whose low bits differ gives the first's:
;     noise = noise << 1 | bit (16 bits kept), bits += 1;
;   - repetition count: run = run + 1 if code i equals code i-1, else 0;
;     run = FAIR_RCT_CUTOFF - 1 fails;
;   - adaptive proportion: for i < FAIR_WINDOW, count the codes equal to
;     code 0; FAIR_APT_CUTOFF of them fail;
;   - after an odd i >= FAIR_WINDOW - 1 with bits >= FAIR_BITS: healthy;
;   - FAIR_MAX codes without that: failed.
; Conversions run back to back, each started once the last is processed.
;
; fair_roll, as fairdie.subjects.die._fair.roll models it:
;   1. tab = (d[1] & 15) << 8 | d[0]; pool = (d[1] >> 4) << 8 | d[2], 0 -> 1
;   2. normalise tab: while no offset is 0, subtract 1 from all (0x555)
;   3. total = sum of weight(offset); weight 0, 1, 2, 3 -> 8, 3, 1, 0
;   4. repeat: r = 0; for span = 1; span < total; span <<= 1:
;        out = pool & 1; pool >>= 1; if out: pool ^= 0x829
;        v = noise & 1; noise >>= 1; out ^= v; pool ^= v; if pool == 0: pool = 1
;        r = r << 1 | out
;      until r < total. Once the 16 fresh bits are used, v is 0 and the
;      bits are the LFSR's, whose every 12-bit run but 0 comes once per
;      4095 steps, so some value read starts with a 0 bit, below total: it
;      ends.
;   5. face = the first f with r < weight(offset f), r -= each weight passed
;   6. tab += 1 << 2 * face, normalise; d[] = tab and pool, packed as in 1.

#include "fair.h"
#include "pins.h"

#define IO(reg) _SFR_IO_ADDR(reg)

    .file "fair.S"          ; else the object's own path names it in the ELF

    .section .bss.fair_noise, "aw", @nobits
    .global fair_noise
    .type fair_noise, @object
    .size fair_noise, 2
fair_noise:
    .zero 2

; uint8_t fair_sample(void): returns 1 (healthy, fair_noise set) or 0 in
; r24. Registers: code r19:r18, the code before r21:r20, code 0 r23:r22,
; i r24, run r25, the proportion count r26, bits r27, noise r31:r30.
    .section .text.fair_sample, "ax", @progbits
    .global fair_sample
    .type fair_sample, @function
fair_sample:
    ldi r18, ADC_MUX_BITS
    out IO(ADMUX), r18
    ldi r18, _BV(ADEN) | ADC_PS
    out IO(ADCSRA), r18
    ldi r20, 0xFF           ; no code before the first
    ldi r21, 0xFF
    clr r24
    clr r25
    clr r26
    clr r27
    clr r30
    clr r31
.Lconvert:
    sbi IO(ADCSRA), ADSC
1:
    sbic IO(ADCSRA), ADSC
    rjmp 1b
    in r18, IO(ADCL)
    in r19, IO(ADCH)
    sbrs r24, 0             ; the second of a pair: von Neumann
    rjmp .Lrepeat
    mov r0, r18
    eor r0, r20
    sbrs r0, 0
    rjmp .Lrepeat           ; 00 or 11: nothing
    bst r20, 0              ; the pair's first low bit
    lsl r30
    rol r31
    bld r30, 0
    inc r27
.Lrepeat:
    cp r18, r20
    cpc r19, r21
    movw r20, r18           ; (movw leaves the flags)
    brne .Lfresh
    inc r25
    cpi r25, FAIR_RCT_CUTOFF - 1
    brsh .Lfailed
    rjmp .Lproportion
.Lfresh:
    clr r25
.Lproportion:
    tst r24
    brne 2f
    movw r22, r18           ; code 0
2:
    cpi r24, FAIR_WINDOW
    brsh .Lenough
    cp r18, r22
    cpc r19, r23
    brne .Lenough
    inc r26
    cpi r26, FAIR_APT_CUTOFF
    brsh .Lfailed
.Lenough:
    cpi r24, FAIR_WINDOW - 1
    brlo .Lnext
    sbrs r24, 0
    rjmp .Lnext
    cpi r27, FAIR_BITS
    brsh .Lhealthy
.Lnext:
    inc r24
    brne .Lconvert          ; FAIR_MAX = 256 codes
.Lfailed:
    clr r24
    rjmp .Loff
.Lhealthy:
    sts fair_noise, r30
    sts fair_noise + 1, r31
    ldi r24, 1
.Loff:
    out IO(ADCSRA), r1      ; ADC off: it would draw current while a face shows
    ret
    .size fair_sample, . - fair_sample

; uint8_t fair_roll(uint8_t d[3], uint16_t noise): d in r25:r24, noise in
; r23:r22; returns the face 0..5 in r24. Registers: tab r25:r24, pool
; r27:r26, noise r19:r18, total r20, r r21, face and counters r16, scratch
; r17, r0; r16 and r17 are saved.
    .section .text.fair_roll, "ax", @progbits
    .global fair_roll
    .type fair_roll, @function
fair_roll:
    push r16
    push r17
    movw r30, r24           ; Z = d
    ld r24, Z               ; 1. tab low
    ldd r25, Z+1
    mov r27, r25
    swap r27
    andi r27, 0x0F          ; pool bits 8..11
    andi r25, 0x0F          ; tab bits 8..11
    ldd r26, Z+2            ; pool bits 0..7
    mov r17, r26
    or r17, r27
    brne 1f
    inc r26                 ; pool 0 -> 1
1:
    movw r18, r22           ; noise
    rcall normalise         ; 2.

    clr r20                 ; 3. total
    movw r22, r24
    ldi r16, 6
.Ltotal:
    mov r17, r22
    rcall weight
    add r20, r17
    lsr r23
    ror r22
    lsr r23
    ror r22
    dec r16
    brne .Ltotal

.Ldraw:                     ; 4.
    clr r21                 ; r
    ldi r16, 1              ; span
.Lbit:
    cp r16, r20
    brsh .Ldrawn
    clr r17                 ; out
    lsr r27
    ror r26                 ; C = the pool's output bit
    brcc 2f
    ldi r17, lo8(FAIR_POOL_TAPS)
    eor r26, r17
    ldi r17, hi8(FAIR_POOL_TAPS)
    eor r27, r17
    ldi r17, 1
2:
    lsr r19
    ror r18                 ; C = v
    brcc 3f
    ldi r22, 1
    eor r17, r22            ; out ^= 1
    eor r26, r22            ; pool ^= 1
    mov r22, r26
    or r22, r27
    brne 3f
    inc r26                 ; pool 0 -> 1
3:
    lsl r21
    or r21, r17
    lsl r16
    rjmp .Lbit
.Ldrawn:
    cp r21, r20
    brsh .Ldraw             ; r >= total: draw again

    movw r22, r24           ; 5. face
    clr r16
.Lpick:
    mov r17, r22
    rcall weight
    cp r21, r17
    brlo .Lpicked
    sub r21, r17
    lsr r23
    ror r22
    lsr r23
    ror r22
    inc r16
    rjmp .Lpick
.Lpicked:
    ldi r22, 1              ; 6. tab += 1 << 2 * face
    clr r23
    mov r17, r16
    rjmp 5f
4:
    lsl r22
    rol r23
    lsl r22
    rol r23
5:
    dec r17
    brpl 4b
    add r24, r22
    adc r25, r23
    rcall normalise
    st Z, r24
    mov r17, r27
    swap r17
    or r17, r25
    std Z+1, r17
    std Z+2, r26
    mov r24, r16
    pop r17
    pop r16
    ret
    .size fair_roll, . - fair_roll

; weight: r17 = offset in its bits 0..1 (higher bits ignored) -> weight.
weight:
    andi r17, 3
    subi r17, 1             ; 0 -> C set; 1 -> 0; 2, 3 -> 1, 2
    brcs .Lw8
    breq .Lw3
    neg r17
    subi r17, -2            ; 1, 2 -> 1, 0
    ret
.Lw3:
    ldi r17, 3
    ret
.Lw8:
    ldi r17, 8
    ret

; normalise: tab r25:r24; uses r23:r22, r17, r0.
normalise:
    movw r22, r24
    ldi r17, 6
    mov r0, r17
.Lfield:
    mov r17, r22
    andi r17, 3
    breq .Lnormal
    lsr r23
    ror r22
    lsr r23
    ror r22
    dec r0
    brne .Lfield
    subi r24, lo8(FAIR_ONES) ; every offset - 1
    sbci r25, hi8(FAIR_ONES)
    rjmp normalise
.Lnormal:
    ret
