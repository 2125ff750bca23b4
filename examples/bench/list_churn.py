# list_churn -- mostly short-lived lists, a few kept alive for a while (the
# algorithm of list_churn.gcl).  A cell is a tuple (value, next).
# Usage: python3 list_churn.py [n]   (default 1000000 lists)
import sys


def make_list(length, seed):
    head = None
    for k in range(length):
        head = (seed + k, head)
    return head


def sum_list(cell):
    total = 0
    while cell is not None:
        value, cell = cell
        total += value
    return total


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000000
    survivors = [None] * 128
    total = 0
    for i in range(n):
        lst = make_list(1 + i % 32, i)
        total += sum_list(lst)
        if i % 100 == 0:
            survivors[(i // 100) % 128] = lst

    kept = 0
    kept_total = 0
    for s in survivors:
        if s is not None:
            kept += 1
            kept_total += sum_list(s)
    print(f"lists: {n}, total {total}")
    print(f"survivors: {kept}, total {kept_total}")


main()
