; gclab assembly (vmas reads this back byte for byte)
.type 0 [LString;
.type 1 J
.type 2 LTree;
.string 0 "stretch tree of depth "
.string 1 "\t check: "
.string 2 "\t trees of depth "
.string 3 "long lived tree of depth "

.class binary_trees binary_trees.gcl    ; class 0
.method 0 main static
    .params 0                           ; [LString;
    .returns 1                          ; J
    .plocals 1 1 1 1 1 1 1              ; J J J J J J J
    .rlocals 0 2                        ; [LString; LTree;
    .stack 3 2
    .line 26
    0: pushi 4
    5: pstore 0                         ; J
    .line 27
    8: pushi 16
    13: pstore 1                        ; J
    .line 28
    16: rload 0                         ; [LString;
    19: alen
    20: pushi 0
    25: igt
    26: jf L44
    31: rload 0                         ; [LString;
    34: pushi 0
    39: agetr
    40: parsei
    41: pstore 1                        ; J
L44:
    .line 29
    44: pload 1                         ; J
    47: pload 0                         ; J
    50: pushi 2
    55: iadd
    56: ilt
    57: jf L74
    62: pload 0                         ; J
    65: pushi 2
    70: iadd
    71: pstore 1                        ; J
L74:
    .line 31
    74: pload 1                         ; J
    77: pushi 1
    82: iadd
    83: pstore 2                        ; J
    .line 32
    86: lds 0                           ; "stretch tree of depth "
    89: pload 2                         ; J
    92: i2s
    93: scat
    94: lds 1                           ; "\t check: "
    97: scat
    98: pload 2                         ; J
    101: call 1                         ; Tree.make(J)LTree;
    104: call 2                         ; Tree.check()J
    107: i2s
    108: scat
    109: prints 1
    .line 34
    111: pload 1                        ; J
    114: call 1                         ; Tree.make(J)LTree;
    117: rstore 1                       ; LTree;
    .line 35
    120: pload 0                        ; J
    123: pstore 3                       ; J
    126: jmp L239
L131:
    .line 36
    131: pushi 1
    136: pload 1                        ; J
    139: pload 3                        ; J
    142: isub
    143: pload 0                        ; J
    146: iadd
    147: ishl
    148: pstore 4                       ; J
    .line 37
    151: pushi 0
    156: pstore 5                       ; J
    .line 38
    159: pushi 0
    164: pstore 6                       ; J
    167: jmp L191
L172:
    172: pload 5                        ; J
    175: pload 3                        ; J
    178: call 1                         ; Tree.make(J)LTree;
    181: call 2                         ; Tree.check()J
    184: iadd
    185: pstore 5                       ; J
    188: iinc 6                         ; J
L191:
    191: pload 6                        ; J
    194: pload 4                        ; J
    197: ilt
    198: jt L172
    .line 39
    203: pload 4                        ; J
    206: i2s
    207: lds 2                          ; "\t trees of depth "
    210: scat
    211: pload 3                        ; J
    214: i2s
    215: scat
    216: lds 1                          ; "\t check: "
    219: scat
    220: pload 5                        ; J
    223: i2s
    224: scat
    225: prints 1
    .line 35
    227: pload 3                        ; J
    230: pushi 2
    235: iadd
    236: pstore 3                       ; J
L239:
    239: pload 3                        ; J
    242: pload 1                        ; J
    245: ile
    246: jt L131
    .line 41
    251: lds 3                          ; "long lived tree of depth "
    254: pload 1                        ; J
    257: i2s
    258: scat
    259: lds 1                          ; "\t check: "
    262: scat
    263: rload 1                        ; LTree;
    266: call 2                         ; Tree.check()J
    269: i2s
    270: scat
    271: prints 1
    .line 42
    273: pushi 0
    278: retp

.class Tree binary_trees.gcl            ; class 1
.field 0 left 2                         ; LTree;
.field 1 right 2                        ; LTree;
.method 1 make static
    .params 1                           ; J
    .returns 2                          ; LTree;
    .plocals 1                          ; J
    .rlocals 2                          ; LTree;
    .stack 2 2
    .line 11
    0: new 1                            ; Tree
    3: rstore 0                         ; LTree;
    .line 12
    6: pload 0                          ; J
    9: pushi 0
    14: igt
    15: jf L56
    .line 13
    20: rload 0                         ; LTree;
    23: pload 0                         ; J
    26: pushi 1
    31: isub
    32: call 1                          ; Tree.make(J)LTree;
    35: putfr 0                         ; Tree.left LTree;
    .line 14
    38: rload 0                         ; LTree;
    41: pload 0                         ; J
    44: pushi 1
    49: isub
    50: call 1                          ; Tree.make(J)LTree;
    53: putfr 1                         ; Tree.right LTree;
L56:
    .line 16
    56: rload 0                         ; LTree;
    59: retr
.method 2 check instance
    .params
    .returns 1                          ; J
    .plocals
    .rlocals 2                          ; LTree;
    .stack 2 2
    .line 20
    0: rload 0                          ; LTree;
    3: getfr 0                          ; Tree.left LTree;
    6: anull
    7: req
    8: jf L19
    13: pushi 1
    18: retp
L19:
    .line 21
    19: pushi 1
    24: rload 0                         ; LTree;
    27: getfr 0                         ; Tree.left LTree;
    30: call 2                          ; Tree.check()J
    33: iadd
    34: rload 0                         ; LTree;
    37: getfr 1                         ; Tree.right LTree;
    40: call 2                          ; Tree.check()J
    43: iadd
    44: retp

.entry 0                                ; binary_trees.main
