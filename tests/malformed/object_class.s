; expect: class Object: the name Object is reserved for any reference
.class Object "t.gcl"
.method 0 main static
    .returns V
    .stack 0 0
    ret
.entry Object.main
