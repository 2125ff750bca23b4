; expect: native f: result type Object: Object (any reference) is only a parameter type
.class C "t.gcl"
.method 0 main static
    .returns V
    .stack 0 0
    ret
.native 0 f "libc.so.6" env LObject;
.entry C.main
