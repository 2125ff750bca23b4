; gclab assembly (vmas reads this back byte for byte)
.type 0 [LString;
.type 1 J
.type 2 [Z
.type 3 LString;
.string 0 "primes up to "
.string 1 ": "
.string 2 ""
.string 3 " "
.string 4 "largest:"

.class sieve sieve.gcl                  ; class 0
.method 0 main static
    .params 0                           ; [LString;
    .returns 1                          ; J
    .plocals 1 1 1 1 1 1 1 1            ; J J J J J J J J
    .rlocals 0 2 3                      ; [LString; [Z LString;
    .stack 3 2
    .line 12
    0: pushi 10000
    5: pstore 0                         ; J
    .line 13
    8: rload 0                          ; [LString;
    11: alen
    12: pushi 0
    17: igt
    18: jf L36
    23: rload 0                         ; [LString;
    26: pushi 0
    31: agetr
    32: parsei
    33: pstore 0                        ; J
L36:
    .line 15
    36: pload 0                         ; J
    39: pushi 1
    44: iadd
    45: newarr 2                        ; [Z
    48: rstore 1                        ; [Z
    .line 16
    51: pushi 2
    56: pstore 1                        ; J
    59: jmp L125
L64:
    .line 17
    64: rload 1                         ; [Z
    67: pload 1                         ; J
    70: agetz
    71: jt L122
    .line 18
    76: pload 1                         ; J
    79: pload 1                         ; J
    82: imul
    83: pstore 2                        ; J
    86: jmp L110
L91:
    91: rload 1                         ; [Z
    94: pload 2                         ; J
    97: pushz 1
    99: aputz
    100: pload 2                        ; J
    103: pload 1                        ; J
    106: iadd
    107: pstore 2                       ; J
L110:
    110: pload 2                        ; J
    113: pload 0                        ; J
    116: ile
    117: jt L91
L122:
    .line 16
    122: iinc 1                         ; J
L125:
    125: pload 1                        ; J
    128: pload 1                        ; J
    131: imul
    132: pload 0                        ; J
    135: ile
    136: jt L64
    .line 23
    141: pushi 0
    146: pstore 3                       ; J
    .line 24
    149: pushi 10
    154: pstore 4                       ; J
    .line 25
    157: pushi 2
    162: pstore 5                       ; J
    165: jmp L231
L170:
    .line 26
    170: rload 1                        ; [Z
    173: pload 5                        ; J
    176: agetz
    177: jt L185
    182: iinc 3                         ; J
L185:
    .line 27
    185: pload 5                        ; J
    188: pload 4                        ; J
    191: ieq
    192: jf L228
    .line 28
    197: lds 0                          ; "primes up to "
    200: pload 5                        ; J
    203: i2s
    204: scat
    205: lds 1                          ; ": "
    208: scat
    209: pload 3                        ; J
    212: i2s
    213: scat
    214: prints 1
    .line 29
    216: pload 4                        ; J
    219: pushi 10
    224: imul
    225: pstore 4                       ; J
L228:
    .line 25
    228: iinc 5                         ; J
L231:
    231: pload 5                        ; J
    234: pload 0                        ; J
    237: ile
    238: jt L170
    .line 32
    243: pload 0                        ; J
    246: pload 4                        ; J
    249: pushi 10
    254: idiv
    255: ine
    256: jf L280
    261: lds 0                          ; "primes up to "
    264: pload 0                        ; J
    267: i2s
    268: scat
    269: lds 1                          ; ": "
    272: scat
    273: pload 3                        ; J
    276: i2s
    277: scat
    278: prints 1
L280:
    .line 34
    280: lds 2                          ; ""
    283: rstore 2                       ; LString;
    .line 35
    286: pushi 0
    291: pstore 6                       ; J
    .line 36
    294: pload 0                        ; J
    297: pstore 7                       ; J
    300: jmp L347
L305:
    .line 37
    305: rload 1                        ; [Z
    308: pload 7                        ; J
    311: agetz
    312: jt L335
    .line 38
    317: lds 3                          ; " "
    320: pload 7                        ; J
    323: i2s
    324: scat
    325: rload 2                        ; LString;
    328: scat
    329: rstore 2                       ; LString;
    .line 39
    332: iinc 6                         ; J
L335:
    .line 36
    335: pload 7                        ; J
    338: pushi 1
    343: isub
    344: pstore 7                       ; J
L347:
    347: pload 7                        ; J
    350: pushi 2
    355: ige
    356: jf L375
    361: pload 6                        ; J
    364: pushi 5
    369: ilt
    370: jt L305
L375:
    .line 42
    375: lds 4                          ; "largest:"
    378: rload 2                        ; LString;
    381: scat
    382: prints 1
    .line 43
    384: pushi 0
    389: retp

.entry 0                                ; sieve.main
