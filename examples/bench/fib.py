# fib -- naive doubly recursive Fibonacci (the algorithm of fib.gcl).
# Usage: python3 fib.py [n]   (default 37)
import sys


def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 37
    print(f"fib({n}) = {fib(n)}")


main()
