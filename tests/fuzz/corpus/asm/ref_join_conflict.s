; expect: in C.main: reference stack types differ at join (pc 18): D vs C in slot 0
; Both paths reach "join" with one reference, of two different classes.
.class C "t.gcl"
.method 0 main static
    .returns V
    .stack 1 1
    pushz 1
    jf other
    new C
    jmp join
other:
    new D
join:
    rpop
    ret
.class D "t.gcl"
.entry C.main
