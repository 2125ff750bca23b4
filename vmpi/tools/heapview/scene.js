/*
 * scene.js -- heapview's step-through view (docs/heapview.md, "The
 * step-through view"); built into the tool, before page.js.
 *
 * A scene is one collection of a small heap: every object live at its
 * GC_START (the run's object detail) as a box at its address, the roots and
 * references the heapdump agent's dump gives (the survivors', mapped back to
 * their places before the collection), and the collection played step by
 * step in its collector's terms.  The marking is worked out here, breadth
 * first from the roots over the references; the moves and frees are the
 * trace's own, in its order.  sceneFacts() is what the tests compare with a
 * computation of their own from the trace and the dump.
 */
'use strict';

const WHITE = 0, GREY = 1, BLACK = 2, FREED = 3;
/* A scene entry's kind (heap_model.h), in its top 4 bits. */
const SCENE_MOVED_OR_FREED = 0, SCENE_PHASE = 1, SCENE_GREYED = 2, SCENE_BLACKENED = 3, SCENE_FREE_CAUSE = 4;
const FREE_CAUSE_WORDS = {
  'unmarked': 'never marked',
  'zero-count': 'its reference count reached zero',
  'cascade': 'its count reached zero when an object that referred to it was freed (a cascade)',
  'cycle': 'trial deletion found it in a garbage cycle',
};
const SCENE_ROW_HEIGHT = 14, SCENE_LABEL_HEIGHT = 16, SCENE_GUTTER = 64, SCENE_ROWS = 48;

function hex(n) { return '+0x' + n.toString(16); }
function addressOf(run, a, offset) { return (BigInt(run.arenas[a].lo) + BigInt(offset)).toString(); }

/* The objects of collection k's detail, each labelled Class@n, n its rank by address. */
function sceneObjects(run, gc) {
  const [first, n] = gc.detail, d = run.detail, list = [];
  for (let i = 0; i < n; i++) {
    const w = (first + i) * DETAIL_WORDS;
    list.push({ index: i, offset: d[w], size: d[w + 1], cls: run.classes[d[w + 2] >>> 8] || '?', arena: d[w + 2] & 255,
      fate: d[w + 3] & 255, to: d[w + 3] >>> 8, newOffset: d[w + 4] });
  }
  [...list].sort((x, y) => x.arena - y.arena || x.offset - y.offset).forEach((o, i) => { o.label = o.cls + '@' + (i + 1); });
  return list;
}

/* Which words a collector's steps are told in: refcount's, for both its
 * modes (a run heapview --run=refcount:immediate made is named so). */
function family(collector) {
  const name = collector.split(':')[0];
  return ['marksweep', 'markcompact', 'semispace', 'generational', 'refcount'].includes(name) ? name : 'other';
}

/* The steps of one collection: each { phase, words, changes: [[object, state]],
 * moves: [object], edges: [[from, to]] }. */
function sceneSteps(run, s) {
  const steps = [], objs = s.objs, kind = family(run.collector);
  const step = (phase, words, changes = [], extra = {}) => steps.push({ phase, words, changes, moves: [], edges: [], ...extra });
  const where = o => run.arenas[o.to].name + ' at ' + hex(o.newOffset);
  const mark = () => {
    if (!s.hasRefs) return;
    const byKind = {};
    s.roots.forEach(root => { byKind[root.kind] = (byKind[root.kind] || 0) + 1; });
    const named = [...new Set(s.roots.map(root => root.obj))];
    step('mark', 'The roots (' + Object.entries(byKind).map(([k, n]) => n + ' ' + k).join(', ') + ') name ' +
      objects(named.length) + ': each is greyed.', named.map(o => [o, GREY]));
    for (const o of s.markOrder) {
      const newly = s.children[o].filter(c => s.parent.get(c) === o);
      const held = s.children[o].length;
      step('mark', 'Mark reaches ' + objs[o].label + ': blackens it' + (newly.length
        ? ', greys its ' + (newly.length === 1 ? 'child ' : 'children ') + newly.map(c => objs[c].label).join(', ')
        : held ? '; what it refers to is already marked' : '; it refers to nothing') + '.',
      [[o, BLACK], ...newly.map(c => [c, GREY])], { edges: s.children[o].map(c => [o, c]) });
    }
  };
  const freed = s.order.filter(i => objs[i].fate === FATE_FREED);
  const moved = s.order.filter(i => objs[i].fate === FATE_MOVED);
  if (kind === 'marksweep' || kind === 'markcompact') mark();
  if (kind === 'marksweep')
    freed.forEach(o => step('sweep', 'Sweep frees ' + objs[o].label + ' (' + bytes(objs[o].size) + '): it was never marked.', [[o, FREED]]));
  if (kind === 'markcompact') {
    for (const o of s.order) {
      if (objs[o].fate === FATE_FREED)
        step('compute addresses', 'Compute-addresses passes ' + objs[o].label + ': unmarked, so it is freed and its space goes to the next survivor.', [[o, FREED]]);
      else
        step('compute addresses', 'Compute-addresses gives ' + objs[o].label + ' its forwarding address ' + hex(objs[o].newOffset) + '.', []);
    }
    if (moved.length) step('update references', 'Update-references: every reference and root now holds its object\'s forwarding address.', []);
    moved.forEach(o => step('relocate', 'Relocate slides ' + objs[o].label + ' down from ' + hex(objs[o].offset) + ' to ' + hex(objs[o].newOffset) + '.', [], { moves: [o] }));
  }
  if (kind === 'semispace' || kind === 'generational') {
    const copied = [], isCopied = new Set(), movingSet = new Set(moved);
    let scanned = 0;
    for (const o of moved) {
      const obj = objs[o];
      if (obj.to === obj.arena) {
        step('major: relocate', 'The major collection slides ' + obj.label + ' within ' + run.arenas[obj.arena].name +
          ' from ' + hex(obj.offset) + ' to ' + hex(obj.newOffset) + '.', [], { moves: [o] });
        continue;
      }
      const referrers = s.hasRefs ? s.referrers[o] : [];
      const parent = copied.find(c => referrers.includes(c));
      const old = parent === undefined ? referrers.find(r => !movingSet.has(r) && objs[r].fate === FATE_STAYED) : undefined;
      const changes = [];
      if (parent !== undefined) {
        /* the scan has passed every copy before the parent */
        for (; scanned <= copied.indexOf(parent); scanned++) changes.push([copied[scanned], BLACK]);
        step('scan', 'Cheney\'s scan reaches ' + objs[parent].label + ': copies its child ' + obj.label + ' to ' + where(obj) +
          ', leaves a forwarding pointer.', changes, { moves: [o], edges: [[parent, o]] });
      } else if (old !== undefined) {
        step('remembered set', 'The remembered set: old ' + objs[old].label + ' refers to ' + obj.label + ', so it is copied to ' +
          where(obj) + ', a forwarding pointer left behind.', [], { moves: [o], edges: [[old, o]] });
      } else {
        step(s.hasRefs ? 'flip' : 'copy', (s.hasRefs ? 'A root names ' + obj.label + ': copied' : 'Copies ' + obj.label) +
          ' to ' + where(obj) + ', a forwarding pointer left behind.', [], { moves: [o] });
      }
      copied.push(o);
      isCopied.add(o);
    }
    if (copied.length) step('scan', 'The scan pointer meets the free pointer: every copy has been scanned.',
      copied.slice(scanned).map(o => [o, BLACK]));
    const died = objs.filter(o => o.fate === FATE_DIED);
    if (died.length) step('flip', 'From-space is given back: the ' + objects(died.length) + ' never copied die with it, at no cost.',
      died.map(o => [o.index, FREED]));
  }
  if (kind === 'refcount' || kind === 'other')
    freed.forEach(o => step('reconcile', 'Reconciliation frees ' + objs[o].label + ' (' + bytes(objs[o].size) +
      '): no reference to it is left, its count fell to zero (or trial deletion found it in a garbage cycle).', [[o, FREED]]));
  if (!steps.length) step('', 'This collection freed and moved nothing.');
  return steps;
}

/* The steps of a collection whose trace has gclab's mechanism events: one
 * step per event, in the collector's own order and phases. */
function eventSteps(run, s) {
  const steps = [], objs = s.objs;
  let phase = '', cause = '';
  const step = (words, changes = [], extra = {}) => steps.push({ phase, words, changes, moves: [], edges: [], ...extra });
  for (const { kind, value } of s.entries) {
    const obj = objs[value];
    if (kind === SCENE_PHASE) phase = run.mechanism_names[value];
    else if (kind === SCENE_FREE_CAUSE) cause = run.mechanism_names[value];
    else if (kind === SCENE_GREYED)
      step(obj.label + ' is greyed: marked, and pushed to be scanned.', [[value, GREY]]);
    else if (kind === SCENE_BLACKENED)
      step(obj.label + ' is blackened: ' + (obj.fate === FATE_MOVED ? 'the scan has passed its copy, its children are copied.'
        : 'everything it refers to is marked.'), [[value, BLACK]], { edges: s.hasRefs ? s.children[value].map(c => [value, c]) : [] });
    else if (obj.fate === FATE_FREED) {
      step(obj.label + ' (' + bytes(obj.size) + ') is freed' + (cause ? ': ' + (FREE_CAUSE_WORDS[cause] || cause) : '') + '.', [[value, FREED]]);
      cause = '';
    } else if (obj.to === obj.arena)
      step(obj.label + ' slides from ' + hex(obj.offset) + ' to ' + hex(obj.newOffset) + '.', [], { moves: [value] });
    else
      step(obj.label + ' is copied to ' + run.arenas[obj.to].name + ' at ' + hex(obj.newOffset) + ', a forwarding pointer left behind.',
        [], { moves: [value] });
  }
  const died = objs.filter(o => o.fate === FATE_DIED);
  if (died.length) step('The ' + objects(died.length) + ' left in the emptied space die with it, at no cost.', died.map(o => [o.index, FREED]));
  if (!steps.length) step('This collection freed and moved nothing.');
  return steps;
}

/* Collection k of a run as a scene, or null when it has none. */
function buildScene(run, k) {
  const gc = run.gcs[k];
  if (!gc.scene || !gc.detail) return null;
  const objs = sceneObjects(run, gc);
  const refs = gc.scene.refs || [], rootPairs = gc.scene.roots || [];
  const children = objs.map(() => []), referrers = objs.map(() => []);
  for (let i = 0; i < refs.length; i += 2) {
    children[refs[i]].push(refs[i + 1]);
    referrers[refs[i + 1]].push(refs[i]);
  }
  const roots = [];
  for (let i = 0; i < rootPairs.length; i += 2) roots.push({ kind: run.root_kinds[rootPairs[i]], obj: rootPairs[i + 1] });
  /* the mark: breadth first from the roots, in the dump's order */
  const markOrder = [], parent = new Map(), marked = new Set();
  for (const root of roots) if (!marked.has(root.obj)) { marked.add(root.obj); markOrder.push(root.obj); }
  for (let i = 0; i < markOrder.length; i++)
    for (const c of children[markOrder[i]]) if (!marked.has(c)) { marked.add(c); parent.set(c, markOrder[i]); markOrder.push(c); }
  const entries = gc.scene.order.map(v => ({ kind: v >>> 28, value: v & 0x0fffffff }));
  const s = { k, objs, roots, refs, children, referrers, markOrder, parent, marked, entries, hasRefs: !!gc.scene.refs,
    order: entries.filter(e => e.kind === SCENE_MOVED_OR_FREED).map(e => e.value),
    fromEvents: entries.some(e => e.kind !== SCENE_MOVED_OR_FREED) };
  s.steps = s.fromEvents ? eventSteps(run, s) : sceneSteps(run, s);
  return s;
}

/* What the page holds true of a scene, by address, for the tests. */
function sceneFacts(run, s) {
  const before = o => addressOf(run, o.arena, o.offset);
  return {
    gc: s.k + 1,
    has_refs: s.hasRefs,
    reachable: [...s.marked].map(i => before(s.objs[i])).sort(),
    freed: s.objs.filter(o => o.fate === FATE_FREED).map(before).sort(),
    moved: s.objs.filter(o => o.fate === FATE_MOVED).map(o => [before(o), addressOf(run, o.to, o.newOffset)]).sort(),
    steps: s.steps.length,
    phases: [...new Set(s.steps.map(step => step.phase))],
    from_events: s.fromEvents,
    event_phases: [...new Set(s.entries.filter(e => e.kind === SCENE_PHASE).map(e => run.mechanism_names[e.value]))],
    blackened: s.entries.filter(e => e.kind === SCENE_BLACKENED).map(e => before(s.objs[e.value])),
  };
}

/* ---- drawing a scene ---------------------------------------------------------------------- */

/* Where each arena's rows go: the used range of every arena cut into rows
 * of rowBytes (a power of two), so a box's x is its address within a row. */
function sceneLayout(run) {
  const total = run.arenaSpan.reduce((sum, span) => sum + span, 0);
  let rowBytes = 64;
  while (rowBytes * SCENE_ROWS < total) rowBytes *= 2;
  const tops = [];
  let y = 0;
  run.arenaSpan.forEach(span => { tops.push(y); y += SCENE_LABEL_HEIGHT + Math.ceil(span / rowBytes) * SCENE_ROW_HEIGHT; });
  return { rowBytes, tops, height: y + 4 };
}

function drawScene(canvas, run, s, at) {
  const layout = run.sceneLayout || (run.sceneLayout = sceneLayout(run));
  canvas.style.height = layout.height + 'px';
  const { g, width } = context2d(canvas);
  const span = width - SCENE_GUTTER - 4;
  const box = (a, offset, size) => {
    const row = Math.floor(offset / layout.rowBytes);
    const x = SCENE_GUTTER + (offset % layout.rowBytes) / layout.rowBytes * span;
    return { x, y: layout.tops[a] + SCENE_LABEL_HEIGHT + row * SCENE_ROW_HEIGHT + 2,
      w: Math.max(2, Math.min(size, layout.rowBytes - offset % layout.rowBytes) / layout.rowBytes * span - 1), h: SCENE_ROW_HEIGHT - 4 };
  };
  /* the state after steps 0..at */
  const state = new Uint8Array(s.objs.length), movedYet = new Uint8Array(s.objs.length);
  for (let i = 0; i <= at && i < s.steps.length; i++) {
    for (const [o, st] of s.steps[i].changes) state[o] = st;
    for (const o of s.steps[i].moves) movedYet[o] = 1;
  }
  const current = s.steps[Math.min(at, s.steps.length - 1)];
  g.font = '10px system-ui, sans-serif';
  run.arenas.forEach((arena, a) => {
    g.fillStyle = '#333';
    g.fillText(arenaName(run, a) + ', ' + bytes(layout.rowBytes) + ' a row', SCENE_GUTTER, layout.tops[a] + 11);
    const rows = Math.ceil(run.arenaSpan[a] / layout.rowBytes);
    for (let r = 0; r < rows; r++) {
      const left = box(a, r * layout.rowBytes, layout.rowBytes);
      const right = Math.min(layout.rowBytes, run.arenaSpan[a] - r * layout.rowBytes) / layout.rowBytes * span;
      g.fillStyle = STRIP_COLOUR;
      g.fillRect(left.x, left.y, right, left.h);
    }
  });
  const placeOf = o => (movedYet[o.index] ? box(o.to, o.newOffset, o.size) : box(o.arena, o.offset, o.size));
  for (const o of s.objs) {
    const b = box(o.arena, o.offset, o.size);
    if (movedYet[o.index]) { /* the old place keeps a forwarding pointer */
      g.fillStyle = FREE_COLOUR;
      g.fillRect(b.x, b.y, b.w, b.h);
      g.setLineDash([2, 2]);
      g.strokeStyle = '#236';
      g.strokeRect(b.x + 0.5, b.y + 0.5, b.w - 1, b.h - 1);
      g.setLineDash([]);
    }
    const at = placeOf(o), st = state[o.index];
    g.fillStyle = st === FREED ? FREE_COLOUR : classColour(o.cls, st === WHITE && !movedYet[o.index] ? 0.35 : 1);
    g.fillRect(at.x, at.y, at.w, at.h);
    if (st === GREY || st === BLACK || (movedYet[o.index] && st !== BLACK)) {
      g.lineWidth = st === BLACK ? 1.5 : 2;
      g.strokeStyle = st === BLACK ? '#000' : '#777';
      g.strokeRect(at.x + 0.5, at.y + 0.5, at.w - 1, at.h - 1);
    }
  }
  const centre = o => { const b = placeOf(o); return [b.x + b.w / 2, b.y + b.h / 2]; };
  const link = (from, to, colour, lineWidth) => {
    g.strokeStyle = colour;
    g.lineWidth = lineWidth;
    g.beginPath();
    g.moveTo(from[0], from[1]);
    g.quadraticCurveTo((from[0] + to[0]) / 2 + 10, (from[1] + to[1]) / 2 - 14, to[0], to[1]);
    g.stroke();
    g.fillStyle = colour;
    g.beginPath();
    g.arc(to[0], to[1], 1.8, 0, 2 * Math.PI);
    g.fill();
  };
  for (let i = 0; i < s.refs.length; i += 2)
    if (state[s.refs[i]] !== FREED) link(centre(s.objs[s.refs[i]]), centre(s.objs[s.refs[i + 1]]), 'rgba(30,50,120,0.16)', 0.7);
  /* the roots down the left, each an arrow to what it names */
  s.roots.forEach((root, i) => {
    const y = SCENE_LABEL_HEIGHT + (i + 0.5) * (layout.height - SCENE_LABEL_HEIGHT) / s.roots.length;
    g.fillStyle = '#a33';
    g.fillText(root.kind, 2, y + 3);
    link([40, y], centre(s.objs[root.obj]), 'rgba(170,50,50,0.35)', 0.8);
  });
  for (const [from, to] of current.edges) link(centre(s.objs[from]), centre(s.objs[to]), 'rgba(200,30,30,0.95)', 1.8);
  if (!s.hasRefs) {
    g.fillStyle = '#a33';
    g.fillText('no heap dump for this collection: no roots or references (see docs/heapview.md)', SCENE_GUTTER, layout.height - 2);
  }
}
