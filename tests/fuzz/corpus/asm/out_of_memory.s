; gclab assembly (vmas reads this back byte for byte)
.type 0 V
.type 1 J
.type 2 LBlock;
.type 3 [J
.string 0 "allocating 1 KB blocks and keeping every one of them reachable"
.string 1 "the collector will find nothing to free"
.string 2 "the heap never ran out: "
.string 3 " blocks, newest "

.class out_of_memory out_of_memory.gcl  ; class 0
.method 0 main static
    .params
    .returns 0                          ; V
    .plocals 1                          ; J
    .rlocals 2 2                        ; LBlock; LBlock;
    .stack 2 2
    .line 20
    0: lds 0                            ; "allocating 1 KB blocks and keeping every"
    3: prints 1
    .line 21
    5: lds 1                            ; "the collector will find nothing to free"
    8: prints 1
    .line 22
    10: anull
    11: rstore 0                        ; LBlock;
    .line 23
    14: pushi 0
    19: pstore 0                        ; J
    .line 24
    22: jmp L80
L27:
    .line 25
    27: new 1                           ; Block
    30: rstore 1                        ; LBlock;
    .line 26
    33: rload 1                         ; LBlock;
    36: pushi 128
    41: newarr 3                        ; [J
    44: putfr 0                         ; Block.data [J
    .line 27
    47: rload 1                         ; LBlock;
    50: getfr 0                         ; Block.data [J
    53: pushi 0
    58: pload 0                         ; J
    61: aputj
    .line 28
    62: rload 1                         ; LBlock;
    65: rload 0                         ; LBlock;
    68: putfr 1                         ; Block.next LBlock;
    .line 29
    71: rload 1                         ; LBlock;
    74: rstore 0                        ; LBlock;
    .line 30
    77: iinc 0                          ; J
L80:
    .line 24
    80: pload 0                         ; J
    83: pushi 100000
    88: ilt
    89: jt L27
    .line 33
    94: lds 2                           ; "the heap never ran out: "
    97: pload 0                         ; J
    100: i2s
    101: scat
    102: lds 3                          ; " blocks, newest "
    105: scat
    106: rload 0                        ; LBlock;
    109: getfr 0                        ; Block.data [J
    112: pushi 0
    117: agetj
    118: i2s
    119: scat
    120: prints 1
    .line 34
    122: ret

.class Block out_of_memory.gcl          ; class 1
.field 0 data 3                         ; [J
.field 1 next 2                         ; LBlock;

.entry 0                                ; out_of_memory.main
