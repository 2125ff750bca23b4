; expect: type [LObject;: Object (any reference) has no arrays
.class C "t.gcl"
.method 0 main static
    .returns V
    .stack 1 1
    pushi 1
    newarr [LObject;
    rpop
    ret
.entry C.main
