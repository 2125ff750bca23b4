// gcbench -- Hans Boehm's GCBench (the algorithm and scale of gcbench.gcl,
// which describes both; close to the published GCBench.java).
// Usage: java gcbench.java [maxDepth [arraySize]]   (default 16 500000)

class Gcbench {
    static final class Node {
        Node left, right;
        int i, j;

        Node(Node left, Node right) {
            this.left = left;
            this.right = right;
        }

        Node() {
        }
    }

    static int stretchDepth;

    static int treeSize(int depth) {
        return (1 << (depth + 1)) - 1;
    }

    static int numIters(int depth) {
        return 2 * treeSize(stretchDepth) / treeSize(depth);
    }

    // Gives `node` two children, recursively, down to `depth` levels.
    static void populate(int depth, Node node) {
        if (depth <= 0) return;
        node.left = new Node();
        node.right = new Node();
        populate(depth - 1, node.left);
        populate(depth - 1, node.right);
    }

    // Builds the children first, then their parent.
    static Node makeTree(int depth) {
        if (depth <= 0) return new Node();
        return new Node(makeTree(depth - 1), makeTree(depth - 1));
    }

    static int count(Node node) {
        if (node == null) return 0;
        return 1 + count(node.left) + count(node.right);
    }

    static void timeConstruction(int depth) {
        int iterations = numIters(depth);
        Node tree = null;
        for (int k = 0; k < iterations; k++) {
            tree = new Node();
            populate(depth, tree);
        }
        int topDown = count(tree);
        for (int k = 0; k < iterations; k++) tree = makeTree(depth);
        System.out.println("Creating " + iterations + " trees of depth " + depth + ": top-down " + topDown
                + " nodes, bottom-up " + count(tree) + " nodes");
    }

    public static void main(String[] args) {
        int minDepth = 4;
        int maxDepth = args.length > 0 ? Integer.parseInt(args[0]) : 16;
        stretchDepth = maxDepth + 2;
        int longLivedDepth = maxDepth;
        int arraySize = args.length > 1 ? Integer.parseInt(args[1]) : 500000;

        System.out.println("Garbage Collector Test");
        System.out.println(" Stretching memory with a binary tree of depth " + stretchDepth + ": "
                + count(makeTree(stretchDepth)) + " nodes");

        System.out.println(" Creating a long-lived binary tree of depth " + longLivedDepth);
        Node longLived = new Node();
        populate(longLivedDepth, longLived);

        System.out.println(" Creating a long-lived array of " + arraySize + " doubles");
        double[] array = new double[arraySize];
        for (int k = 1; k < arraySize / 2; k++) array[k] = 1.0 / k;

        for (int depth = minDepth; depth <= maxDepth; depth += 2) timeConstruction(depth);

        if (longLived == null || array[1000] != 1.0 / 1000) System.out.println("Failed");
        else System.out.println(" Long-lived tree: " + count(longLived) + " nodes; array[1000] = " + array[1000]);
    }
}
