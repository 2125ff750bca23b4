; expect: in C.main: START needs the thread's name (a string or null) on the reference stack
.class C "t.gcl"
.method 0 run static
    .returns V
    .stack 0 0
    ret
.method 1 main static
    .returns V
    .stack 0 1
    start C.run
    rpop
    ret
.entry C.main
