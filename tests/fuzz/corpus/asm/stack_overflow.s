; expect: in C.main: primitive stack overflow: PUSHI makes the depth 2, more than the method's maximum 1
.class C "t.gcl"
.method 0 main static
    .returns V
    .stack 1 0
    pushi 1
    pushi 2
    iadd
    ppop
    ret
.entry C.main
