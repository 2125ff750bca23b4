; gclab assembly (vmas reads this back byte for byte)
.type 0 [LString;
.type 1 J
.string 0 "loop("
.string 1 ") = "

.class loop loop.gcl                    ; class 0
.method 0 main static
    .params 0                           ; [LString;
    .returns 1                          ; J
    .plocals 1 1 1                      ; J J J
    .rlocals 0                          ; [LString;
    .stack 3 2
    .line 6
    0: pushi 100000000
    5: pstore 0                         ; J
    .line 7
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
    .line 8
    36: pushi 0
    41: pstore 1                        ; J
    .line 9
    44: pushi 0
    49: pstore 2                        ; J
    52: jmp L98
L57:
    .line 10
    57: pload 1                         ; J
    60: pushi 31
    65: imul
    66: pload 2                         ; J
    69: iadd
    70: pushi 1000003
    75: irem
    76: pstore 1                        ; J
    .line 11
    79: pload 1                         ; J
    82: pload 2                         ; J
    85: pushi 15
    90: iand
    91: iadd
    92: pstore 1                        ; J
    .line 9
    95: iinc 2                          ; J
L98:
    98: pload 2                         ; J
    101: pload 0                        ; J
    104: ilt
    105: jt L57
    .line 13
    110: lds 0                          ; "loop("
    113: pload 0                        ; J
    116: i2s
    117: scat
    118: lds 1                          ; ") = "
    121: scat
    122: pload 1                        ; J
    125: i2s
    126: scat
    127: prints 1
    .line 14
    129: pushi 0
    134: retp

.entry 0                                ; loop.main
