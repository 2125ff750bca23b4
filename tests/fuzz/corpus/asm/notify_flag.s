; expect: in C.main: NOTIFY operand 2 is not 0 or 1 (the notify-all flag)
.string 0 "x"
.class C "t.gcl"
.method 0 main static
    .returns V
    .stack 0 1
    lds 0
    notify 2
    ret
.entry C.main
