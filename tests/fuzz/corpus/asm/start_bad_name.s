; expect: in C.main: START: the thread's name must be a string, not int[]
.type 0 [J
.class C "t.gcl"
.method 0 run static
    .returns V
    .stack 0 0
    ret
.method 1 main static
    .returns V
    .stack 1 1
    pushi 1
    newarr [J
    start C.run
    rpop
    ret
.entry C.main
