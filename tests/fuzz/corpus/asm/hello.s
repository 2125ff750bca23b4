; gclab assembly (vmas reads this back byte for byte)
.type 0 J
.type 1 LString;
.string 0 "Hello, world!"
.string 1 "collector"
.string 2 "Hello, "
.string 3 "!"

.class hello hello.gcl                  ; class 0
.method 0 main static
    .params
    .returns 0                          ; J
    .plocals
    .rlocals 1                          ; LString;
    .stack 1 2
    .line 11
    0: lds 0                            ; "Hello, world!"
    3: prints 1
    .line 12
    5: lds 1                            ; "collector"
    8: rstore 0                         ; LString;
    .line 13
    11: lds 2                           ; "Hello, "
    14: rload 0                         ; LString;
    17: scat
    18: lds 3                           ; "!"
    21: scat
    22: prints 1
    .line 14
    24: pushi 0
    29: retp

.entry 0                                ; hello.main
