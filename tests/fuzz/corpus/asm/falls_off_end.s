; expect: in C.main: execution falls off the end of the code after PRINTI
.class C "t.gcl"
.method 0 main static
    .returns V
    .stack 1 0
    pushi 1
    printi 1
.entry C.main
