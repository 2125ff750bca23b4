; gclab assembly (vmas reads this back byte for byte)
.type 0 J
.type 1 LCell;
.type 2 [LString;
.type 3 [LCell;
.string 0 "lists: "
.string 1 ", total "
.string 2 "survivors: "

.class list_churn list_churn.gcl        ; class 0
.method 0 makeList static
    .params 0 0                         ; J J
    .returns 1                          ; LCell;
    .plocals 0 0 0                      ; J J J
    .rlocals 1 1                        ; LCell; LCell;
    .stack 2 2
    .line 15
    0: anull
    1: rstore 0                         ; LCell;
    .line 16
    4: pushi 0
    9: pstore 2                         ; J
    12: jmp L54
L17:
    .line 17
    17: new 1                           ; Cell
    20: rstore 1                        ; LCell;
    .line 18
    23: rload 1                         ; LCell;
    26: pload 1                         ; J
    29: pload 2                         ; J
    32: iadd
    33: putfp 0                         ; Cell.value J
    .line 19
    36: rload 1                         ; LCell;
    39: rload 0                         ; LCell;
    42: putfr 1                         ; Cell.next LCell;
    .line 20
    45: rload 1                         ; LCell;
    48: rstore 0                        ; LCell;
    .line 16
    51: iinc 2                          ; J
L54:
    54: pload 2                         ; J
    57: pload 0                         ; J
    60: ilt
    61: jt L17
    .line 22
    66: rload 0                         ; LCell;
    69: retr
.method 1 sumList static
    .params 1                           ; LCell;
    .returns 0                          ; J
    .plocals 0                          ; J
    .rlocals 1 1                        ; LCell; LCell;
    .stack 2 2
    .line 26
    0: pushi 0
    5: pstore 0                         ; J
    .line 27
    8: rload 0                          ; LCell;
    11: rstore 1                        ; LCell;
    14: jmp L41
L19:
    19: pload 0                         ; J
    22: rload 1                         ; LCell;
    25: getfp 0                         ; Cell.value J
    28: iadd
    29: pstore 0                        ; J
    32: rload 1                         ; LCell;
    35: getfr 1                         ; Cell.next LCell;
    38: rstore 1                        ; LCell;
L41:
    41: rload 1                         ; LCell;
    44: anull
    45: rne
    46: jt L19
    .line 28
    51: pload 0                         ; J
    54: retp
.method 2 main static
    .params 2                           ; [LString;
    .returns 0                          ; J
    .plocals 0 0 0 0 0 0                ; J J J J J J
    .rlocals 2 3 1                      ; [LString; [LCell; LCell;
    .stack 3 2
    .line 32
    0: pushi 1000000
    5: pstore 0                         ; J
    .line 33
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
    .line 35
    36: pushi 128
    41: newarr 3                        ; [LCell;
    44: rstore 1                        ; [LCell;
    .line 36
    47: pushi 0
    52: pstore 1                        ; J
    .line 37
    55: pushi 0
    60: pstore 2                        ; J
    63: jmp L150
L68:
    .line 38
    68: pushi 1
    73: pload 2                         ; J
    76: pushi 32
    81: irem
    82: iadd
    83: pload 2                         ; J
    86: call 0                          ; list_churn.makeList(JJ)LCell;
    89: rstore 2                        ; LCell;
    .line 39
    92: pload 1                         ; J
    95: rload 2                         ; LCell;
    98: call 1                          ; list_churn.sumList(LCell;)J
    101: iadd
    102: pstore 1                       ; J
    .line 40
    105: pload 2                        ; J
    108: pushi 100
    113: irem
    114: pushi 0
    119: ieq
    120: jf L147
    125: rload 1                        ; [LCell;
    128: pload 2                        ; J
    131: pushi 100
    136: idiv
    137: pushi 128
    142: irem
    143: rload 2                        ; LCell;
    146: aputr
L147:
    .line 37
    147: iinc 2                         ; J
L150:
    150: pload 2                        ; J
    153: pload 0                        ; J
    156: ilt
    157: jt L68
    .line 43
    162: pushi 0
    167: pstore 3                       ; J
    .line 44
    170: pushi 0
    175: pstore 4                       ; J
    .line 45
    178: pushi 0
    183: pstore 5                       ; J
    186: jmp L228
L191:
    .line 46
    191: rload 1                        ; [LCell;
    194: pload 5                        ; J
    197: agetr
    198: anull
    199: rne
    200: jf L225
    .line 47
    205: iinc 3                         ; J
    .line 48
    208: pload 4                        ; J
    211: rload 1                        ; [LCell;
    214: pload 5                        ; J
    217: agetr
    218: call 1                         ; list_churn.sumList(LCell;)J
    221: iadd
    222: pstore 4                       ; J
L225:
    .line 45
    225: iinc 5                         ; J
L228:
    228: pload 5                        ; J
    231: pushi 128
    236: ilt
    237: jt L191
    .line 51
    242: lds 0                          ; "lists: "
    245: pload 0                        ; J
    248: i2s
    249: scat
    250: lds 1                          ; ", total "
    253: scat
    254: pload 1                        ; J
    257: i2s
    258: scat
    259: prints 1
    .line 52
    261: lds 2                          ; "survivors: "
    264: pload 3                        ; J
    267: i2s
    268: scat
    269: lds 1                          ; ", total "
    272: scat
    273: pload 4                        ; J
    276: i2s
    277: scat
    278: prints 1
    .line 53
    280: pushi 0
    285: retp

.class Cell list_churn.gcl              ; class 1
.field 0 value 0                        ; J
.field 1 next 1                         ; LCell;

.entry 2                                ; list_churn.main
