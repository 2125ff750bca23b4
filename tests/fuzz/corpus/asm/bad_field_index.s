; expect: in C.main: GETFP 9: field 9 does not exist (the program has 1)
.class C "t.gcl"
.field 0 n J
.method 0 main static
    .returns V
    .stack 1 1
    new C
    getfp 9
    ppop
    ret
.entry C.main
