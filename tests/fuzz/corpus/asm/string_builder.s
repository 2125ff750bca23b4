; gclab assembly (vmas reads this back byte for byte)
.type 0 J
.type 1 [LString;
.type 2 LString;
.string 0 ","
.string 1 "pieces: "
.string 2 ", result length: "
.string 3 "same result: "
.string 4 "starts "
.string 5 " ends "
.string 6 "appending: "
.string 7 " concatenations copied "
.string 8 " bytes"
.string 9 "pairwise:  "

.class string_builder string_builder.gcl ; class 0
.static 0 naiveCopied 0                 ; J
.static 1 joinCopied 0                  ; J
.static 2 joinConcats 0                 ; J
.method 0 appendAll static
    .params 1                           ; [LString;
    .returns 2                          ; LString;
    .plocals 0                          ; J
    .rlocals 1 2                        ; [LString; LString;
    .stack 2 2
    .line 22
    0: rload 0                          ; [LString;
    3: pushi 0
    8: agetr
    9: rstore 1                         ; LString;
    .line 23
    12: pushi 1
    17: pstore 0                        ; J
    20: jmp L53
L25:
    .line 24
    25: rload 1                         ; LString;
    28: rload 0                         ; [LString;
    31: pload 0                         ; J
    34: agetr
    35: scat
    36: rstore 1                        ; LString;
    .line 25
    39: getsp 0                         ; string_builder.naiveCopied J
    42: rload 1                         ; LString;
    45: slen
    46: iadd
    47: putsp 0                         ; string_builder.naiveCopied J
    .line 23
    50: iinc 0                          ; J
L53:
    53: pload 0                         ; J
    56: rload 0                         ; [LString;
    59: alen
    60: ilt
    61: jt L25
    .line 27
    66: rload 1                         ; LString;
    69: retr
.method 1 join static
    .params 1 0 0                       ; [LString; J J
    .returns 2                          ; LString;
    .plocals 0 0 0                      ; J J J
    .rlocals 1 2                        ; [LString; LString;
    .stack 2 2
    .line 32
    0: pload 1                          ; J
    3: pload 0                          ; J
    6: isub
    7: pushi 1
    12: ieq
    13: jf L26
    18: rload 0                         ; [LString;
    21: pload 0                         ; J
    24: agetr
    25: retr
L26:
    .line 33
    26: pload 0                         ; J
    29: pload 1                         ; J
    32: iadd
    33: pushi 2
    38: idiv
    39: pstore 2                        ; J
    .line 34
    42: rload 0                         ; [LString;
    45: pload 0                         ; J
    48: pload 2                         ; J
    51: call 1                          ; string_builder.join([LString;JJ)LString;
    54: rload 0                         ; [LString;
    57: pload 2                         ; J
    60: pload 1                         ; J
    63: call 1                          ; string_builder.join([LString;JJ)LString;
    66: scat
    67: rstore 1                        ; LString;
    .line 35
    70: getsp 1                         ; string_builder.joinCopied J
    73: rload 1                         ; LString;
    76: slen
    77: iadd
    78: putsp 1                         ; string_builder.joinCopied J
    .line 36
    81: getsp 2                         ; string_builder.joinConcats J
    84: pushi 1
    89: iadd
    90: putsp 2                         ; string_builder.joinConcats J
    .line 37
    93: rload 1                         ; LString;
    96: retr
.method 2 main static
    .params 1                           ; [LString;
    .returns 0                          ; J
    .plocals 0 0                        ; J J
    .rlocals 1 1 2 2                    ; [LString; [LString; LString; LString;
    .stack 2 3
    .line 41
    0: pushi 200
    5: pstore 0                         ; J
    .line 42
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
    .line 45
    36: pload 0                         ; J
    39: newarr 1                        ; [LString;
    42: rstore 1                        ; [LString;
    .line 46
    45: pushi 0
    50: pstore 1                        ; J
    53: jmp L76
L58:
    58: rload 1                         ; [LString;
    61: pload 1                         ; J
    64: pload 1                         ; J
    67: i2s
    68: lds 0                           ; ","
    71: scat
    72: aputr
    73: iinc 1                          ; J
L76:
    76: pload 1                         ; J
    79: pload 0                         ; J
    82: ilt
    83: jt L58
    .line 48
    88: rload 1                         ; [LString;
    91: call 0                          ; string_builder.appendAll([LString;)LString;
    94: rstore 2                        ; LString;
    .line 49
    97: rload 1                         ; [LString;
    100: pushi 0
    105: pload 0                        ; J
    108: call 1                         ; string_builder.join([LString;JJ)LString;
    111: rstore 3                       ; LString;
    .line 51
    114: lds 1                          ; "pieces: "
    117: pload 0                        ; J
    120: i2s
    121: scat
    122: lds 2                          ; ", result length: "
    125: scat
    126: rload 2                        ; LString;
    129: slen
    130: i2s
    131: scat
    132: prints 1
    .line 52
    134: lds 3                          ; "same result: "
    137: rload 2                        ; LString;
    140: rload 3                        ; LString;
    143: seq
    144: z2s
    145: scat
    146: prints 1
    .line 53
    148: lds 4                          ; "starts "
    151: rload 2                        ; LString;
    154: pushi 0
    159: pushi 20
    164: ssub
    165: scat
    166: lds 5                          ; " ends "
    169: scat
    170: rload 2                        ; LString;
    173: rload 2                        ; LString;
    176: slen
    177: pushi 12
    182: isub
    183: rload 2                        ; LString;
    186: slen
    187: ssub
    188: scat
    189: prints 1
    .line 54
    191: lds 6                          ; "appending: "
    194: pload 0                        ; J
    197: pushi 1
    202: isub
    203: i2s
    204: scat
    205: lds 7                          ; " concatenations copied "
    208: scat
    209: getsp 0                        ; string_builder.naiveCopied J
    212: i2s
    213: scat
    214: lds 8                          ; " bytes"
    217: scat
    218: prints 1
    .line 55
    220: lds 9                          ; "pairwise:  "
    223: getsp 2                        ; string_builder.joinConcats J
    226: i2s
    227: scat
    228: lds 7                          ; " concatenations copied "
    231: scat
    232: getsp 1                        ; string_builder.joinCopied J
    235: i2s
    236: scat
    237: lds 8                          ; " bytes"
    240: scat
    241: prints 1
    .line 56
    243: pushi 0
    248: retp

.entry 2                                ; string_builder.main
