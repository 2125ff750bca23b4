; expect: in C.main: LDS 3: string constant 3 does not exist (the program has 1)
.string 0 "only one"
.class C "t.gcl"
.method 0 main static
    .returns V
    .stack 0 1
    lds 3
    prints 1
    ret
.entry C.main
