; expect: native free: parameter 1 has type C: only a native that takes the env can be given or return objects
.class C "t.gcl"
.method 0 main static
    .returns V
    .stack 0 0
    ret
.native 0 free "libc.so.6" V LC;
.entry C.main
