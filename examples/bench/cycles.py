# cycles -- reference cycles built and dropped (the algorithm of
# cycles.gcl).  A ring node is a class with __slots__ (its links change
# after it is made, so a tuple will not do).
# Usage: python3 cycles.py [n]   (default 200000 rings)
import sys


class RingNode:
    __slots__ = ("id", "next", "prev")

    def __init__(self, node_id, prev):
        self.id = node_id
        self.next = None
        self.prev = prev


def make_ring(size, first_id):
    head = RingNode(first_id, None)
    tail = head
    for k in range(1, size):
        node = RingNode(first_id + k, tail)
        tail.next = node
        tail = node
    tail.next = head
    head.prev = tail
    return head


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200000
    total = 0
    nodes = 0
    for r in range(n):
        size = 10 + r % 90
        ring = make_ring(size, r)
        forward = 0
        p = ring
        for _ in range(size):
            forward += p.id
            p = p.next
        backward = 0
        for _ in range(size):
            p = p.prev
            backward += p.id
        if forward != backward:
            print(f"mismatch in ring {r}")
        total += forward
        nodes += size
    print(f"rings: {n}, nodes: {nodes}, total {total}")


main()
