; expect: in C.main: jump target 6 is not an instruction start
; The jump lands inside the operand of pushi.
.class C "t.gcl"
.method 0 main static
    .returns V
    .stack 1 0
    jmp +6
    pushi 1
    ppop
    ret
.entry C.main
