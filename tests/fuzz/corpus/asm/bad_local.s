; expect: in C.main: PLOAD 5: primitive local 5 does not exist (the method has 1)
.class C "t.gcl"
.method 0 main static
    .returns V
    .plocals J
    .stack 1 0
    pload 5
    ppop
    ret
.entry C.main
