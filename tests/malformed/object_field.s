; expect: field C.any has type Object: Object (any reference) is only the type of a native's parameter
.class C "t.gcl"
.field 0 any LObject;
.method 0 main static
    .returns V
    .stack 0 0
    ret
.entry C.main
