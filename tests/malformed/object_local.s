; expect: reference local 0 has type Object
.class C "t.gcl"
.method 0 main static
    .returns V
    .rlocals LObject;
    .stack 0 0
    ret
.entry C.main
