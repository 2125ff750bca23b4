#!/usr/bin/env python3
"""page_truth.py -- is heapview's picture true?  (docs/heapview.md, "The tests")

    page_truth.py model WORK_DIR COLLECTOR...   the page's model against the traces and dumps
    page_truth.py pixels DOM.html PAGE.png      the screenshot against the page's model

WORK_DIR holds, per collector, GC.jsonl (the trace agent's) and GC.dumps
(the heapdump agent's), and dom.html, the DOM Chromium dumped of the page
drawn from them; the page's model is its #heapview-model block.

model: for every collection the page has a scene of, this script works out
on its own, from the trace and the dump taken after that collection, what
was reachable from the roots (mapped back to the addresses before the
collection through the trace's moves), which objects the collection freed
and where it moved which; the page's marked set, frees and moves must be
those.  It checks the collector's own promise too (a tracing collector
frees exactly what is unreachable; a copying one copies exactly what is
reachable).  And per class, the lifetimes: objects allocated, deaths by
collections survived and by bytes allocated in their lives, live at the end.

pixels: the points the page says it drew (a class's colour, the free
colour) must have that colour in the screenshot; the free colour must be
no class's; each arena strip's width, measured in the screenshot, must be
in proportion to its arena's size; every run on screen must show live
objects (before its first collection, the page's early snapshots).  A blank or recoloured page fails.
Prints one line per failure and exits 1, or "ok: ..." and 0.
"""
import html
import json
import re
import struct
import sys
import zlib

failures = []


def fail(message):
    failures.append(message)
    print('FAIL: ' + message, file=sys.stderr)


def page_model(dom_path):
    text = open(dom_path, encoding='utf-8').read()
    found = re.search(r'<script type="application/json" id="heapview-model">(.*?)</script>', text, re.S)
    if not found:
        fail(dom_path + ': the page exposed no model (#heapview-model): not ready?')
        sys.exit(1)
    return json.loads(html.unescape(found.group(1)))


# ---- the trace, replayed --------------------------------------------------------------

LIFE_AGES, LIFE_SPANS = 8, 10


def span_bucket(lived):
    bucket, limit = 0, 256
    while bucket < LIFE_SPANS - 1 and lived >= limit:
        bucket, limit = bucket + 1, limit * 4
    return bucket


def replay(trace_path):
    """Per collection (from 1): the live objects at its GC_START, its frees and
    moves; per class name, the lifetimes."""
    classes, live, arena_of = {}, {}, {}
    collections, current, clock = [], None, 0
    lives = {}

    def life(name):
        return lives.setdefault(name, {'allocated': [0, 0], 'died_at': [0] * LIFE_AGES, 'span': [0] * LIFE_SPANS,
                                       'live_at_end': 0})

    def dies(obj):
        name, _, born_gc, born_clock = live.pop(obj)
        entry = life(name)
        entry['died_at'][min(len(collections) - born_gc - 1, LIFE_AGES - 1)] += 1
        entry['span'][span_bucket(clock - born_clock)] += 1

    with open(trace_path, encoding='utf-8') as trace:
        next(trace)
        for line in trace:
            e = json.loads(line)
            kind = e['event']
            if e.get('requested'):
                continue
            if kind == 'CLASS_LOAD':
                classes[e['class_id']] = e['class_name']
            elif kind == 'OBJECT_ALLOC':
                name = classes.get(e['class_id'], '(class not loaded)' if e['class_id'] else '(no class)')
                if e['is_array'] == 2 and e['class_id'] in classes:  # an array of objects: apart from its element class
                    name += '[]'

                live[e['obj_id']] = (name, e['arena_id'], len(collections), clock)
                clock += e['size']
                entry = life(name)
                entry['allocated'][0] += 1
                entry['allocated'][1] += e['size']
            elif kind == 'GC_START':
                current = {'live': set(live), 'freed': set(), 'moved': {}, 'phases': [], 'blackened': []}
                collections.append(current)
            elif kind == 'GC_PHASE_START' and current is not None and e['phase_name'] not in current['phases']:
                current['phases'].append(e['phase_name'])
            elif kind == 'OBJECT_BLACKENED' and current is not None:
                # a copy is blackened at its new address: the page names objects by their old one
                back = {new: old for old, new in current['moved'].items()}
                current['blackened'].append(back.get(e['obj_id'], e['obj_id']))
            elif kind == 'GC_FINISH':
                current = None
            elif kind == 'OBJECT_FREE':
                current['freed'].add(e['obj_id'])
                dies(e['obj_id'])
            elif kind == 'OBJECT_MOVE':
                old = e['obj_id']
                # an object moved twice in one collection keeps its first address
                first = next((k for k, v in current['moved'].items() if v == old), old)
                current['moved'][first] = e['new_obj_id']
                name, _, born_gc, born_clock = live.pop(old)
                live[e['new_obj_id']] = (name, e['new_arena_id'], born_gc, born_clock)
            elif kind == 'ARENA_DELETE':
                for obj in [o for o, v in live.items() if v[1] == e['arena_id']]:
                    dies(obj)
    for name, _, _, _ in live.values():
        life(name)['live_at_end'] += 1
    return collections, lives


def read_dumps(path):
    """Per collection: (roots, references, the allocation it was taken at)."""
    dumps, current = {}, None
    with open(path, encoding='utf-8') as lines:
        if next(lines) != 'gclab-heapdump 1\n':
            fail(path + ': not a heapdump file')
            return dumps
        for line in lines:
            words = line.split()
            if words[0] == 'dump':
                current = {'roots': [], 'refs': {}, 'new': int(words[2])}
                dumps[int(words[1])] = current
            elif words[0] == 'root':
                current['roots'].append(int(words[2]))
            elif words[0] == 'object':
                current['refs'][int(words[1])] = [int(w) for w in words[2:]]
    return dumps


def reachable(dump):
    seen = [r for r in dict.fromkeys(dump['roots']) if r != dump['new']]
    marked = set(seen)
    for obj in seen:
        for child in dump['refs'].get(obj, []):
            if child not in marked and child != dump['new']:
                marked.add(child)
                seen.append(child)
    return marked


def check_model(work, collectors):
    model = {run['collector']: run for run in page_model(work + '/dom.html')['runs']}
    scenes_checked = events_checked = 0
    for gc in collectors:
        run = model.get(gc)
        if not run:
            fail(gc + ': not in the page')
            continue
        collections, lives = replay('%s/%s.jsonl' % (work, gc))
        dumps = read_dumps('%s/%s.dumps' % (work, gc))
        scenes = [s for s in run['scenes'] if s['has_refs']]
        if not scenes:
            fail(gc + ': the page has no collection with roots and references to step through')
        for scene in scenes:
            k = scene['gc']
            where = '%s collection %d' % (gc, k)
            c, dump = collections[k - 1], dumps.get(k)
            if not dump:
                fail(where + ': the page shows references, but there is no dump after it')
                continue
            back = {new: old for old, new in c['moved'].items()}
            marked = {back.get(obj, obj) for obj in reachable(dump)}
            shown = {int(a) for a in scene['reachable']}
            if shown != marked:
                fail('%s: the page marks %d objects, %d are reachable from the roots (%d differ)' %
                     (where, len(shown), len(marked), len(shown ^ marked)))
            if {int(a) for a in scene['freed']} != c['freed']:
                fail('%s: the page frees %d objects, the trace %d' % (where, len(scene['freed']), len(c['freed'])))
            if {int(a): int(b) for a, b in scene['moved']} != c['moved']:
                fail('%s: the page moves %d objects, the trace %d (or to other places)' %
                     (where, len(scene['moved']), len(c['moved'])))
            # gclab's mechanism events, when the trace has them: the page plays them in their order
            if c['phases'] and scene['event_phases'] != c['phases']:
                fail('%s: the page plays the phases %s, the trace has %s' % (where, scene['event_phases'], c['phases']))
            if c['blackened'] and [int(a) for a in scene['blackened']] != c['blackened']:
                fail('%s: the page blackens %d objects, the trace %d, or in another order' %
                     (where, len(scene['blackened']), len(c['blackened'])))
            events_checked += bool(c['phases'] or c['blackened'])
            # the collector's own promise, seen in the trace and the dump
            if c['freed'] & marked:
                fail('%s: the trace frees %d reachable objects' % (where, len(c['freed'] & marked)))
            if gc in ('marksweep', 'markcompact') and c['live'] - c['freed'] != marked:
                fail('%s: a tracing collection should free exactly the unreachable objects' % where)
            if gc == 'semispace' and set(c['moved']) != marked:
                fail('%s: a copying collection should copy exactly the reachable objects' % where)
            scenes_checked += 1
        shown_lives = {entry['class']: entry for entry in run['lives']}
        for name, expected in lives.items():
            got = shown_lives.get(name)
            for key in ('allocated', 'died_at', 'span', 'live_at_end'):
                if not got or got[key] != expected[key]:
                    fail('%s: lifetimes of %s: the page has %s=%s, the trace %s' %
                         (gc, name, key, got and got[key], expected[key]))
    return ('ok: %d collections stepped through agree with the traces and dumps (%d played from mechanism events), '
            'lifetimes agree' % (scenes_checked, events_checked))


# ---- the screenshot ------------------------------------------------------------------------

def read_png(path, up_to):
    """(width, height, pixel(x, y) as RGB) of an 8-bit RGB or RGBA PNG, its rows above up_to."""
    data = open(path, 'rb').read()
    if data[:8] != b'\x89PNG\r\n\x1a\n':
        fail(path + ': not a PNG')
        sys.exit(1)
    at, idat = 8, b''
    while at < len(data):
        length, kind = struct.unpack('>I4s', data[at:at + 8])
        body = data[at + 8:at + 8 + length]
        if kind == b'IHDR':
            width, height, depth, colour, _, _, interlace = struct.unpack('>IIBBBBB', body)
        elif kind == b'IDAT':
            idat += body
        at += 12 + length
    if depth != 8 or colour not in (2, 6) or interlace:
        fail(path + ': a PNG this script does not read (depth %d, colour type %d)' % (depth, colour))
        sys.exit(1)
    channels = 3 if colour == 2 else 4
    raw, stride, rows = zlib.decompress(idat), width * channels, []
    previous = bytes(stride)
    for y in range(min(height, up_to)):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if kind == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, previous))
        elif kind in (1, 3, 4):
            for i in range(stride):
                left = line[i - channels] if i >= channels else 0
                up, corner = previous[i], previous[i - channels] if i >= channels else 0
                if kind == 1:
                    line[i] = (line[i] + left) & 255
                elif kind == 3:
                    line[i] = (line[i] + (left + up) // 2) & 255
                else:
                    p = left + up - corner
                    pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                    line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 255
        rows.append(line)
        previous = line
    pixel = lambda x, y: tuple(rows[y][x * channels:x * channels + 3])
    return width, len(rows), pixel


def close(a, b, tolerance=6):
    return all(abs(x - y) <= tolerance for x, y in zip(a, b))


def check_pixels(dom_path, png_path):
    model = page_model(dom_path)
    lowest = max([p['y'] for run in model['runs'] for p in run['probes']] or [0])
    width, height, pixel = read_png(png_path, int(lowest) + 2)
    free, white = tuple(model['free_rgb']), (255, 255, 255)
    inside = lambda p: 0 <= p['x'] < width and 0 <= p['y'] < height
    counted = {'class': 0, 'free': 0, 'strip': 0}
    for run in model['runs']:
        for c in run['classes']:
            if close(c['rgb'], free, 40):
                fail('%s: the free colour %s is close to the colour of class %s, %s' % (run['collector'], free, c['name'], c['rgb']))
        strips = {}
        for probe in run['probes']:
            if probe['kind'] == 'strip':
                y, x = int(probe['y']), int(round(probe['x0'])) + 1
                if not (0 <= y < height and 0 <= x < width):
                    continue
                end = x
                while end < width and not close(pixel(end, y), white, 2):
                    end += 1
                strips[probe['arena']] = (end - x + 1, probe['x1'] - probe['x0'])
                counted['strip'] += 1
                continue
            if not inside(probe):
                continue
            got = pixel(int(probe['x']), int(probe['y']))
            if not close(got, tuple(probe['rgb'])):
                fail('%s: at (%d, %d) the screenshot has %s, the page drew %s there (%s)' %
                     (run['collector'], probe['x'], probe['y'], got, tuple(probe['rgb']), probe['kind']))
            counted[probe['kind']] += 1
        # every run on screen shows its heap, before its first collection too
        if strips and not any(p['kind'] == 'class' and inside(p) for p in run['probes']):
            fail('%s: its strips show no live object' % run['collector'])
        if len(strips) > 1:  # each strip's measured width in proportion to its arena's size
            widest = max(strips, key=lambda a: run['arenas'][a]['span'])
            full = strips[widest][0]
            for a, (measured, drawn) in strips.items():
                expected = full * run['arenas'][a]['span'] / run['arenas'][widest]['span']
                if abs(measured - expected) > 3:
                    fail('%s: arena %s measures %d pixels, %d expected for %d of %d bytes' %
                         (run['collector'], run['arenas'][a]['name'], measured, expected, run['arenas'][a]['span'],
                          run['arenas'][widest]['span']))
    if counted['class'] < 10 or counted['free'] < 1 or counted['strip'] < 2:
        fail('too few points to check in the screenshot: %s' % counted)
    return 'ok: %d class pixels, %d free-space pixels and %d strips as the page drew them' % (
        counted['class'], counted['free'], counted['strip'])


if __name__ == '__main__':
    if len(sys.argv) >= 4 and sys.argv[1] == 'model':
        result = check_model(sys.argv[2], sys.argv[3:])
    elif len(sys.argv) == 4 and sys.argv[1] == 'pixels':
        result = check_pixels(sys.argv[2], sys.argv[3])
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    if failures:
        sys.exit(1)
    print(result)
