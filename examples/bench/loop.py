# loop -- a tight integer loop in a function (the algorithm of loop.gcl).
# Usage: python3 loop.py [n]   (default 100000000 iterations)
import sys


def loop(n):
    acc = 0
    for i in range(n):
        acc = (acc * 31 + i) % 1000003
        acc = acc + i % 16
    return acc


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100000000
    print(f"loop({n}) = {loop(n)}")


main()
