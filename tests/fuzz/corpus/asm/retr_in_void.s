; expect: in C.main: RETR in a method that returns void (use RET)
.class C "t.gcl"
.method 0 main static
    .returns V
    .stack 0 1
    anull
    retr
.entry C.main
