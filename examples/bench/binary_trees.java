// binary_trees -- the Benchmarks Game's binary-trees (the algorithm of
// binary_trees.gcl), in plain classes as the Benchmarks Game's Java
// programs write it, single-threaded.
// Usage: java binary_trees.java [maxDepth]   (default 16)

class BinaryTrees {
    static final class Tree {
        final Tree left;
        final Tree right;

        Tree(Tree left, Tree right) {
            this.left = left;
            this.right = right;
        }

        int check() {
            if (left == null) return 1;
            return 1 + left.check() + right.check();
        }
    }

    static Tree bottomUp(int depth) {
        if (depth <= 0) return new Tree(null, null);
        return new Tree(bottomUp(depth - 1), bottomUp(depth - 1));
    }

    public static void main(String[] args) {
        int minDepth = 4;
        int maxDepth = args.length > 0 ? Integer.parseInt(args[0]) : 16;
        if (maxDepth < minDepth + 2) maxDepth = minDepth + 2;

        int stretchDepth = maxDepth + 1;
        System.out.println("stretch tree of depth " + stretchDepth + "\t check: " + bottomUp(stretchDepth).check());

        Tree longLived = bottomUp(maxDepth);
        for (int depth = minDepth; depth <= maxDepth; depth += 2) {
            int iterations = 1 << (maxDepth - depth + minDepth);
            long sum = 0;
            for (int i = 0; i < iterations; i++) sum += bottomUp(depth).check();
            System.out.println(iterations + "\t trees of depth " + depth + "\t check: " + sum);
        }
        System.out.println("long lived tree of depth " + maxDepth + "\t check: " + longLived.check());
    }
}
