; gclab assembly (vmas reads this back byte for byte)
.type 0 V
.type 1 [LString;
.type 2 J
.string 0 "usage: args N...   (sums its integer arguments)"
.string 1 "argument "
.string 2 ": "
.string 3 "count "
.string 4 ", sum "
.string 5 ", largest "

.class args args.gcl                    ; class 0
.method 0 usage static
    .params
    .returns 0                          ; V
    .plocals
    .rlocals
    .stack 1 1
    .line 13
    0: lds 0                            ; "usage: args N...   (sums its integer arg"
    3: prints 1
    .line 14
    5: pushi 3
    10: exit
    .line 15
    11: ret
.method 1 main static
    .params 1                           ; [LString;
    .returns 2                          ; J
    .plocals 2 2 2 2                    ; J J J J
    .rlocals 1                          ; [LString;
    .stack 2 2
    .line 18
    0: rload 0                          ; [LString;
    3: alen
    4: pushi 0
    9: ieq
    10: jf L18
    15: call 0                          ; args.usage()V
L18:
    .line 20
    18: pushi 0
    23: pstore 0                        ; J
    .line 21
    26: rload 0                         ; [LString;
    29: pushi 0
    34: agetr
    35: parsei
    36: pstore 1                        ; J
    .line 22
    39: pushi 0
    44: pstore 2                        ; J
    47: jmp L113
L52:
    .line 23
    52: rload 0                         ; [LString;
    55: pload 2                         ; J
    58: agetr
    59: parsei
    60: pstore 3                        ; J
    .line 24
    63: lds 1                           ; "argument "
    66: pload 2                         ; J
    69: i2s
    70: scat
    71: lds 2                           ; ": "
    74: scat
    75: pload 3                         ; J
    78: i2s
    79: scat
    80: prints 1
    .line 25
    82: pload 0                         ; J
    85: pload 3                         ; J
    88: iadd
    89: pstore 0                        ; J
    .line 26
    92: pload 3                         ; J
    95: pload 1                         ; J
    98: igt
    99: jf L110
    104: pload 3                        ; J
    107: pstore 1                       ; J
L110:
    .line 22
    110: iinc 2                         ; J
L113:
    113: pload 2                        ; J
    116: rload 0                        ; [LString;
    119: alen
    120: ilt
    121: jt L52
    .line 28
    126: lds 3                          ; "count "
    129: rload 0                        ; [LString;
    132: alen
    133: i2s
    134: scat
    135: lds 4                          ; ", sum "
    138: scat
    139: pload 0                        ; J
    142: i2s
    143: scat
    144: lds 5                          ; ", largest "
    147: scat
    148: pload 1                        ; J
    151: i2s
    152: scat
    153: prints 1
    .line 29
    155: pushi 0
    160: retp

.entry 1                                ; args.main
