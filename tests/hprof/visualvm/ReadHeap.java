// ReadHeap.java -- opens an HPROF binary dump with VisualVM's heap library
// (org-graalvm-visualvm-lib-jfluid-heap.jar, HeapFactory.createHeap) and
// prints what it reads, for tests/hprof/visualvm/visualvm_read.sh to compare
// with the VM:
//
//   java --class-path JAR ReadHeap.java FILE [SEGMENT] [PATH...]
//
//   dumps N                 the heap dumps in FILE (SEGMENT picks one, from 0)
//   class NAME COUNT        every class with instances, sorted by name
//   total COUNT             all instances
//   thread-objects COUNT    the ROOT THREAD OBJECTs, each an Instance
//   PATH = VALUE            each PATH, read from the dump
//
// A PATH starts at a static field, Class.field, and goes on through
// instance fields (.field) and array elements ([i]): Registry.points[2].x.
// A String prints as its text, in quotes (its value is a char[], as
// java.lang.String's was in JDK 8), any other reference as the class of its
// object ("Point"), null as null.  Output is UTF-8.
import java.io.File;
import java.io.PrintStream;
import java.util.List;
import java.util.TreeMap;
import org.graalvm.visualvm.lib.jfluid.heap.GCRoot;
import org.graalvm.visualvm.lib.jfluid.heap.Heap;
import org.graalvm.visualvm.lib.jfluid.heap.HeapFactory;
import org.graalvm.visualvm.lib.jfluid.heap.Instance;
import org.graalvm.visualvm.lib.jfluid.heap.JavaClass;
import org.graalvm.visualvm.lib.jfluid.heap.ObjectArrayInstance;
import org.graalvm.visualvm.lib.jfluid.heap.PrimitiveArrayInstance;

public class ReadHeap {
    public static void main(String[] args) throws Exception {
        System.setOut(new PrintStream(System.out, true, "UTF-8"));
        File file = new File(args[0]);
        int segment = args.length > 1 ? Integer.parseInt(args[1]) : 0;
        Heap heap = HeapFactory.createHeap(file, segment);
        System.out.println("dumps " + HeapFactory.getTotalNumberOfSegments(heap));
        TreeMap<String, Integer> counts = new TreeMap<>();
        long total = 0;
        for (JavaClass c : heap.getAllClasses()) {
            if (c.getInstancesCount() == 0) continue;
            counts.merge(c.getName(), c.getInstancesCount(), Integer::sum);
            total += c.getInstancesCount();
        }
        counts.forEach((name, count) -> System.out.println("class " + name + " " + count));
        System.out.println("total " + total);
        long threadObjects = heap.getGCRoots().stream()
            .filter(root -> root.getKind().equals(GCRoot.THREAD_OBJECT) && root.getInstance() != null).count();
        System.out.println("thread-objects " + threadObjects);
        for (int i = 2; i < args.length; i++) System.out.println(args[i] + " = " + show(read(heap, args[i])));
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
}
