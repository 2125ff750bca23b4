; A native taking an object without the env: the loader refuses it
; (the assembler is run with --no-verify to write it).
.class C "t.gcl"
.method 0 main static
    .returns V
    .stack 0 1
    anull
    calln 0
    ret
.native 0 free "libc.so.6" V LC;
.entry C.main
