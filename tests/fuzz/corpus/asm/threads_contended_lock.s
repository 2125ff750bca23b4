; gclab assembly (vmas reads this back byte for byte)
.type 0 LCounter;
.type 1 J
.type 2 V
.type 3 [LThread;
.string 0 "lost an update"
.string 1 "worker-"
.string 2 "counter: "

.class threads_contended_lock threads_contended_lock.gcl ; class 0
.method 0 work static
    .params 0 1                         ; LCounter; J
    .returns 2                          ; V
    .plocals 1 1 1 1                    ; J J J J
    .rlocals 0 0                        ; LCounter; LCounter;
    .stack 3 2
    .line 15
    0: pushi 0
    5: pstore 1                         ; J
    8: jmp L104
L13:
    .line 16
    13: rload 0                         ; LCounter;
    16: rdup
    17: rstore 1                        ; LCounter;
    20: monenter
    .line 17
    21: rload 0                         ; LCounter;
    24: getfp 0                         ; Counter.value J
    27: pstore 2                        ; J
    .line 18
    30: pushi 0
    35: pstore 3                        ; J
    38: jmp L57
L43:
    43: rload 0                         ; LCounter;
    46: pushi 1
    51: call 2                          ; Counter.add(J)V
    54: iinc 3                          ; J
L57:
    57: pload 3                         ; J
    60: pushi 20
    65: ilt
    66: jt L43
    .line 19
    71: rload 0                         ; LCounter;
    74: getfp 0                         ; Counter.value J
    77: pload 2                         ; J
    80: pushi 20
    85: iadd
    86: ine
    87: jf L97
    92: lds 0                           ; "lost an update"
    95: prints 1
L97:
    97: rload 1                         ; LCounter;
    100: monexit
    .line 15
    101: iinc 1                         ; J
L104:
    104: pload 1                        ; J
    107: pload 0                        ; J
    110: ilt
    111: jt L13
    .line 22
    116: ret
.method 1 main static
    .params
    .returns 1                          ; J
    .plocals 1 1                        ; J J
    .rlocals 0 3                        ; LCounter; [LThread;
    .stack 3 4
    .line 25
    0: new 1                            ; Counter
    3: rstore 0                         ; LCounter;
    .line 26
    6: pushi 4
    11: newarr 3                        ; [LThread;
    14: rstore 1                        ; [LThread;
    .line 27
    17: pushi 0
    22: pstore 0                        ; J
    25: jmp L59
L30:
    30: rload 1                         ; [LThread;
    33: pload 0                         ; J
    36: rload 0                         ; LCounter;
    39: pushi 5000
    44: lds 1                           ; "worker-"
    47: pload 0                         ; J
    50: i2s
    51: scat
    52: start 0                         ; threads_contended_lock.work(LCounter;J)V
    55: aputr
    56: iinc 0                          ; J
L59:
    59: pload 0                         ; J
    62: rload 1                         ; [LThread;
    65: alen
    66: ilt
    67: jt L30
    .line 28
    72: pushi 0
    77: pstore 1                        ; J
    80: jmp L96
L85:
    85: rload 1                         ; [LThread;
    88: pload 1                         ; J
    91: agetr
    92: join
    93: iinc 1                          ; J
L96:
    96: pload 1                         ; J
    99: rload 1                         ; [LThread;
    102: alen
    103: ilt
    104: jt L85
    .line 29
    109: lds 2                          ; "counter: "
    112: rload 0                        ; LCounter;
    115: getfp 0                        ; Counter.value J
    118: i2s
    119: scat
    120: prints 1
    .line 30
    122: pushi 0
    127: retp

.class Counter threads_contended_lock.gcl ; class 1
.field 0 value 1                        ; J
.method 2 add instance
    .params 1                           ; J
    .returns 2                          ; V
    .plocals 1                          ; J
    .rlocals 0 0                        ; LCounter; LCounter;
    .stack 2 2
    .line 8
    0: rload 0                          ; LCounter;
    3: rdup
    4: rstore 1                         ; LCounter;
    7: monenter
    .line 9
    8: rload 0                          ; LCounter;
    11: rdup
    12: getfp 0                         ; Counter.value J
    15: pload 0                         ; J
    18: iadd
    19: putfp 0                         ; Counter.value J
    22: rload 1                         ; LCounter;
    25: monexit
    .line 11
    26: ret

.entry 1                                ; threads_contended_lock.main
