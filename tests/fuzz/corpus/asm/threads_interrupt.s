; gclab assembly (vmas reads this back byte for byte)
.type 0 LLog;
.type 1 LString;
.type 2 V
.type 3 Z
.type 4 J
.type 5 LThread;
.string 0 "; "
.string 1 "sleeper woke"
.string 2 "slept again at once"
.string 3 "interrupted() "
.string 4 " then "
.string 5 "waiter owns the monitor again"
.string 6 "waited again at once"
.string 7 "entrant entered"
.string 8 ""
.string 9 "sleeper"
.string 10 "waiter"
.string 11 "main leaves the monitor"
.string 12 "entrant"
.string 13 "main: interrupted() "

.class interrupt interrupt.gcl          ; class 0
.method 0 note static
    .params 0 1                         ; LLog; LString;
    .returns 2                          ; V
    .plocals
    .rlocals 0 1 0                      ; LLog; LString; LLog;
    .stack 2 3
    .line 12
    0: rload 0                          ; LLog;
    3: rdup
    4: rstore 2                         ; LLog;
    7: monenter
    .line 13
    8: rload 0                          ; LLog;
    11: getfr 0                         ; Log.text LString;
    14: slen
    15: pushi 0
    20: igt
    21: jf L42
    26: rload 0                         ; LLog;
    29: rload 0                         ; LLog;
    32: getfr 0                         ; Log.text LString;
    35: lds 0                           ; "; "
    38: scat
    39: putfr 0                         ; Log.text LString;
L42:
    .line 14
    42: rload 0                         ; LLog;
    45: rload 0                         ; LLog;
    48: getfr 0                         ; Log.text LString;
    51: rload 1                         ; LString;
    54: scat
    55: putfr 0                         ; Log.text LString;
    58: rload 2                         ; LLog;
    61: monexit
    .line 16
    62: ret
.method 1 sleeper static
    .params 0                           ; LLog;
    .returns 2                          ; V
    .plocals 3 3                        ; Z Z
    .rlocals 0                          ; LLog;
    .stack 1 3
    .line 22
    0: pushi 600000
    5: sleep
    .line 23
    6: rload 0                          ; LLog;
    9: lds 1                            ; "sleeper woke"
    12: call 0                          ; interrupt.note(LLog;LString;)V
    .line 24
    15: pushi 600000
    20: sleep
    .line 25
    21: rload 0                         ; LLog;
    24: lds 2                           ; "slept again at once"
    27: call 0                          ; interrupt.note(LLog;LString;)V
    .line 26
    30: interrupted
    31: pstore 0                        ; Z
    .line 27
    34: interrupted
    35: pstore 1                        ; Z
    .line 28
    38: rload 0                         ; LLog;
    41: lds 3                           ; "interrupted() "
    44: pload 0                         ; Z
    47: z2s
    48: scat
    49: lds 4                           ; " then "
    52: scat
    53: pload 1                         ; Z
    56: z2s
    57: scat
    58: call 0                          ; interrupt.note(LLog;LString;)V
    .line 29
    61: ret
.method 2 waiter static
    .params 0 0                         ; LLog; LLog;
    .returns 2                          ; V
    .plocals
    .rlocals 0 0 0                      ; LLog; LLog; LLog;
    .stack 1 3
    .line 34
    0: rload 1                          ; LLog;
    3: rdup
    4: rstore 2                         ; LLog;
    7: monenter
    .line 35
    8: rload 1                          ; LLog;
    11: pushz 1
    13: putfp 1                         ; Log.waiting Z
    .line 36
    16: rload 1                         ; LLog;
    19: notify 1
    .line 37
    21: rload 1                         ; LLog;
    24: pushi 0
    29: wait
    .line 38
    30: rload 0                         ; LLog;
    33: lds 5                           ; "waiter owns the monitor again"
    36: call 0                          ; interrupt.note(LLog;LString;)V
    .line 39
    39: rload 1                         ; LLog;
    42: pushi 600000
    47: wait
    .line 40
    48: rload 0                         ; LLog;
    51: lds 6                           ; "waited again at once"
    54: call 0                          ; interrupt.note(LLog;LString;)V
    .line 41
    57: rload 0                         ; LLog;
    60: lds 3                           ; "interrupted() "
    63: interrupted
    64: z2s
    65: scat
    66: call 0                          ; interrupt.note(LLog;LString;)V
    69: rload 2                         ; LLog;
    72: monexit
    .line 43
    73: ret
.method 3 entrant static
    .params 0 0                         ; LLog; LLog;
    .returns 2                          ; V
    .plocals
    .rlocals 0 0 0                      ; LLog; LLog; LLog;
    .stack 1 3
    .line 46
    0: rload 1                          ; LLog;
    3: rdup
    4: rstore 2                         ; LLog;
    7: monenter
    .line 47
    8: rload 0                          ; LLog;
    11: lds 7                           ; "entrant entered"
    14: call 0                          ; interrupt.note(LLog;LString;)V
    .line 48
    17: rload 0                         ; LLog;
    20: lds 3                           ; "interrupted() "
    23: interrupted
    24: z2s
    25: scat
    26: call 0                          ; interrupt.note(LLog;LString;)V
    29: rload 2                         ; LLog;
    32: monexit
    .line 50
    33: ret
.method 4 quick static
    .params
    .returns 2                          ; V
    .plocals
    .rlocals
    .stack 0 0
    .line 53
    0: ret
.method 5 main static
    .params
    .returns 4                          ; J
    .plocals
    .rlocals 0 5 0 5 0 5 0 5            ; LLog; LThread; LLog; LThread; LLog; LThread; LLog; LThread;
    .stack 1 3
    .line 56
    0: new 1                            ; Log
    3: rstore 0                         ; LLog;
    .line 57
    6: rload 0                          ; LLog;
    9: lds 8                            ; ""
    12: putfr 0                         ; Log.text LString;
    .line 58
    15: rload 0                         ; LLog;
    18: lds 9                           ; "sleeper"
    21: start 1                         ; interrupt.sleeper(LLog;)V
    24: rstore 1                        ; LThread;
    .line 59
    27: pushi 5
    32: sleep
    .line 60
    33: rload 1                         ; LThread;
    36: interrupt
    .line 61
    37: rload 1                         ; LThread;
    40: join
    .line 62
    41: rload 0                         ; LLog;
    44: getfr 0                         ; Log.text LString;
    47: prints 1
    .line 64
    49: rload 0                         ; LLog;
    52: lds 8                           ; ""
    55: putfr 0                         ; Log.text LString;
    .line 65
    58: new 1                           ; Log
    61: rstore 2                        ; LLog;
    .line 66
    64: rload 0                         ; LLog;
    67: rload 2                         ; LLog;
    70: lds 10                          ; "waiter"
    73: start 2                         ; interrupt.waiter(LLog;LLog;)V
    76: rstore 3                        ; LThread;
    .line 67
    79: rload 2                         ; LLog;
    82: rdup
    83: rstore 4                        ; LLog;
    86: monenter
    .line 68
    87: jmp L101
L92:
    92: rload 2                         ; LLog;
    95: pushi 0
    100: wait
L101:
    101: rload 2                        ; LLog;
    104: getfp 1                        ; Log.waiting Z
    107: jf L92
    .line 69
    112: rload 3                        ; LThread;
    115: interrupt
    .line 70
    116: pushi 5
    121: sleep
    .line 71
    122: rload 0                        ; LLog;
    125: lds 11                         ; "main leaves the monitor"
    128: call 0                         ; interrupt.note(LLog;LString;)V
    131: rload 4                        ; LLog;
    134: monexit
    .line 73
    135: rload 3                        ; LThread;
    138: join
    .line 74
    139: rload 0                        ; LLog;
    142: getfr 0                        ; Log.text LString;
    145: prints 1
    .line 76
    147: rload 0                        ; LLog;
    150: lds 8                          ; ""
    153: putfr 0                        ; Log.text LString;
    .line 77
    156: anull
    157: rstore 5                       ; LThread;
    .line 78
    160: rload 2                        ; LLog;
    163: rdup
    164: rstore 6                       ; LLog;
    167: monenter
    .line 79
    168: rload 0                        ; LLog;
    171: rload 2                        ; LLog;
    174: lds 12                         ; "entrant"
    177: start 3                        ; interrupt.entrant(LLog;LLog;)V
    180: rstore 5                       ; LThread;
    .line 80
    183: pushi 5
    188: sleep
    .line 81
    189: rload 5                        ; LThread;
    192: interrupt
    .line 82
    193: pushi 5
    198: sleep
    .line 83
    199: rload 0                        ; LLog;
    202: lds 11                         ; "main leaves the monitor"
    205: call 0                         ; interrupt.note(LLog;LString;)V
    208: rload 6                        ; LLog;
    211: monexit
    .line 85
    212: rload 5                        ; LThread;
    215: join
    .line 86
    216: rload 0                        ; LLog;
    219: getfr 0                        ; Log.text LString;
    222: prints 1
    .line 88
    224: anull
    225: start 4                        ; interrupt.quick()V
    228: rstore 7                       ; LThread;
    .line 89
    231: rload 7                        ; LThread;
    234: join
    .line 90
    235: rload 7                        ; LThread;
    238: interrupt
    .line 91
    239: rload 7                        ; LThread;
    242: interrupt
    .line 92
    243: lds 13                         ; "main: interrupted() "
    246: interrupted
    247: z2s
    248: scat
    249: prints 1
    .line 93
    251: pushi 0
    256: retp

.class Log interrupt.gcl                ; class 1
.field 0 text 1                         ; LString;
.field 1 waiting 3                      ; Z

.entry 5                                ; interrupt.main
