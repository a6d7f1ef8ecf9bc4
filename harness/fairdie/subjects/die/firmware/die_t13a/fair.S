;
; fair.S: the fair rule (see fair.h and the banner of main.c), in assembly
; because in C (avr-gcc 5.4 -Os) it took 386 bytes of the 1024, here 180.
;
; Chance comes from two sources combined, so that the die stays fair and
; unpredictable under any noise: unbiased bits from the floating pin (von
; Neumann: of each pair of readings' low bits, 01 gives 0 and 10 gives 1;
; 00 and 11 give nothing) and a 12-bit LFSR pool kept in EEPROM. Each bit
; drawn is the pool's next output bit XOR the next noise bit while noise
; bits last, and that noise bit is also fed into the pool, so fresh noise
; persists. If either source is unpredictable, so is the draw; a stuck pin
; leaves the pool, which a player who sees only faces cannot know.
;
; A face's weight is 8, 3 or 1 when its offset above the least-counted face
; is 0, 1 or 2, and none at 3: no face ever gets more than 3 ahead of
; another (once the table is so), and no face waits long. The weights are
; the measured trade-off (README: "Choosing the rule"). The draw is uniform
; over the total weight by rejection, without modulo bias: k bits make a
; value below 2^k, and one not below the total is dropped for k new bits.
;
; The steps, as fairdie.subjects.die._fair models them:
;   1. tab = (d[1] & 15) << 8 | d[0]; pool = (d[1] >> 4) << 8 | d[2], 0 -> 1
;   2. von Neumann over the 8 pairs of lsbs, bits 15:14 first; a pair that
;      differs appends its first bit: noise = noise << 1 | bit, left += 1
;   3. normalise tab: while no offset is 0, subtract 1 from all (0x555)
;   4. total = sum of weight(offset); weight 0, 1, 2, 3 -> 8, 3, 1, 0
;   5. repeat: r = 0; for span = 1; span < total; span <<= 1:
;        out = pool & 1; pool >>= 1; if out: pool ^= 0x829
;        if left: left -= 1; v = noise & 1; noise >>= 1; out ^= v;
;                 pool ^= v; if pool == 0: pool = 1
;        r = r << 1 | out
;      until r < total. It ends: once the noise bits are used the bits are
;      the LFSR's, whose every 12-bit run but 0 comes once per 4095 steps,
;      so some value read starts with a 0 bit, below total (or the pool is 0
;      and every value is 0).
;   6. face = the first f with r < weight(offset f), r -= each weight passed
;   7. tab += 1 << 2 * face, normalise; d[] = tab and pool, packed as in 1.
;
; uint8_t fair_roll(uint8_t d[3], uint16_t lsbs): d in r25:r24, lsbs in
; r23:r22; returns the face 0..5 in r24. Registers: tab r25:r24, pool
; r27:r26, noise r18, left r19, total r20, r r21, face and counters r16,
; scratch r17, r0; r16 and r17 are saved.

    .file "fair.S"          ; else the object's own path names it in the ELF
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
    clr r18                 ; 2. noise
    clr r19                 ; left
    ldi r16, 8
.Lpair:
    mov r17, r23
    lsl r17
    eor r17, r23            ; bit 7: bit 15 ^ bit 14
    brpl .Lsame
    mov r17, r23
    lsl r17                 ; C = bit 15, the pair's first
    rol r18
    inc r19
.Lsame:
    lsl r22
    rol r23
    lsl r22
    rol r23
    dec r16
    brne .Lpair

    rcall normalise         ; 3.

    clr r20                 ; 4. total
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

.Ldraw:                     ; 5.
    clr r21                 ; r
    ldi r16, 1              ; span
.Lbit:
    cp r16, r20
    brsh .Ldrawn
    clr r17                 ; out
    lsr r27
    ror r26                 ; C = the pool's output bit
    brcc 2f
    ldi r17, 0x29           ; pool ^= 0x829
    eor r26, r17
    ldi r17, 0x08
    eor r27, r17
    ldi r17, 1
2:
    tst r19
    breq 3f
    dec r19
    lsr r18                 ; C = v
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

    movw r22, r24           ; 6. face
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
    ldi r22, 1              ; 7. tab += 1 << 2 * face
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
    subi r24, 0x55          ; every offset - 1
    sbci r25, 0x05
    rjmp normalise
.Lnormal:
    ret
