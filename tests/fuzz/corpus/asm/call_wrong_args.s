; expect: in C.main: call to C.make: expected (int) but the stacks have (double)
.double 0 3.0
.class C "t.gcl"
.method 0 make static
    .params J
    .returns LC;
    .plocals J
    .stack 0 1
    new C
    retr
.method 1 main static
    .returns V
    .stack 1 1
    ldd 0
    call C.make
    rpop
    ret
.entry C.main
