#!/bin/sh
# too_big.sh VMRUN -- a program whose main, instrumented, would outgrow the
# format's 65,535 bytes of code (vm/limits.h): it runs as it is, and
# tptp alloc=bci refuses it with one line, status 1, before it starts.
set -u
vmrun=$1
{
    echo "class A { int x; }"
    echo "int main() {"
    echo "    A a = null;"
    i=0
    while [ $i -lt 9000 ]; do echo "    a = new A();"; i=$((i + 1)); done
    echo "    println(\"ran\");"
    echo "    return 0;"
    echo "}"
} > big.gcl
out=$("$vmrun" big.gcl) || { echo "too_big: the program itself fails"; exit 1; }
[ "$out" = "ran" ] || { echo "too_big: the program printed '$out'"; exit 1; }
"$vmrun" -agentlib:tptp=alloc=bci,file=/dev/null big.gcl > out.txt 2> err.txt
status=$?
[ "$status" -eq 1 ] || { echo "too_big: status $status, expected 1"; exit 1; }
[ ! -s out.txt ] || { echo "too_big: the refused program ran"; exit 1; }
expected="tptp: alloc=bci: cannot instrument the program: method main: the instrumented code is over 65535 bytes, the limit"
[ "$(cat err.txt)" = "$expected" ] || { echo "too_big: stderr was: $(cat err.txt)"; exit 1; }
echo "too_big: ok"
