// ReadHeap.java -- opens an HPROF binary dump with VisualVM's heap library
// (org-graalvm-visualvm-lib-jfluid-heap.jar, HeapFactory.createHeap) and
// prints what it reads, for tests/hprof/visualvm/visualvm_read.sh to compare
// with the VM:
//
//   java --class-path HEAPJAR:OQLJAR ReadHeap.java FILE [SEGMENT] [ASK...]
//
// HEAPJAR is org-graalvm-visualvm-lib-jfluid-heap.jar, OQLJAR
// org-graalvm-visualvm-lib-profiler-oql.jar (VisualVM's OQL engine, needed
// only by oql=), both from Debian's visualvm.
//
//   dumps N                 the heap dumps in FILE (SEGMENT picks one, from 0)
//   class NAME COUNT        every class with instances, sorted by name
//   total COUNT             all instances
//   thread-objects COUNT    the ROOT THREAD OBJECTs, each an Instance
//   size NAME EACH BYTES    per class with instances: its instance size
//                           (-1: an array class) and the sum of its
//                           instances' sizes, each asked of the instance
//   summary N BYTES         the heap summary's live instances and bytes
//   property KEY = VALUE    java.lang.System's props, sorted by key
//   asked N                 every instance was asked its size, retained
//                           size and nearest GC root, every class its
//                           retained size, as VisualVM's views ask them;
//                           N counts the program's objects
//   then one line per ASK, in order:
//     PATH                  PATH = VALUE, the value PATH reads
//     retained=PATH         retained PATH BYTES, its object's retained size
//     root=PATH             root PATH: CLASS <- CLASS ... <- ROOT, the path
//                           from its object to the nearest GC root
//     oql=QUERY             oql N: VALUE VALUE ..., the query's results
//                           with VisualVM's OQL engine, sorted (or "oql
//                           unsupported" without a JavaScript engine)
//
// A PATH starts at a static field, Class.field, and goes on through
// instance fields (.field) and array elements ([i]): Registry.points[2].x.
// A String prints as its text, in quotes (its value is a char[], as
// java.lang.String's was in JDK 8), any other reference as the class of its
// object ("Point"), null as null.  Hprof's own objects (odd IDs below
// 4096: java.lang.System's props) are left out of the class, total and size
// lines, which are the program's heap.  Output is UTF-8.  Anything the
// library throws fails the run.
import java.io.File;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Properties;
import java.util.TreeMap;
import org.graalvm.visualvm.lib.jfluid.heap.GCRoot;
import org.graalvm.visualvm.lib.jfluid.heap.Heap;
import org.graalvm.visualvm.lib.jfluid.heap.HeapFactory;
import org.graalvm.visualvm.lib.jfluid.heap.Instance;
import org.graalvm.visualvm.lib.jfluid.heap.JavaClass;
import org.graalvm.visualvm.lib.jfluid.heap.ObjectArrayInstance;
import org.graalvm.visualvm.lib.jfluid.heap.PrimitiveArrayInstance;
import org.graalvm.visualvm.lib.profiler.oql.engine.api.OQLEngine;

public class ReadHeap {
    public static void main(String[] args) throws Exception {
        System.setOut(new PrintStream(System.out, true, "UTF-8"));
        File file = new File(args[0]);
        int segment = args.length > 1 ? Integer.parseInt(args[1]) : 0;
        Heap heap = HeapFactory.createHeap(file, segment);
        System.out.println("dumps " + HeapFactory.getTotalNumberOfSegments(heap));
        TreeMap<String, Integer> counts = new TreeMap<>();
        TreeMap<String, String> sizes = new TreeMap<>();
        long total = 0;
        for (JavaClass c : heap.getAllClasses()) {
            int count = 0;
            long bytes = 0;
            for (Instance instance : c.getInstances()) {
                if (isHprofs(instance)) continue;
                count++;
                bytes += instance.getSize();
            }
            if (count == 0) continue;
            counts.merge(c.getName(), count, Integer::sum);
            sizes.put(c.getName(), c.getInstanceSize() + " " + bytes);
            total += count;
        }
        counts.forEach((name, count) -> System.out.println("class " + name + " " + count));
        System.out.println("total " + total);
        long threadObjects = heap.getGCRoots().stream()
            .filter(root -> root.getKind().equals(GCRoot.THREAD_OBJECT) && root.getInstance() != null).count();
        System.out.println("thread-objects " + threadObjects);
        sizes.forEach((name, size) -> System.out.println("size " + name + " " + size));
        System.out.println("summary " + heap.getSummary().getTotalLiveInstances() + " "
                           + heap.getSummary().getTotalLiveBytes());
        Properties properties = heap.getSystemProperties();
        if (properties != null)
            new TreeMap<>(properties).forEach((key, value) -> System.out.println("property " + key + " = " + value));
        System.out.println("asked " + askEverything(heap));
        for (int i = 2; i < args.length; i++) {
            String ask = args[i];
            if (ask.startsWith("retained=")) {
                String path = ask.substring(9);
                System.out.println("retained " + path + " " + ((Instance) read(heap, path)).getRetainedSize());
            } else if (ask.startsWith("root=")) {
                String path = ask.substring(5);
                System.out.println("root " + path + ": " + pathToRoot(heap, (Instance) read(heap, path)));
            } else if (ask.startsWith("oql=")) {
                System.out.println(Oql.run(heap, ask.substring(4)));
            } else {
                System.out.println(ask + " = " + show(read(heap, ask)));
            }
        }
    }

    /* Hprof's own objects: java.lang.System's props (hprof_binary.h). */
    static boolean isHprofs(Instance instance) {
        return instance.getInstanceId() < 4096 && (instance.getInstanceId() & 1) == 1;
    }

    /* What VisualVM's Objects and Dominators views ask of every object
     * (classes as objects and hprof's own too) and class; returns how many
     * of the program's objects were asked. */
    static long askEverything(Heap heap) {
        long asked = 0;
        for (JavaClass c : heap.getAllClasses()) c.getRetainedSizeByClass();
        heap.getBiggestObjectsByRetainedSize(10);
        for (Iterator<Instance> all = heap.getAllInstancesIterator(); all.hasNext();) {
            Instance instance = all.next();
            instance.getSize();
            instance.getRetainedSize();
            instance.getReachableSize();
            instance.getNearestGCRootPointer();
            heap.getGCRoots(instance);
            if (!isHprofs(instance) && !instance.getJavaClass().getName().equals("java.lang.Class")) asked++;
        }
        return asked;
    }

    /* CLASS <- CLASS ... <- the root: its kind, or "class NAME" for a class's statics. */
    static String pathToRoot(Heap heap, Instance instance) {
        StringBuilder path = new StringBuilder();
        for (int steps = 0; instance != null && steps < 1000; steps++) {
            if (path.length() > 0) path.append(" <- ");
            path.append(describe(instance));
            if (instance.isGCRoot()) {
                List<String> kinds = new ArrayList<>();
                for (GCRoot root : heap.getGCRoots(instance)) kinds.add(root.getKind());
                Collections.sort(kinds);
                return path.append(" (").append(String.join(", ", kinds)).append(")").toString();
            }
            instance = instance.getNearestGCRootPointer();
        }
        return path.append(" (no root)").toString();
    }

    static String describe(Instance instance) {
        JavaClass c = instance.getJavaClass();
        if (c.getName().equals("java.lang.Class")) {
            JavaClass described = instance.getJavaClass().getHeap().getJavaClassByID(instance.getInstanceId());
            return "class " + (described != null ? described.getName() : "?");
        }
        return c.getName();
    }

    /* Class.static, then .field and [i] steps. */
    static Object read(Heap heap, String path) {
        String[] steps = path.split("(?=[.\\[])");
        JavaClass start = heap.getJavaClassByName(steps[0]);
        if (start == null) throw new IllegalArgumentException("no class " + steps[0]);
        Object value = start.getValueOfStaticField(steps[1].substring(1));
        for (int i = 2; i < steps.length; i++) {
            String step = steps[i];
            if (step.startsWith(".")) {
                value = ((Instance) value).getValueOfField(step.substring(1));
            } else {
                int index = Integer.parseInt(step.substring(1, step.length() - 1));
                if (value instanceof PrimitiveArrayInstance) {
                    value = ((PrimitiveArrayInstance) value).getValues().get(index);
                } else {
                    List<Instance> elements = ((ObjectArrayInstance) value).getValues();
                    value = elements.get(index);
                }
            }
        }
        return value;
    }

    static String show(Object value) {
        if (value == null) return "null";
        if (value instanceof Instance) {
            Instance instance = (Instance) value;
            Object chars = instance.getValueOfField("value");
            if (!instance.getJavaClass().getName().equals("String") || !(chars instanceof PrimitiveArrayInstance))
                return instance.getJavaClass().getName();
            StringBuilder text = new StringBuilder("\"");
            for (String c : ((PrimitiveArrayInstance) chars).getValues()) text.append(c);
            return text.append('"').toString();
        }
        return value.toString();
    }

    /* A query through VisualVM's OQL engine, as its OQL Console runs it. */
    static class Oql {
        static String run(Heap heap, String query) throws Exception {
            if (!OQLEngine.isOQLSupported()) return "oql unsupported";
            OQLEngine engine = new OQLEngine(heap);
            List<String> results = new ArrayList<>();
            engine.executeQuery(query, result -> {
                results.add(String.valueOf(engine.unwrapJavaObject(result, true)));
                return false; /* go on */
            });
            Collections.sort(results);
            return "oql " + results.size() + ": " + String.join(" ", results);
        }
    }
}
