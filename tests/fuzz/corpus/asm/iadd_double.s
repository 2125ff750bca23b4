; expect: in C.main: type mismatch: IADD needs int, int but the stack has int, double
.double 0 2.5
.class C "t.gcl"
.method 0 main static
    .returns J
    .stack 2 0
    pushi 1
    ldd 0
    iadd
    retp
.entry C.main
