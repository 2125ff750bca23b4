; gclab assembly (vmas reads this back byte for byte)
.type 0 LTurn;
.type 1 J
.type 2 LString;
.type 3 V
.type 4 LThread;
.string 0 " "
.string 1 "ping"
.string 2 "pong"
.string 3 "rounds: "

.class threads_handoff threads_handoff.gcl ; class 0
.method 0 player static
    .params 0 1 2 1                     ; LTurn; J LString; J
    .returns 3                          ; V
    .plocals 1 1 1                      ; J J J
    .rlocals 0 2 0                      ; LTurn; LString; LTurn;
    .stack 2 2
    .line 10
    0: pushi 0
    5: pstore 2                         ; J
    8: jmp L110
L13:
    .line 11
    13: rload 0                         ; LTurn;
    16: rdup
    17: rstore 2                        ; LTurn;
    20: monenter
    .line 12
    21: jmp L35
L26:
    26: rload 0                         ; LTurn;
    29: pushi 0
    34: wait
L35:
    35: rload 0                         ; LTurn;
    38: getfp 0                         ; Turn.whose J
    41: pload 0                         ; J
    44: ine
    45: jt L26
    .line 13
    50: rload 1                         ; LString;
    53: lds 0                           ; " "
    56: scat
    57: rload 0                         ; LTurn;
    60: getfp 1                         ; Turn.round J
    63: i2s
    64: scat
    65: prints 1
    .line 14
    67: rload 0                         ; LTurn;
    70: rdup
    71: getfp 1                         ; Turn.round J
    74: pushi 1
    79: iadd
    80: putfp 1                         ; Turn.round J
    .line 15
    83: rload 0                         ; LTurn;
    86: pushi 1
    91: pload 0                         ; J
    94: isub
    95: putfp 0                         ; Turn.whose J
    .line 16
    98: rload 0                         ; LTurn;
    101: notify 1
    103: rload 2                        ; LTurn;
    106: monexit
    .line 10
    107: iinc 2                         ; J
L110:
    110: pload 2                        ; J
    113: pload 1                        ; J
    116: ilt
    117: jt L13
    .line 19
    122: ret
.method 1 main static
    .params
    .returns 1                          ; J
    .plocals
    .rlocals 0 4 4 0                    ; LTurn; LThread; LThread; LTurn;
    .stack 2 3
    .line 22
    0: new 1                            ; Turn
    3: rstore 0                         ; LTurn;
    .line 23
    6: rload 0                          ; LTurn;
    9: pushi 0
    14: lds 1                           ; "ping"
    17: pushi 5
    22: lds 1                           ; "ping"
    25: start 0                         ; threads_handoff.player(LTurn;JLString;J)V
    28: rstore 1                        ; LThread;
    .line 24
    31: rload 0                         ; LTurn;
    34: pushi 1
    39: lds 2                           ; "pong"
    42: pushi 5
    47: lds 2                           ; "pong"
    50: start 0                         ; threads_handoff.player(LTurn;JLString;J)V
    53: rstore 2                        ; LThread;
    .line 25
    56: rload 1                         ; LThread;
    59: join
    .line 26
    60: rload 2                         ; LThread;
    63: join
    .line 28
    64: rload 0                         ; LTurn;
    67: rdup
    68: rstore 3                        ; LTurn;
    71: monenter
    72: rload 0                         ; LTurn;
    75: pushi 20
    80: wait
    81: rload 3                         ; LTurn;
    84: monexit
    .line 29
    85: pushi 10
    90: sleep
    .line 30
    91: lds 3                           ; "rounds: "
    94: rload 0                         ; LTurn;
    97: getfp 1                         ; Turn.round J
    100: i2s
    101: scat
    102: prints 1
    .line 31
    104: pushi 0
    109: retp

.class Turn threads_handoff.gcl         ; class 1
.field 0 whose 1                        ; J
.field 1 round 1                        ; J

.entry 1                                ; threads_handoff.main
