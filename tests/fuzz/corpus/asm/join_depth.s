; expect: in C.main: primitive stack depth differs at join (pc 18): 0 vs 1
; One path to "join" leaves an int on the stack, the other does not.
.class C "t.gcl"
.method 0 main static
    .returns V
    .stack 2 0
    pushz 1
    jt skip
    pushi 7
    jmp join
skip:
    nop
join:
    ret
.entry C.main
