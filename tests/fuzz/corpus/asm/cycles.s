; gclab assembly (vmas reads this back byte for byte)
.type 0 J
.type 1 LRingNode;
.type 2 [LString;
.string 0 "mismatch in ring "
.string 1 "rings: "
.string 2 ", nodes: "
.string 3 ", total "

.class cycles cycles.gcl                ; class 0
.method 0 makeRing static
    .params 0 0                         ; J J
    .returns 1                          ; LRingNode;
    .plocals 0 0 0                      ; J J J
    .rlocals 1 1 1                      ; LRingNode; LRingNode; LRingNode;
    .stack 2 2
    .line 17
    0: new 1                            ; RingNode
    3: rstore 0                         ; LRingNode;
    .line 18
    6: rload 0                          ; LRingNode;
    9: pload 1                          ; J
    12: putfp 0                         ; RingNode.id J
    .line 19
    15: rload 0                         ; LRingNode;
    18: rstore 1                        ; LRingNode;
    .line 20
    21: pushi 1
    26: pstore 2                        ; J
    29: jmp L80
L34:
    .line 21
    34: new 1                           ; RingNode
    37: rstore 2                        ; LRingNode;
    .line 22
    40: rload 2                         ; LRingNode;
    43: pload 1                         ; J
    46: pload 2                         ; J
    49: iadd
    50: putfp 0                         ; RingNode.id J
    .line 23
    53: rload 2                         ; LRingNode;
    56: rload 1                         ; LRingNode;
    59: putfr 2                         ; RingNode.prev LRingNode;
    .line 24
    62: rload 1                         ; LRingNode;
    65: rload 2                         ; LRingNode;
    68: putfr 1                         ; RingNode.next LRingNode;
    .line 25
    71: rload 2                         ; LRingNode;
    74: rstore 1                        ; LRingNode;
    .line 20
    77: iinc 2                          ; J
L80:
    80: pload 2                         ; J
    83: pload 0                         ; J
    86: ilt
    87: jt L34
    .line 27
    92: rload 1                         ; LRingNode;
    95: rload 0                         ; LRingNode;
    98: putfr 1                         ; RingNode.next LRingNode;
    .line 28
    101: rload 0                        ; LRingNode;
    104: rload 1                        ; LRingNode;
    107: putfr 2                        ; RingNode.prev LRingNode;
    .line 29
    110: rload 0                        ; LRingNode;
    113: retr
.method 1 main static
    .params 2                           ; [LString;
    .returns 0                          ; J
    .plocals 0 0 0 0 0 0 0 0 0          ; J J J J J J J J J
    .rlocals 2 1 1                      ; [LString; LRingNode; LRingNode;
    .stack 3 2
    .line 33
    0: pushi 200000
    5: pstore 0                         ; J
    .line 34
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
    .line 36
    36: pushi 0
    41: pstore 1                        ; J
    .line 37
    44: pushi 0
    49: pstore 2                        ; J
    .line 38
    52: pushi 0
    57: pstore 3                        ; J
    60: jmp L262
L65:
    .line 39
    65: pushi 10
    70: pload 3                         ; J
    73: pushi 90
    78: irem
    79: iadd
    80: pstore 4                        ; J
    .line 40
    83: pload 4                         ; J
    86: pload 3                         ; J
    89: call 0                          ; cycles.makeRing(JJ)LRingNode;
    92: rstore 1                        ; LRingNode;
    .line 41
    95: pushi 0
    100: pstore 5                       ; J
    .line 42
    103: rload 1                        ; LRingNode;
    106: rstore 2                       ; LRingNode;
    .line 43
    109: pushi 0
    114: pstore 6                       ; J
    117: jmp L147
L122:
    .line 44
    122: pload 5                        ; J
    125: rload 2                        ; LRingNode;
    128: getfp 0                        ; RingNode.id J
    131: iadd
    132: pstore 5                       ; J
    .line 45
    135: rload 2                        ; LRingNode;
    138: getfr 1                        ; RingNode.next LRingNode;
    141: rstore 2                       ; LRingNode;
    .line 43
    144: iinc 6                         ; J
L147:
    147: pload 6                        ; J
    150: pload 4                        ; J
    153: ilt
    154: jt L122
    .line 47
    159: pushi 0
    164: pstore 7                       ; J
    .line 48
    167: pushi 0
    172: pstore 8                       ; J
    175: jmp L205
L180:
    .line 49
    180: rload 2                        ; LRingNode;
    183: getfr 2                        ; RingNode.prev LRingNode;
    186: rstore 2                       ; LRingNode;
    .line 50
    189: pload 7                        ; J
    192: rload 2                        ; LRingNode;
    195: getfp 0                        ; RingNode.id J
    198: iadd
    199: pstore 7                       ; J
    .line 48
    202: iinc 8                         ; J
L205:
    205: pload 8                        ; J
    208: pload 4                        ; J
    211: ilt
    212: jt L180
    .line 52
    217: pload 5                        ; J
    220: pload 7                        ; J
    223: ine
    224: jf L239
    229: lds 0                          ; "mismatch in ring "
    232: pload 3                        ; J
    235: i2s
    236: scat
    237: prints 1
L239:
    .line 53
    239: pload 1                        ; J
    242: pload 5                        ; J
    245: iadd
    246: pstore 1                       ; J
    .line 54
    249: pload 2                        ; J
    252: pload 4                        ; J
    255: iadd
    256: pstore 2                       ; J
    .line 38
    259: iinc 3                         ; J
L262:
    262: pload 3                        ; J
    265: pload 0                        ; J
    268: ilt
    269: jt L65
    .line 56
    274: lds 1                          ; "rings: "
    277: pload 0                        ; J
    280: i2s
    281: scat
    282: lds 2                          ; ", nodes: "
    285: scat
    286: pload 2                        ; J
    289: i2s
    290: scat
    291: lds 3                          ; ", total "
    294: scat
    295: pload 1                        ; J
    298: i2s
    299: scat
    300: prints 1
    .line 57
    302: pushi 0
    307: retp

.class RingNode cycles.gcl              ; class 1
.field 0 id 0                           ; J
.field 1 next 1                         ; LRingNode;
.field 2 prev 1                         ; LRingNode;

.entry 1                                ; cycles.main
