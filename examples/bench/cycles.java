// cycles -- reference cycles built and dropped (the algorithm of
// cycles.gcl).
// Usage: java cycles.java [n]   (default 200000 rings)

class Cycles {
    static final class RingNode {
        final int id;
        RingNode next;
        RingNode prev;

        RingNode(int id, RingNode prev) {
            this.id = id;
            this.prev = prev;
        }
    }

    static RingNode makeRing(int size, int firstId) {
        RingNode head = new RingNode(firstId, null);
        RingNode tail = head;
        for (int k = 1; k < size; k++) {
            RingNode node = new RingNode(firstId + k, tail);
            tail.next = node;
            tail = node;
        }
        tail.next = head;
        head.prev = tail;
        return head;
    }

    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 200000;
        long total = 0;
        long nodes = 0;
        for (int r = 0; r < n; r++) {
            int size = 10 + r % 90;
            RingNode ring = makeRing(size, r);
            long forward = 0;
            RingNode p = ring;
            for (int k = 0; k < size; k++) {
                forward += p.id;
                p = p.next;
            }
            long backward = 0;
            for (int k = 0; k < size; k++) {
                p = p.prev;
                backward += p.id;
            }
            if (forward != backward) System.out.println("mismatch in ring " + r);
            total += forward;
            nodes += size;
        }
        System.out.println("rings: " + n + ", nodes: " + nodes + ", total " + total);
    }
}
