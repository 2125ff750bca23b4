; gclab assembly (vmas reads this back byte for byte)
.type 0 J
.type 1 D
.type 2 [D
.type 3 LString;
.double 0 0
.double 1 3.141592653589793
.double 2 0.25
.string 0 "cos(0) = "
.string 1 "cos(pi) = "
.string 2 "sum of cos(k/4), k < 8: "
.string 3 ""
.string 4 "strlen agrees with len on "
.string 5 " strings; the last is "
.string 6 " bytes"

.class natives natives.gcl              ; class 0
.method 0 main static
    .params
    .returns 0                          ; J
    .plocals 0 1 0 0 0                  ; J D J J J
    .rlocals 2 3                        ; [D LString;
    .stack 3 2
    .line 14
    0: lds 0                            ; "cos(0) = "
    3: ldd 0                            ; 0
    6: calln 0                          ; cos
    9: d2s
    10: scat
    11: prints 1
    .line 15
    13: lds 1                           ; "cos(pi) = "
    16: ldd 1                           ; 3.141592653589793
    19: calln 0                         ; cos
    22: d2s
    23: scat
    24: prints 1
    .line 17
    26: pushi 8
    31: newarr 2                        ; [D
    34: rstore 0                        ; [D
    .line 18
    37: pushi 0
    42: pstore 0                        ; J
    45: jmp L71
L50:
    50: rload 0                         ; [D
    53: pload 0                         ; J
    56: pload 0                         ; J
    59: i2d
    60: ldd 2                           ; 0.25
    63: dmul
    64: calln 0                         ; cos
    67: aputd
    68: iinc 0                          ; J
L71:
    71: pload 0                         ; J
    74: rload 0                         ; [D
    77: alen
    78: ilt
    79: jt L50
    .line 19
    84: ldd 0                           ; 0
    87: pstore 1                        ; D
    .line 20
    90: pushi 0
    95: pstore 2                        ; J
    98: jmp L120
L103:
    103: pload 1                        ; D
    106: rload 0                        ; [D
    109: pload 2                        ; J
    112: agetd
    113: dadd
    114: pstore 1                       ; D
    117: iinc 2                         ; J
L120:
    120: pload 2                        ; J
    123: rload 0                        ; [D
    126: alen
    127: ilt
    128: jt L103
    .line 21
    133: lds 2                          ; "sum of cos(k/4), k < 8: "
    136: pload 1                        ; D
    139: d2s
    140: scat
    141: prints 1
    .line 23
    143: lds 3                          ; ""
    146: rstore 1                       ; LString;
    .line 24
    149: pushi 0
    154: pstore 3                       ; J
    .line 25
    157: pushi 0
    162: pstore 4                       ; J
    165: jmp L215
L170:
    .line 26
    170: rload 1                        ; LString;
    173: pushi 97
    178: pload 4                        ; J
    181: pushi 26
    186: irem
    187: iadd
    188: chr
    189: scat
    190: rstore 1                       ; LString;
    .line 27
    193: rload 1                        ; LString;
    196: calln 1                        ; strlen
    199: rload 1                        ; LString;
    202: slen
    203: ieq
    204: jf L212
    209: iinc 3                         ; J
L212:
    .line 25
    212: iinc 4                         ; J
L215:
    215: pload 4                        ; J
    218: pushi 500
    223: ilt
    224: jt L170
    .line 29
    229: lds 4                          ; "strlen agrees with len on "
    232: pload 3                        ; J
    235: i2s
    236: scat
    237: lds 5                          ; " strings; the last is "
    240: scat
    241: rload 1                        ; LString;
    244: calln 1                        ; strlen
    247: i2s
    248: scat
    249: lds 6                          ; " bytes"
    252: scat
    253: prints 1
    .line 30
    255: pushi 0
    260: retp

.native 0 cos "libm.so.6" 1 1           ; D D
.native 1 strlen "libc.so.6" 0 3        ; J LString;

.entry 0                                ; natives.main
