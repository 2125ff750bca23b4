# gcbench -- Hans Boehm's GCBench (the algorithm and scale of gcbench.gcl,
# which describes both).  A node is a class with __slots__: top-down
# construction fills in a node's children after the node is made.
# Usage: python3 gcbench.py [maxDepth [arraySize]]   (default 16 and 500000)
import sys


class Node:
    __slots__ = ("left", "right", "i", "j")

    def __init__(self, left=None, right=None):
        self.left = left
        self.right = right
        self.i = 0
        self.j = 0


stretch_depth = 0


def tree_size(depth):
    return (1 << (depth + 1)) - 1


def num_iters(depth):
    return 2 * tree_size(stretch_depth) // tree_size(depth)


def populate(depth, node):
    if depth <= 0:
        return
    node.left = Node()
    node.right = Node()
    populate(depth - 1, node.left)
    populate(depth - 1, node.right)


def make_tree(depth):
    if depth <= 0:
        return Node()
    left = make_tree(depth - 1)
    right = make_tree(depth - 1)
    return Node(left, right)


def count(node):
    if node is None:
        return 0
    return 1 + count(node.left) + count(node.right)


def time_construction(depth):
    iterations = num_iters(depth)
    tree = None
    for _ in range(iterations):
        tree = Node()
        populate(depth, tree)
    top_down = count(tree)
    for _ in range(iterations):
        tree = make_tree(depth)
    print(f"Creating {iterations} trees of depth {depth}: top-down {top_down} nodes, bottom-up {count(tree)} nodes")


def main():
    global stretch_depth
    min_depth = 4
    max_depth = int(sys.argv[1]) if len(sys.argv) > 1 else 16
    stretch_depth = max_depth + 2
    long_lived_depth = max_depth
    array_size = int(sys.argv[2]) if len(sys.argv) > 2 else 500000

    print("Garbage Collector Test")
    print(f" Stretching memory with a binary tree of depth {stretch_depth}: {count(make_tree(stretch_depth))} nodes")

    print(f" Creating a long-lived binary tree of depth {long_lived_depth}")
    long_lived = Node()
    populate(long_lived_depth, long_lived)

    print(f" Creating a long-lived array of {array_size} doubles")
    array = [0.0] * array_size
    for k in range(1, array_size // 2):
        array[k] = 1.0 / k

    for depth in range(min_depth, max_depth + 1, 2):
        time_construction(depth)

    if long_lived is None or array[1000] != 1.0 / 1000:
        print("Failed")
    else:
        print(f" Long-lived tree: {count(long_lived)} nodes; array[1000] = {array[1000]:.14g}")


main()
