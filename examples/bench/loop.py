# loop -- a tight integer arithmetic loop (same algorithm as loop.gcl).
# Usage: python3 loop.py [n]   (default 100000000 iterations)
import sys


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100000000
    acc = 0
    for i in range(n):
        acc = (acc * 31 + i) % 1000003
        acc = acc + (i & 15)
    print(f"loop({n}) = {acc}")


main()
