# binary_trees -- the Benchmarks Game's binary-trees (the algorithm of
# binary_trees.gcl).  A node is a tuple (left, right), a leaf (None, None),
# as the Benchmarks Game's Python programs write it.
# Usage: python3 binary_trees.py [maxDepth]   (default 16)
import sys


def bottom_up(depth):
    if depth <= 0:
        return (None, None)
    return (bottom_up(depth - 1), bottom_up(depth - 1))


def check(tree):
    left, right = tree
    if left is None:
        return 1
    return 1 + check(left) + check(right)


def main():
    min_depth = 4
    max_depth = int(sys.argv[1]) if len(sys.argv) > 1 else 16
    if max_depth < min_depth + 2:
        max_depth = min_depth + 2

    stretch_depth = max_depth + 1
    print(f"stretch tree of depth {stretch_depth}\t check: {check(bottom_up(stretch_depth))}")

    long_lived = bottom_up(max_depth)
    for depth in range(min_depth, max_depth + 1, 2):
        iterations = 1 << (max_depth - depth + min_depth)
        total = 0
        for _ in range(iterations):
            total += check(bottom_up(depth))
        print(f"{iterations}\t trees of depth {depth}\t check: {total}")
    print(f"long lived tree of depth {max_depth}\t check: {check(long_lived)}")


main()
