# binary_trees -- Benchmarks Game binary-trees (same algorithm as binary_trees.gcl).
# Usage: python3 binary_trees.py [maxDepth]   (default 16)
import sys


class Tree:
    __slots__ = ("left", "right")

    def __init__(self):
        self.left = None
        self.right = None


def make(depth):
    t = Tree()
    if depth > 0:
        t.left = make(depth - 1)
        t.right = make(depth - 1)
    return t


def check(t):
    if t.left is None:
        return 1
    return 1 + check(t.left) + check(t.right)


def main():
    min_depth = 4
    max_depth = int(sys.argv[1]) if len(sys.argv) > 1 else 16
    if max_depth < min_depth + 2:
        max_depth = min_depth + 2

    stretch_depth = max_depth + 1
    print(f"stretch tree of depth {stretch_depth}\t check: {check(make(stretch_depth))}")

    long_lived = make(max_depth)
    for depth in range(min_depth, max_depth + 1, 2):
        iterations = 1 << (max_depth - depth + min_depth)
        total = 0
        for _ in range(iterations):
            total += check(make(depth))
        print(f"{iterations}\t trees of depth {depth}\t check: {total}")
    print(f"long lived tree of depth {max_depth}\t check: {check(long_lived)}")


main()
