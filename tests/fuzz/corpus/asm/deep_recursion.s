; gclab assembly (vmas reads this back byte for byte)
.type 0 J
.type 1 LLink;
.type 2 [LString;
.string 0 "descended "
.string 1 " levels"
.string 2 "chain seen at the bottom: "
.string 3 " links, depth sum "
.string 4 "levels that found their own Link on the way back up: "

.class deep_recursion deep_recursion.gcl ; class 0
.static 0 chainLength 0                 ; J
.static 1 chainDepthSum 0               ; J
.method 0 descend static
    .params 1 0 0                       ; LLink; J J
    .returns 0                          ; J
    .plocals 0 0 0                      ; J J J
    .rlocals 1 1 1                      ; LLink; LLink; LLink;
    .stack 2 2
    .line 28
    0: new 1                            ; Link
    3: rstore 1                         ; LLink;
    .line 29
    6: rload 1                          ; LLink;
    9: pload 0                          ; J
    12: putfp 0                         ; Link.depth J
    .line 30
    15: rload 1                         ; LLink;
    18: rload 0                         ; LLink;
    21: putfr 1                         ; Link.parent LLink;
    .line 32
    24: pushi 0
    29: pstore 2                        ; J
    .line 33
    32: pload 0                         ; J
    35: pload 1                         ; J
    38: ieq
    39: jf L104
    .line 35
    44: rload 1                         ; LLink;
    47: rstore 2                        ; LLink;
    50: jmp L89
L55:
    .line 36
    55: getsp 0                         ; deep_recursion.chainLength J
    58: pushi 1
    63: iadd
    64: putsp 0                         ; deep_recursion.chainLength J
    .line 37
    67: getsp 1                         ; deep_recursion.chainDepthSum J
    70: rload 2                         ; LLink;
    73: getfp 0                         ; Link.depth J
    76: iadd
    77: putsp 1                         ; deep_recursion.chainDepthSum J
    .line 35
    80: rload 2                         ; LLink;
    83: getfr 1                         ; Link.parent LLink;
    86: rstore 2                        ; LLink;
L89:
    89: rload 2                         ; LLink;
    92: anull
    93: rne
    94: jt L55
    99: jmp L125
L104:
    .line 40
    104: rload 1                        ; LLink;
    107: pload 0                        ; J
    110: pushi 1
    115: iadd
    116: pload 1                        ; J
    119: call 0                         ; deep_recursion.descend(LLink;JJ)J
    122: pstore 2                       ; J
L125:
    .line 42
    125: rload 1                        ; LLink;
    128: getfp 0                        ; Link.depth J
    131: pload 0                        ; J
    134: ieq
    135: jf L165
    140: rload 1                        ; LLink;
    143: getfr 1                        ; Link.parent LLink;
    146: rload 0                        ; LLink;
    149: req
    150: jf L165
    155: pload 2                        ; J
    158: pushi 1
    163: iadd
    164: retp
L165:
    .line 43
    165: pload 2                        ; J
    168: retp
.method 1 main static
    .params 2                           ; [LString;
    .returns 0                          ; J
    .plocals 0 0                        ; J J
    .rlocals 2                          ; [LString;
    .stack 2 2
    .line 47
    0: pushi 2000
    5: pstore 0                         ; J
    .line 48
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
    .line 50
    36: anull
    37: pushi 1
    42: pload 0                         ; J
    45: call 0                          ; deep_recursion.descend(LLink;JJ)J
    48: pstore 1                        ; J
    .line 51
    51: lds 0                           ; "descended "
    54: pload 0                         ; J
    57: i2s
    58: scat
    59: lds 1                           ; " levels"
    62: scat
    63: prints 1
    .line 52
    65: lds 2                           ; "chain seen at the bottom: "
    68: getsp 0                         ; deep_recursion.chainLength J
    71: i2s
    72: scat
    73: lds 3                           ; " links, depth sum "
    76: scat
    77: getsp 1                         ; deep_recursion.chainDepthSum J
    80: i2s
    81: scat
    82: prints 1
    .line 53
    84: lds 4                           ; "levels that found their own Link on the "
    87: pload 1                         ; J
    90: i2s
    91: scat
    92: prints 1
    .line 54
    94: pushi 0
    99: retp

.class Link deep_recursion.gcl          ; class 1
.field 0 depth 0                        ; J
.field 1 parent 1                       ; LLink;

.entry 1                                ; deep_recursion.main
