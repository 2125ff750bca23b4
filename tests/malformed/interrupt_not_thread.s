; expect: in C.main: type mismatch: INTERRUPT needs Thread but the reference stack has string
.string 0 "x"
.class C "t.gcl"
.method 0 main static
    .returns V
    .stack 0 1
    lds 0
    interrupt
    ret
.entry C.main
