; expect: the entry method C.main must return void or int
.class C "t.gcl"
.method 0 main static
    .returns D
    .stack 1 0
    pushi 1
    i2d
    retp
.entry C.main
