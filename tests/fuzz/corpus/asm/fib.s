; gclab assembly (vmas reads this back byte for byte)
.type 0 J
.type 1 [LString;
.string 0 "fib("
.string 1 ") = "

.class fib fib.gcl                      ; class 0
.method 0 fib static
    .params 0                           ; J
    .returns 0                          ; J
    .plocals 0                          ; J
    .rlocals
    .stack 3 0
    .line 6
    0: pload 0                          ; J
    3: pushi 2
    8: ilt
    9: jf L18
    14: pload 0                         ; J
    17: retp
L18:
    .line 7
    18: pload 0                         ; J
    21: pushi 1
    26: isub
    27: call 0                          ; fib.fib(J)J
    30: pload 0                         ; J
    33: pushi 2
    38: isub
    39: call 0                          ; fib.fib(J)J
    42: iadd
    43: retp
.method 1 main static
    .params 1                           ; [LString;
    .returns 0                          ; J
    .plocals 0                          ; J
    .rlocals 1                          ; [LString;
    .stack 2 2
    .line 11
    0: pushi 37
    5: pstore 0                         ; J
    .line 12
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
    .line 13
    36: lds 0                           ; "fib("
    39: pload 0                         ; J
    42: i2s
    43: scat
    44: lds 1                           ; ") = "
    47: scat
    48: pload 0                         ; J
    51: call 0                          ; fib.fib(J)J
    54: i2s
    55: scat
    56: prints 1
    .line 14
    58: pushi 0
    63: retp

.entry 1                                ; fib.main
