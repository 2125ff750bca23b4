// fib -- naive doubly recursive Fibonacci (the algorithm of fib.gcl).
// Usage: java fib.java [n]   (default 37)

class Fib {
    static int fib(int n) {
        if (n < 2) return n;
        return fib(n - 1) + fib(n - 2);
    }

    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 37;
        System.out.println("fib(" + n + ") = " + fib(n));
    }
}
