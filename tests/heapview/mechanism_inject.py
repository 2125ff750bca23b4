#!/usr/bin/env python3
"""mechanism_inject.py TRACE DUMPS OUT -- a marksweep trace with gclab's
mechanism events written in (docs/heapview.md, "The step-through view"), as
the collector posts them when an agent enables them: per collection with a
dump, GC_PHASE_START/END "mark" around OBJECT_GREYED and OBJECT_BLACKENED
in a breadth-first mark from the dump's roots, then "sweep" around the
frees, each OBJECT_FREE after its OBJECT_FREE_CAUSE "unmarked".  Until the
collectors post these events themselves, this is how heapview's handling
of them is tested; the marks are the ones the dump's references give.
"""
import json
import sys

sys.path.insert(0, __file__.rsplit('/', 1)[0])
from page_truth import read_dumps  # noqa: E402  (beside this script)

trace_path, dumps_path, out_path = sys.argv[1:4]
dumps = read_dumps(dumps_path)


def marking(dump):
    """The events of a breadth-first mark from the dump's roots."""
    events, marked = [], set()

    def grey(obj):
        if obj not in marked and obj != dump['new']:
            marked.add(obj)
            queue.append(obj)
            events.append(('OBJECT_GREYED', obj))

    queue = []
    for root in dump['roots']:
        grey(root)
    for obj in queue:
        for child in dump['refs'].get(obj, []):
            grey(child)
        events.append(('OBJECT_BLACKENED', obj))
    return events


with open(trace_path, encoding='utf-8') as trace, open(out_path, 'w', encoding='utf-8') as out:
    out.write(next(trace))
    seq, collection, phase = 0, 0, None

    def write(event):
        global seq
        seq += 1
        event['seq'] = seq
        out.write(json.dumps(dict(sorted(event.items(), key=lambda kv: kv[0] != 'seq')), separators=(',', ':')) + '\n')

    def phase_event(kind, name):
        write({'event': kind, 'thread': 1, 'phase_name': name})

    for line in trace:
        e = json.loads(line)
        kind = e['event']
        if kind == 'GC_FINISH' and phase:
            phase_event('GC_PHASE_END', phase)
            phase = None
        if kind == 'OBJECT_FREE' and phase == 'mark':
            phase_event('GC_PHASE_END', 'mark')
            phase_event('GC_PHASE_START', 'sweep')
            phase = 'sweep'
        if kind == 'OBJECT_FREE' and phase:
            write({'event': 'OBJECT_FREE_CAUSE', 'thread': 1, 'obj_id': e['obj_id'], 'cause': 'unmarked'})
        write(e)
        if kind == 'GC_START':
            collection += 1
            if collection in dumps:
                phase_event('GC_PHASE_START', 'mark')
                phase = 'mark'
                for name, obj in marking(dumps[collection]):
                    write({'event': name, 'thread': 1, 'obj_id': obj})
