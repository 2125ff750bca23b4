; expect: in C.main: CALL 7: method 7 does not exist (the program has 1)
.class C "t.gcl"
.method 0 main static
    .returns V
    .stack 0 0
    call 7
    ret
.entry C.main
