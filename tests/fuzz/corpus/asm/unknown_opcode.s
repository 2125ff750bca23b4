; expect: in C.main: unknown opcode 0xff
.class C "t.gcl"
.method 0 main static
    .returns V
    .stack 0 0
    nop
    .bytes 255
    ret
.entry C.main
