; expect: field C.nothing has type void: void is only a return type
.class C "t.gcl"
.field 0 nothing V
.method 0 main static
    .returns V
    .stack 0 0
    ret
.entry C.main
