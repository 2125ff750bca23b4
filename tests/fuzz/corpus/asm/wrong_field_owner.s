; expect: in C.main: type mismatch: GETFP 0 (D.d) needs a D object but the reference stack has C
; There is no subtyping: a field of D cannot be read from a C.
.class C "t.gcl"
.method 0 main static
    .returns V
    .stack 1 1
    new C
    getfp D.d
    ppop
    ret
.class D "t.gcl"
.field 0 d J
.entry C.main
