// loop -- a tight integer loop in a function (the algorithm of loop.gcl).
// Usage: java loop.java [n]   (default 100000000 iterations)

class Loop {
    static long loop(int n) {
        long acc = 0;
        for (int i = 0; i < n; i++) {
            acc = (acc * 31 + i) % 1000003;
            acc = acc + i % 16;
        }
        return acc;
    }

    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 100000000;
        System.out.println("loop(" + n + ") = " + loop(n));
    }
}
