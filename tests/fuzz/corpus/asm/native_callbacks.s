; gclab assembly (vmas reads this back byte for byte)
.type 0 LNode;
.type 1 J
.type 2 LString;
.type 3 D
.type 4 Z
.type 5 V
.double 0 2
.string 0 ""
.string 1 "x"
.string 2 "lists built by C: 200; C and the program agree on "
.string 3 "total: "
.string 4 "kept by a global reference since round 100: "
.string 5 ", sum "

.class callbacks callbacks.gcl          ; class 0
.method 0 sum static
    .params 0                           ; LNode;
    .returns 1                          ; J
    .plocals 1                          ; J
    .rlocals 0 0                        ; LNode; LNode;
    .stack 4 2
    .line 18
    0: pushi 0
    5: pstore 0                         ; J
    .line 19
    8: rload 0                          ; LNode;
    11: rstore 1                        ; LNode;
    14: jmp L67
L19:
    .line 20
    19: pload 0                         ; J
    22: rload 1                         ; LNode;
    25: getfp 0                         ; Node.value J
    28: ldd 0                           ; 2
    31: rload 1                         ; LNode;
    34: getfp 2                         ; Node.weight D
    37: dmul
    38: d2i
    39: iadd
    40: iadd
    41: pstore 0                        ; J
    .line 21
    44: rload 1                         ; LNode;
    47: getfp 3                         ; Node.flag Z
    50: jf L58
    55: iinc 0                          ; J
L58:
    .line 19
    58: rload 1                         ; LNode;
    61: getfr 1                         ; Node.next LNode;
    64: rstore 1                        ; LNode;
L67:
    67: rload 1                         ; LNode;
    70: anull
    71: rne
    72: jt L19
    .line 23
    77: pload 0                         ; J
    80: retp
.method 1 main static
    .params
    .returns 1                          ; J
    .plocals 1 1 1 1                    ; J J J J
    .rlocals 0 2 0                      ; LNode; LString; LNode;
    .stack 3 2
    .line 27
    0: pushi 0
    5: pstore 0                         ; J
    .line 28
    8: pushi 0
    13: pstore 1                        ; J
    .line 29
    16: pushi 0
    21: pstore 2                        ; J
    24: jmp L162
L29:
    .line 30
    29: pushi 20
    34: pload 2                         ; J
    37: pushi 7
    42: irem
    43: iadd
    44: pload 2                         ; J
    47: pushi 3
    52: irem
    53: calln 0                         ; gt_make_list
    56: rstore 0                        ; LNode;
    .line 31
    59: lds 0                           ; ""
    62: rstore 1                        ; LString;
    .line 32
    65: pushi 0
    70: pstore 3                        ; J
    73: jmp L91
L78:
    78: rload 1                         ; LString;
    81: lds 1                           ; "x"
    84: scat
    85: rstore 1                        ; LString;
    88: iinc 3                          ; J
L91:
    91: pload 3                         ; J
    94: pushi 20
    99: ilt
    100: jt L78
    .line 33
    105: rload 0                        ; LNode;
    108: call 0                         ; callbacks.sum(LNode;)J
    111: rload 0                        ; LNode;
    114: calln 1                        ; gt_sum_list
    117: ieq
    118: jf L126
    123: iinc 0                         ; J
L126:
    .line 34
    126: pload 1                        ; J
    129: rload 0                        ; LNode;
    132: call 0                         ; callbacks.sum(LNode;)J
    135: iadd
    136: pstore 1                       ; J
    .line 35
    139: pload 2                        ; J
    142: pushi 100
    147: ieq
    148: jf L159
    153: rload 0                        ; LNode;
    156: calln 2                        ; gt_keep
L159:
    .line 29
    159: iinc 2                         ; J
L162:
    162: pload 2                        ; J
    165: pushi 200
    170: ilt
    171: jt L29
    .line 37
    176: lds 2                          ; "lists built by C: 200; C and the program"
    179: pload 0                        ; J
    182: i2s
    183: scat
    184: prints 1
    .line 38
    186: lds 3                          ; "total: "
    189: pload 1                        ; J
    192: i2s
    193: scat
    194: prints 1
    .line 39
    196: calln 3                        ; gt_kept
    199: rstore 2                       ; LNode;
    .line 40
    202: lds 4                          ; "kept by a global reference since round 1"
    205: rload 2                        ; LNode;
    208: getfp 0                        ; Node.value J
    211: i2s
    212: scat
    213: lds 5                          ; ", sum "
    216: scat
    217: rload 2                        ; LNode;
    220: call 0                         ; callbacks.sum(LNode;)J
    223: i2s
    224: scat
    225: prints 1
    .line 41
    227: calln 4                        ; gt_drop
    .line 42
    230: calln 3                        ; gt_kept
    233: anull
    234: req
    235: printz 1
    .line 43
    237: pushi 0
    242: retp

.class Node callbacks.gcl               ; class 1
.field 0 value 1                        ; J
.field 1 next 0                         ; LNode;
.field 2 weight 3                       ; D
.field 3 flag 4                         ; Z

.native 0 gt_make_list "libgclabtest.so" env 0 1 1 ; LNode; J J
.native 1 gt_sum_list "libgclabtest.so" env 1 0 ; J LNode;
.native 2 gt_keep "libgclabtest.so" env 5 0 ; V LNode;
.native 3 gt_kept "libgclabtest.so" env 0 ; LNode;
.native 4 gt_drop "libgclabtest.so" env 5 ; V

.entry 1                                ; callbacks.main
