; expect: in C.make: reference stack underflow: RETR needs 1 value but the stack has 0
; An int is pushed where a reference is returned: with two stacks, the
; reference stack is simply empty.
.class C "t.gcl"
.method 0 make static
    .returns LC;
    .stack 1 0
    pushi 42
    retr
.method 1 main static
    .returns V
    .stack 0 0
    ret
.entry C.main
