#!/usr/bin/env python3
"""hprof_records.py -- walks an HPROF binary file ("JAVA PROFILE 1.0.2", the
HPROF agent manual, "Binary Dump Format (format=b)") record by record and
sub-record by sub-record, and prints what it holds, one fact a line:

    records TAG COUNT          how many records of each tag (hex)
    heap_dump OBJECTS          per HEAP DUMP (segments up to HEAP DUMP END):
                               its instance and array dumps, but hprof's
                               own (odd IDs below 4096: java.lang.System's
                               props, hprof_binary.h)
    thread_objects N           per HEAP DUMP: its ROOT THREAD OBJECTs
    summary LIVE_OBJECTS LIVE_BYTES  per HEAP SUMMARY
    sites LISTED LIVE_OBJECTS  per ALLOC SITES: sites listed and the live
                               objects they sum to
    control FLAGS DEPTH        per CONTROL SETTINGS: its flags (hex) and depth
    cpu_samples TOTAL TRACES   per CPU SAMPLES: its total, which must be the
                               sum of its traces' samples, and its traces

It exits non-zero, naming the offset, on anything malformed: a bad header, a
record running past the end, a sub-record running past its segment, a
segment not closed by HEAP DUMP END, a stack trace naming an undefined frame,
a ROOT THREAD OBJECT naming a thread no START THREAD started,
an object or site naming a trace never written, a trace, a class serial
or (within one heap dump) an object defined twice, and, within one heap
dump, a reference (a root, a static, an instance field, an array element,
an instance's or an array's class) to no object or class in it.

    hprof_records.py FILE
"""
import struct
import sys
from collections import Counter

SIZES = {2: None, 4: 1, 5: 2, 6: 4, 7: 8, 8: 1, 9: 2, 10: 4, 11: 8}  # None: an ID


def fail(offset, why):
    sys.exit(f"hprof_records: offset {offset}: {why}")


def main(path):
    data = open(path, "rb").read()
    head = b"JAVA PROFILE 1.0.2\0"
    if not data.startswith(head):
        fail(0, "not a JAVA PROFILE 1.0.2 file")
    (id_size,) = struct.unpack_from(">I", data, len(head))
    if id_size not in (4, 8):
        fail(len(head), f"identifier size {id_size}")
    id_fmt = ">I" if id_size == 4 else ">Q"
    SIZES[2] = id_size
    at = len(head) + 12
    counts = Counter()
    frames, traces, serials, used_traces = set(), set(), set(), []
    threads = set()
    dump = None
    facts = []
    while at < len(data):
        if at + 9 > len(data):
            fail(at, "a record header runs past the end")
        tag, _, length = struct.unpack_from(">BII", data, at)
        body, end = at + 9, at + 9 + length
        if end > len(data):
            fail(at, f"record 0x{tag:02x} of {length} bytes runs past the end")
        counts[tag] += 1
        if tag == 0x02:
            (serial,) = struct.unpack_from(">I", data, body)
            if serial in serials:
                fail(at, f"class serial {serial} loaded twice")
            serials.add(serial)
        elif tag == 0x0A:
            threads.add(struct.unpack_from(">I", data, body)[0])
        elif tag == 0x04:
            frames.add(struct.unpack_from(id_fmt, data, body)[0])
        elif tag == 0x05:
            serial, _, n = struct.unpack_from(">III", data, body)
            for i in range(n):
                if struct.unpack_from(id_fmt, data, body + 12 + i * id_size)[0] not in frames:
                    fail(at, f"trace {serial} names an undefined frame")
            if serial in traces:
                fail(at, f"trace {serial} written twice")
            traces.add(serial)
        elif tag == 0x06:
            live_bytes, live_objects, _, _, n = struct.unpack_from(">IIQQI", data, body + 6)
            listed = 0
            for i in range(n):
                _, _, trace, _, objs, _, _ = struct.unpack_from(">BIIIIII", data, body + 34 + 25 * i)
                used_traces.append((at, trace))
                listed += objs
            facts.append(f"sites {n} {listed}")
        elif tag == 0x0D:
            total, n = struct.unpack_from(">II", data, body)
            samples = 0
            for i in range(n):
                count, trace = struct.unpack_from(">II", data, body + 8 + 8 * i)
                used_traces.append((at, trace))
                samples += count
            if samples != total:
                fail(at, f"CPU SAMPLES of total {total} lists {samples} samples")
            facts.append(f"cpu_samples {total} {n}")
        elif tag == 0x0E:
            flags, depth = struct.unpack_from(">IH", data, body)
            facts.append(f"control {flags:x} {depth}")
        elif tag == 0x07:
            live_bytes, live_objects = struct.unpack_from(">II", data, body)
            facts.append(f"summary {live_objects} {live_bytes}")
        elif tag == 0x1C:
            dump = dump or Dump()
            walk_segment(data, body, end, id_size, id_fmt, used_traces, dump)
        elif tag == 0x2C:
            if not dump:
                fail(at, "HEAP DUMP END without a segment")
            dump.check_references(data, id_size, id_fmt)
            for where, thread in dump.thread_objects:
                if thread not in threads:
                    fail(where, f"a ROOT THREAD OBJECT of thread {thread}, which no START THREAD started")
            facts.append(f"heap_dump {dump.objects_dumped}")
            facts.append(f"thread_objects {len(dump.thread_objects)}")
            dump = None
        elif dump:
            fail(at, f"record 0x{tag:02x} inside a heap dump")
        at = end
    if dump:
        fail(at, "a heap dump is not closed by HEAP DUMP END")
    for where, trace in used_traces:
        if trace and trace not in traces:
            fail(where, f"trace {trace} is never written")
    for tag in sorted(counts):
        print(f"records {tag:02x} {counts[tag]}")
    print("\n".join(facts))


def is_hprofs(object_id):
    """An object hprof adds (hprof_binary.h); the VM's IDs are addresses."""
    return object_id < 4096 and object_id % 2 == 1


class Dump:
    """One heap dump's objects and classes, and the references to check."""

    def __init__(self):
        self.ids = {0}             # objects and classes; 0 is null
        self.objects_dumped = 0
        self.thread_objects = []   # (offset, thread serial) of each ROOT THREAD OBJECT
        self.classes = {}          # class ID -> (super ID, instance field types)
        self.references = []       # (offset, ID)
        self.instances = []        # (offset, class ID, offset of values, their bytes)

    def add(self, offset, object_id):
        if object_id in self.ids:
            fail(offset, f"object {object_id:x} dumped twice")
        self.ids.add(object_id)

    def check_references(self, data, id_size, id_fmt):
        for offset, class_id, at, n in self.instances:
            self.references.append((offset, class_id))
            while class_id:  # this class's values, then its superclass's
                if class_id not in self.classes:
                    fail(offset, f"instance of class {class_id:x}, which has no CLASS DUMP")
                class_id, types = self.classes[class_id]
                for t in types:
                    if t == 2:
                        self.references.append((offset, struct.unpack_from(id_fmt, data, at)[0]))
                    at += SIZES[t]
                    n -= SIZES[t]
            if n != 0:
                fail(offset, "an instance's values are not its class's fields")
        for offset, object_id in self.references:
            if object_id not in self.ids:
                fail(offset, f"a reference to {object_id:x}, which is not in the dump")


def walk_segment(data, at, end, id_size, id_fmt, used_traces, dump):
    """The sub-records of one segment, into `dump`."""
    def read_id(at):
        return struct.unpack_from(id_fmt, data, at)[0]
    root_sizes = {0xFF: 0, 0x01: id_size, 0x02: 8, 0x03: 8, 0x04: 4, 0x05: 0, 0x06: 4, 0x07: 0, 0x08: 8}
    while at < end:
        start, kind = at, data[at]
        at += 1
        if kind in root_sizes:
            dump.references.append((start, read_id(at)))
            if kind == 0x08:  # the thread's object, its serial, its trace's
                thread, trace = struct.unpack_from(">II", data, at + id_size)
                dump.thread_objects.append((start, thread))
                used_traces.append((start, trace))
            at += id_size + root_sizes[kind]
        elif kind == 0x20:
            class_id, super_id = read_id(at), read_id(at + id_size + 4)
            dump.add(start, class_id)
            dump.references.append((start, super_id))
            at += id_size * 7 + 8
            (pool,) = struct.unpack_from(">H", data, at)
            at += 2
            for _ in range(pool):
                at += 2 + 1 + SIZES[data[at + 2]]
            (statics,) = struct.unpack_from(">H", data, at)
            at += 2
            for _ in range(statics):
                if data[at + id_size] == 2:
                    dump.references.append((start, read_id(at + id_size + 1)))
                at += id_size + 1 + SIZES[data[at + id_size]]
            (fields,) = struct.unpack_from(">H", data, at)
            types = [data[at + 2 + i * (id_size + 1) + id_size] for i in range(fields)]
            dump.classes[class_id] = (super_id, types)
            at += 2 + fields * (id_size + 1)
        elif kind in (0x21, 0x22, 0x23):
            dump.add(start, read_id(at))
            (trace,) = struct.unpack_from(">I", data, at + id_size)
            used_traces.append((start, trace))
            at += id_size + 4
            if kind == 0x21:
                (n,) = struct.unpack_from(">I", data, at + id_size)
                dump.instances.append((start, read_id(at), at + id_size + 4, n))
                at += id_size + 4 + n
            elif kind == 0x22:
                (n,) = struct.unpack_from(">I", data, at)
                for i in range(n + 1):  # the array's class, then its elements
                    dump.references.append((start, read_id(at + 4 + i * id_size)))
                at += 4 + id_size + n * id_size
            else:
                n, element = struct.unpack_from(">IB", data, at)
                if element not in SIZES or element == 2:
                    fail(start, f"primitive array of type {element}")
                at += 5 + n * SIZES[element]
            if not is_hprofs(read_id(start + 1)):
                dump.objects_dumped += 1
        else:
            fail(start, f"unknown sub-record 0x{kind:02x}")
        if at > end:
            fail(start, f"sub-record 0x{kind:02x} runs past its segment")


if __name__ == "__main__":
    main(sys.argv[1])
