; expect: in C.main: call to native cos: argument 1 is int, not double
.class C "t.gcl"
.method 0 main static
    .returns V
    .stack 1 0
    pushi 1
    calln 0
    ppop
    ret
.native 0 cos "libm.so.6" D D
.entry C.main
