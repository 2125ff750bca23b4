; expect: in C.main: type mismatch: AGETJ needs int[] but the reference stack has byte[]
.class C "t.gcl"
.method 0 main static
    .returns V
    .stack 1 1
    pushi 4
    newarr [B
    pushi 0
    agetj
    ppop
    ret
.entry C.main
