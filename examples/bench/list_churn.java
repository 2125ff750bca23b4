// list_churn -- mostly short-lived lists, a few kept alive for a while (the
// algorithm of list_churn.gcl).
// Usage: java list_churn.java [n]   (default 1000000 lists)

class ListChurn {
    static final class Cell {
        final long value;
        final Cell next;

        Cell(long value, Cell next) {
            this.value = value;
            this.next = next;
        }
    }

    static Cell makeList(int length, int seed) {
        Cell head = null;
        for (int k = 0; k < length; k++) head = new Cell(seed + k, head);
        return head;
    }

    static long sumList(Cell list) {
        long total = 0;
        for (Cell c = list; c != null; c = c.next) total += c.value;
        return total;
    }

    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 1000000;
        Cell[] survivors = new Cell[128];
        long total = 0;
        for (int i = 0; i < n; i++) {
            Cell list = makeList(1 + i % 32, i);
            total += sumList(list);
            if (i % 100 == 0) survivors[(i / 100) % 128] = list;
        }

        int kept = 0;
        long keptTotal = 0;
        for (Cell s : survivors) {
            if (s != null) {
                kept++;
                keptTotal += sumList(s);
            }
        }
        System.out.println("lists: " + n + ", total " + total);
        System.out.println("survivors: " + kept + ", total " + keptTotal);
    }
}
