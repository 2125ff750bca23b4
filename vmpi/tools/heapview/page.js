/*
 * page.js -- heapview's page (docs/heapview.md); built into the tool.
 *
 * The data block (page_write.c) holds one run per collector.  A shared
 * cursor walks the moments of all runs in clock order (bytes allocated):
 * the start, every collection of every run, the end.  At each moment every
 * run shows its heap at its latest boundary: before or after its own
 * collection when the moment is one of its own, after its latest one
 * otherwise.  When the page is drawn it fills #heapview-summary's data-*
 * attributes (ready, the counts it summed from its own data, load time,
 * CSP violations), which the headless test reads.
 */
'use strict';

const PHASE_MOVE = 0, PHASE_FREE = 1, PHASE_DELETE = 2, PHASE_RENEW = 3;
const FATE_STAYED = 0, FATE_MOVED = 1, FATE_FREED = 2, FATE_DIED = 3; /* freed and died draw alike */
const DETAIL_WORDS = 5;
const STRIP_HEIGHT = 30, STRIP_GAP = 14;
const CHART_HEIGHT = 90;
const MAX_OBJECT_ARROWS = 600;
const MAX_TILE_ARROWS = 64;      /* the biggest tile-to-tile moves, at overview zoom */
/* Space a collection emptied: a grey, so no class's colour (every class is
 * a hue at 62% saturation), darker than the strip's never-used background. */
const FREE_RGB = [176, 176, 176], STRIP_RGB = [238, 238, 238];
const FREE_COLOUR = 'rgb(' + FREE_RGB + ')', STRIP_COLOUR = 'rgb(' + STRIP_RGB + ')';

const summary = document.createElement('output');
summary.id = 'heapview-summary';
summary.dataset.ready = 'no';
summary.dataset.cspViolations = '0';
document.body.appendChild(summary);
document.addEventListener('securitypolicyviolation', () => {
  summary.dataset.cspViolations = String(Number(summary.dataset.cspViolations) + 1);
});

/* ---- numbers in words ---------------------------------------------------------- */

const grouped = new Intl.NumberFormat('en-US');
function count(n) { return grouped.format(n); }
function bytes(n) {
  const units = ['bytes', 'KiB', 'MiB', 'GiB'];
  let unit = 0;
  while (n >= 1024 && unit < units.length - 1) { n /= 1024; unit++; }
  return unit === 0 ? n + ' bytes' : (n < 10 ? n.toFixed(1) : Math.round(n)) + ' ' + units[unit];
}
function objects(n) { return count(n) + (n === 1 ? ' object' : ' objects'); }
/* Math.max of a list too long to spread into arguments (one per collection) */
function largest(list) { return list.reduce((m, x) => (x > m ? x : m), 0); }

/* ---- class colours: one per class name, the same in every run ------------------------ */

const classHues = new Map();
function assignClassColours(runs) {
  const names = [...new Set(runs.flatMap(run => run.classes))].sort();
  names.forEach((name, i) => classHues.set(name, (i * 137.508 + 110) % 360)); /* golden angle apart */
}
function classColour(name, alpha) {
  const hue = classHues.has(name) ? classHues.get(name) : 0;
  return 'hsla(' + hue.toFixed(0) + ',62%,' + (classHues.has(name) ? 48 : 30) + '%,' + alpha + ')';
}
/* The red, green and blue a class is drawn in at full alpha (for the tests'
 * screenshot probes): the CSS conversion from HSL. */
function classRgb(name) {
  const h = (classHues.has(name) ? Math.round(classHues.get(name)) : 0) / 360, sat = 0.62;
  const light = classHues.has(name) ? 0.48 : 0.30;
  const q = light < 0.5 ? light * (1 + sat) : light + sat - light * sat, p = 2 * light - q;
  const channel = t => {
    t = (t + 1) % 1;
    const v = t < 1 / 6 ? p + (q - p) * 6 * t : t < 1 / 2 ? q : t < 2 / 3 ? p + (q - p) * (2 / 3 - t) * 6 : p;
    return Math.round(v * 255);
  };
  return [channel(h + 1 / 3), channel(h), channel(h - 1 / 3)];
}

/* ---- the data ------------------------------------------------------------------------- */

async function inflate(base64) {
  const text = atob(base64);
  const packed = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) packed[i] = text.charCodeAt(i);
  const stream = new Blob([packed]).stream().pipeThrough(new DecompressionStream('deflate'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

async function loadRuns(data) {
  for (const run of data.runs) {
    run.states = await inflate(run.states);
    run.earlyStates = await inflate(run.early_states);
    const detail = await inflate(run.detail);
    run.detail = new Uint32Array(detail.buffer, 0, detail.length >> 2);
    run.arenaSpan = run.arenas.map(arena => Math.max(1, arena.span));
    run.maxSpan = largest(run.arenaSpan); /* strips are drawn to one scale: the biggest is the full width */
    run.pause = run.gcs.map(gc => gc.phases.reduce((sum, p) =>
      sum + (p[0] === PHASE_MOVE || p[0] === PHASE_FREE ? p[3] : 0), 0));
    run.nonMoving = run.gcs.length > 0 && run.totals.moved[0] === 0;
    const old = run.arenas.findIndex(arena => arena.name === 'old');
    run.promotion = run.gcs.map(gc => gc.phases.reduce((sum, p) =>
      sum + (p[0] === PHASE_MOVE && p[2] === old && p[1] !== old ? p[4] : 0), 0));
    run.survival = run.gcs.map(gc => {
      const before = gc.before.reduce((s, c) => s + c[1], 0);
      const after = gc.after.reduce((s, c) => s + c[1], 0);
      return before ? after / before : 1;
    });
  }
}

/* What the page itself adds up from the data it draws. */
function runCounts(run) {
  const sum = (list, f) => list.reduce((s, x) => s + f(x), 0);
  const phaseSum = kind => sum(run.gcs, gc => sum(gc.phases, p => (p[0] === kind ? p[3] : 0)));
  return {
    allocated: sum(run.gcs, gc => sum(gc.alloc, c => c[0])) + sum(run.end.alloc, c => c[0]),
    moved: phaseSum(PHASE_MOVE),
    freed: phaseSum(PHASE_FREE),
    died: phaseSum(PHASE_DELETE),
    collections: run.gcs.length,
    arenas: run.arenas.length,
  };
}

/* ---- the moments the cursor visits ---------------------------------------------------- */

function buildMoments(runs) {
  const moments = [{ clock: 0, kind: 'start', gcs: [] }];
  const all = [];
  runs.forEach((run, r) => run.gcs.forEach((gc, k) => all.push({ clock: gc.at, r, k })));
  all.sort((a, b) => a.clock - b.clock || a.r - b.r);
  for (const entry of all) {
    const last = moments[moments.length - 1];
    if (last.kind === 'gc' && last.clock === entry.clock && !last.gcs.some(g => g.r === entry.r))
      last.gcs.push(entry);
    else moments.push({ clock: entry.clock, kind: 'gc', gcs: [entry] });
  }
  moments.push({ clock: Math.max(0, ...runs.map(run => run.end.at)), kind: 'end', gcs: [] });
  return moments;
}

/* The boundary a run shows at a moment, and its collection (or -1); before
 * its first collection, the latest early snapshot (or -1: nothing yet). */
function runView(run, r, moment, showBefore, clockColumn) {
  if (moment.kind === 'end') return { boundary: 2 * run.gcs.length, gc: run.gcs.length - 1, own: false, early: -1 };
  let k = -1;
  while (k + 1 < run.gcs.length && run.gcs[k + 1].at <= moment.clock) k++;
  const own = moment.gcs.find(g => g.r === r);
  if (own) return { boundary: 2 * own.k + (showBefore ? 0 : 1), gc: own.k, own: true, early: -1 };
  let early = -1;
  while (k < 0 && early + 1 < run.early.length && run.early[early + 1][clockColumn] <= moment.clock) early++;
  return { boundary: k < 0 ? -1 : 2 * k + 1, gc: k, own: false, early };
}

/* ---- plain words for one collection ----------------------------------------------------- */

function arenaName(run, a) {
  return 'arena ' + run.arenas[a].id + ' (' + run.arenas[a].name + ')';
}

function describe(run, k) {
  const gc = run.gcs[k];
  const words = [];
  for (const [kind, a, to, n, size] of gc.phases) {
    if (kind === PHASE_MOVE && a !== to)
      words.push('moved ' + objects(n) + ' (' + bytes(size) + ') from ' + arenaName(run, a) + ' to ' + arenaName(run, to));
    else if (kind === PHASE_MOVE)
      words.push('slid ' + objects(n) + ' (' + bytes(size) + ') down within ' + arenaName(run, a));
    else if (kind === PHASE_FREE)
      words.push('freed ' + objects(n) + ' (' + bytes(size) + ') in ' + arenaName(run, a));
    else if (kind === PHASE_DELETE)
      words.push('deleted ' + arenaName(run, a) + (n ? ', and with it ' + objects(n) + ' (' + bytes(size) + ')' : ', which was empty'));
    else if (kind === PHASE_RENEW)
      words.push('created ' + arenaName(run, a) + ' afresh');
  }
  const allocated = gc.alloc.reduce((s, c) => s + c[0], 0);
  const allocatedBytes = gc.alloc.reduce((s, c) => s + c[1], 0);
  let text = 'Collection ' + (k + 1) + ' of ' + run.gcs.length + ', after ' + bytes(gc.clock) +
    ' allocated (' + objects(allocated) + ', ' + bytes(allocatedBytes) + ' since the last): ' +
    run.collector + ' ' + (words.length ? words.join(', then ') : 'found nothing to free or move') + '. ' +
    count(gc.used_objects) + ' objects (' + bytes(gc.used_object_space) + ') live of ' +
    bytes(gc.total_object_space) + '.';
  if (gc.detail) text += ' Objects kept in detail: zoom in to see them.';
  return text;
}

/* ---- drawing ------------------------------------------------------------------------------- */

function canvasFor(parent, height, className) {
  const canvas = document.createElement('canvas');
  if (className) canvas.className = className;
  canvas.style.height = height + 'px';
  parent.appendChild(canvas);
  return canvas;
}

function context2d(canvas) {
  const ratio = window.devicePixelRatio || 1;
  const width = canvas.clientWidth || 600, height = canvas.clientHeight;
  if (canvas.width !== Math.round(width * ratio)) canvas.width = Math.round(width * ratio);
  if (canvas.height !== Math.round(height * ratio)) canvas.height = Math.round(height * ratio);
  const g = canvas.getContext('2d');
  g.setTransform(ratio, 0, 0, ratio, 0, 0);
  g.clearRect(0, 0, width, height);
  return { g, width, height };
}

/* Lifetime spans' buckets, as heap_model.h counts them. */
const LIFE_SPAN_LABELS = ['<256B', '<1K', '<4K', '<16K', '<64K', '<256K', '<1M', '<4M', '<16M', 'more'];

/* The classes with objects, most allocated first (at most 12). */
function lifeClasses(run) {
  return run.lives.map((life, c) => c).filter(c => run.lives[c].allocated[0] > 0)
    .sort((x, y) => run.lives[y].allocated[0] - run.lives[x].allocated[0]).slice(0, 12);
}

function sceneTitle(run, scene) {
  return run.collector + ' collection ' + (scene.k + 1) + ' of ' + run.gcs.length + ' (' + objects(scene.objs.length) + ')';
}

class RunPanel {
  constructor(page, run, r) {
    this.page = page; this.run = run; this.r = r;
    const section = document.createElement('section');
    section.className = 'run';
    const title = document.createElement('h2');
    title.textContent = run.collector + ' \u2014 ' + run.arenas.length + (run.arenas.length === 1 ? ' arena' : ' arenas');
    section.appendChild(title);
    this.events = document.createElement('div');
    this.events.className = 'events';
    section.appendChild(this.events);
    const mapHeight = run.arenas.length * (STRIP_HEIGHT + STRIP_GAP) + 16; /* and a line of notes */
    this.map = canvasFor(section, mapHeight, 'map');
    this.sceneCanvas = canvasFor(section, 100, 'scene');
    this.sceneCanvas.hidden = true;
    this.scenes = new Map(); /* collection -> its scene, built when first shown */
    this.map.title = 'wheel: zoom the addresses; drag: pan; double-click: whole arenas';
    this.legend = document.createElement('div');
    this.legend.className = 'legend';
    run.classes.slice(0, 255).forEach(name => {
      const item = document.createElement('span');
      item.style.setProperty('--swatch', classColour(name, 1));
      item.textContent = name;
      this.legend.appendChild(item);
    });
    section.appendChild(this.legend);
    const charts = document.createElement('div');
    charts.className = 'charts';
    this.charts = {};
    const chart = (key, label, withSide) => {
      const holder = document.createElement('div');
      const heading = document.createElement('h3');
      heading.textContent = label;
      holder.appendChild(heading);
      this.charts[key] = canvasFor(holder, CHART_HEIGHT);
      this.charts[key].addEventListener('click', event => this.clickChart(event, this.charts[key]));
      charts.appendChild(holder);
      const side = document.createElement('div');
      if (withSide) {
        const sideHeading = document.createElement('h3');
        sideHeading.textContent = withSide;
        side.appendChild(sideHeading);
        this.charts[key + 'Side'] = canvasFor(side, CHART_HEIGHT);
      }
      charts.appendChild(side);
    };
    chart('used', 'used (solid) vs capacity (dashed) per arena, by bytes allocated');
    chart('pause', 'pauses, in objects moved or freed (no wall time: the trace has none)', 'pause histogram');
    chart('survival', 'survival (line, % of live bytes kept) and promotion to old (bars)');
    if (run.nonMoving) chart('fragmentation', 'fragmentation: free bytes (line) vs largest free block (bars)');
    section.appendChild(charts);
    const lifeHeading = document.createElement('h3');
    lifeHeading.textContent = 'lifetimes per class: of the objects allocated, the share that died at their 1st, 2nd, ... collection (dark to light), or lived to the end (grey); right, the bytes the program allocated in their lives';
    section.appendChild(lifeHeading);
    this.lifetimes = canvasFor(section, lifeClasses(run).length * 18 + 16, 'lifetimes');
    this.totals = document.createElement('table');
    this.totals.className = 'totals';
    section.appendChild(this.totals);
    this.fillTotals();
    this.installZoom();
    page.main.appendChild(section);
  }

  fillTotals() {
    const counts = runCounts(this.run);
    const row = document.createElement('tr');
    const head = document.createElement('tr');
    for (const key of ['allocated', 'moved', 'freed', 'died', 'collections', 'arenas']) {
      const th = document.createElement('th');
      th.textContent = key === 'died' ? 'died with arena' : key;
      head.appendChild(th);
      const td = document.createElement('td');
      td.textContent = count(counts[key]);
      row.appendChild(td);
    }
    this.totals.append(head, row);
    this.totals.id = 'summary-' + this.run.collector;
    for (const key in counts) this.totals.dataset[key] = String(counts[key]);
    this.totals.dataset.collector = this.run.collector;
  }

  installZoom() {
    this.zoom = { from: 0, to: 1 };
    this.map.addEventListener('wheel', event => {
      event.preventDefault();
      const rect = this.map.getBoundingClientRect();
      const at = this.zoom.from + (event.clientX - rect.left) / rect.width * (this.zoom.to - this.zoom.from);
      const factor = event.deltaY < 0 ? 0.7 : 1 / 0.7;
      const span = Math.min(1, Math.max(1e-6, (this.zoom.to - this.zoom.from) * factor));
      let from = at - (at - this.zoom.from) * factor;
      from = Math.min(Math.max(0, from), 1 - span);
      this.zoom = { from, to: from + span };
      this.drawMap();
    }, { passive: false });
    let dragging = null;
    this.map.addEventListener('mousedown', event => { dragging = { x: event.clientX, zoom: this.zoom }; });
    window.addEventListener('mouseup', () => { dragging = null; });
    window.addEventListener('mousemove', event => {
      if (!dragging) return;
      const span = dragging.zoom.to - dragging.zoom.from;
      let from = dragging.zoom.from - (event.clientX - dragging.x) / this.map.clientWidth * span;
      from = Math.min(Math.max(0, from), 1 - span);
      this.zoom = { from, to: from + span };
      this.drawMap();
    });
    this.map.addEventListener('dblclick', () => { this.zoom = { from: 0, to: 1 }; this.drawMap(); });
  }

  clickChart(event, canvas) {
    const rect = canvas.getBoundingClientRect();
    const clock = (event.clientX - rect.left) / rect.width * this.page.maxClock;
    let best = -1;
    this.run.gcs.forEach((gc, k) => {
      if (best < 0 || Math.abs(gc.at - clock) < Math.abs(this.run.gcs[best].at - clock)) best = k;
    });
    if (best >= 0) this.page.goToGc(this.r, best);
  }

  update(moment) {
    this.view = runView(this.run, this.r, moment, this.page.showBefore, this.page.clock === 'bytes' ? 1 : 0);
    const early = this.run.early[this.view.early];
    if (this.view.gc < 0) this.events.textContent = moment.kind === 'end'
      ? this.run.collector + ' never collected: ' + objects(runCounts(this.run).allocated) + ' allocated, all still live at the end.'
      : this.run.collector + ' has not collected yet' + (early ? ': the heap after ' + objects(early[0]) +
        ' (' + bytes(early[1]) + ') allocated.' : '.');
    else if (this.view.own) this.events.textContent = (this.page.showBefore ? '[before] ' : '[after] ') + describe(this.run, this.view.gc);
    else this.events.textContent = 'Latest: ' + describe(this.run, this.view.gc);
    if (moment.kind === 'end') this.events.textContent += ' At the end: ' +
      objects(this.run.end.live.reduce((s, c) => s + c[0], 0)) + ' live.';
    this.drawMap();
    this.drawCharts(moment);
    this.drawLifetimes();
    this.drawStep();
  }

  /* The scene of the collection on show: the run's own at this moment,
   * else its latest, else its first. */
  sceneShown() {
    const k = this.view.gc >= 0 ? this.view.gc : 0;
    if (k >= this.run.gcs.length) return null;
    if (!this.scenes.has(k)) this.scenes.set(k, buildScene(this.run, k));
    return this.scenes.get(k);
  }

  drawStep() {
    const stepping = this.page.stepMode;
    this.map.hidden = stepping;
    this.sceneCanvas.hidden = !stepping;
    if (!stepping) return;
    const scene = this.sceneShown();
    if (!scene) {
      this.events.textContent = this.run.collector + ': no step-through for ' + (this.run.gcs.length
        ? 'this collection: its heap is too big, or its objects were not kept in full (see --objects)' : 'a run that never collected') + '.';
      this.sceneCanvas.style.height = '0px';
      return;
    }
    const at = Math.min(this.page.sceneStep, scene.steps.length - 1), step = scene.steps[at];
    this.events.textContent = sceneTitle(this.run, scene) + ', step ' + (at + 1) + ' of ' + scene.steps.length +
      (step.phase ? ' (' + step.phase + ')' : '') + ': ' + step.words;
    drawScene(this.sceneCanvas, this.run, scene, at);
  }

  drawLifetimes() {
    const run = this.run, list = lifeClasses(run);
    const { g, width } = context2d(this.lifetimes);
    g.font = '10px system-ui, sans-serif';
    const nameWidth = 110, barWidth = (width - nameWidth - 12) * 0.6, spanLeft = nameWidth + barWidth + 12;
    const spanWidth = width - spanLeft;
    list.forEach((c, i) => {
      const life = run.lives[c], y = i * 18 + 4, all = life.allocated[0];
      g.fillStyle = '#333';
      g.fillText(run.classes[c] + ' ' + count(all), 0, y + 10);
      let x = nameWidth;
      life.died_at.forEach((n, age) => {
        g.fillStyle = 'hsl(215,60%,' + (28 + age * 8) + '%)';
        g.fillRect(x, y, n / all * barWidth, 13);
        x += n / all * barWidth;
      });
      g.fillStyle = '#bbb';
      g.fillRect(x, y, life.live_at_end / all * barWidth, 13);
      const dead = life.span.reduce((sum, n) => sum + n, 0) || 1;
      life.span.forEach((n, b) => {
        g.fillStyle = 'rgba(200,110,40,0.85)';
        const w = spanWidth / LIFE_SPAN_LABELS.length;
        const h = n / dead * 13;
        g.fillRect(spanLeft + b * w + 1, y + 13 - h, w - 2, h);
      });
    });
    g.fillStyle = '#555';
    g.fillText(LIFE_SPAN_LABELS.join(' \u00b7 '), spanLeft, list.length * 18 + 12);
  }

  /* x of a share of the biggest arena's range, at the current zoom */
  xOf(fraction, width) {
    return (fraction - this.zoom.from) / (this.zoom.to - this.zoom.from) * width;
  }

  /* x of a fraction of arena a's own range: every strip is to one scale */
  arenaX(a, fraction, width) {
    return this.xOf(fraction * this.run.arenaSpan[a] / this.run.maxSpan, width);
  }

  /* The tiles shown: [bytes, offset of arena a's first tile], or null. */
  tilesOf(a) {
    const run = this.run, size = run.arenas.length * run.tiles * 3;
    if (this.view.early >= 0) return [run.earlyStates, this.view.early * size + a * run.tiles * 3];
    if (this.view.boundary < 0) return null;
    return [run.states, this.view.boundary * size + a * run.tiles * 3];
  }

  stripTop(a) { return a * (STRIP_HEIGHT + STRIP_GAP) + STRIP_GAP - 2; }

  drawMap() {
    const { g, width } = context2d(this.map);
    const run = this.run, tiles = run.tiles, arenas = run.arenas.length;
    const boundary = this.view ? this.view.boundary : -1;
    let drawnTiles = 0;
    /* the collection whose start or finish is shown, if any (not the end) */
    const detailGc = this.view && this.view.gc >= 0 && boundary >> 1 === this.view.gc ? run.gcs[this.view.gc] : null;
    const showObjects = detailGc && detailGc.detail && (this.zoom.to - this.zoom.from) <= 0.25;
    const probes = [];
    for (let a = 0; a < arenas; a++) {
      const top = this.stripTop(a);
      const left = this.arenaX(a, 0, width), right = this.arenaX(a, 1, width);
      g.fillStyle = STRIP_COLOUR;
      g.fillRect(left, top, right - left, STRIP_HEIGHT);
      probes.push({ kind: 'strip', arena: a, x0: left, x1: right, y: top + 1 });
      const shown = this.view ? this.tilesOf(a) : null;
      if (!shown) continue;
      const [states, base] = shown;
      /* zoomed in on a detailed collection, tiles only past the detailed share */
      const firstTile = showObjects ? Math.ceil(detailGc.detail[2] * tiles) : 0;
      for (let t = firstTile; t < tiles; t++) {
        const x0 = this.arenaX(a, t / tiles, width), x1 = this.arenaX(a, (t + 1) / tiles, width);
        if (x1 < 0 || x0 > width) continue;
        const occupied = states[base + t * 3] / 255, emptied = states[base + t * 3 + 1] / 255;
        const name = run.classes[states[base + t * 3 + 2]] || '?';
        const w = Math.max(1, x1 - x0 - (x1 - x0 > 4 ? 1 : 0));
        if (emptied > 0) {
          g.fillStyle = FREE_COLOUR;
          g.fillRect(x0, top + STRIP_HEIGHT * Math.max(0, 1 - emptied - occupied), w, STRIP_HEIGHT * Math.min(1, emptied));
        }
        if (occupied > 0) {
          g.fillStyle = classColour(name, 1);
          g.fillRect(x0, top + STRIP_HEIGHT * (1 - occupied), w, STRIP_HEIGHT * occupied);
        }
        /* a pixel the tests can check in a screenshot: the middle of a
         * tile's live part, or of its emptied part */
        if (w >= 2 && occupied * STRIP_HEIGHT >= 6)
          probes.push({ kind: 'class', x: x0 + w / 2, y: top + STRIP_HEIGHT * (1 - occupied / 2), rgb: classRgb(name) });
        if (w >= 2 && emptied * STRIP_HEIGHT >= 6 && emptied + occupied <= 1)
          probes.push({ kind: 'free', x: x0 + w / 2, y: top + STRIP_HEIGHT * (1 - occupied - emptied / 2), rgb: FREE_RGB });
        drawnTiles++;
      }
    }
    this.probes = probes;
    if (showObjects) this.drawObjects(g, width, detailGc);
    else if (this.view && this.view.own && !this.page.showBefore) this.drawTileMoves(g, width, run.gcs[this.view.gc]);
    if (detailGc && !detailGc.detail && this.zoom.to - this.zoom.from <= 0.25) {
      g.fillStyle = '#a33';
      g.fillText('object detail not kept for this collection (see --objects): tiles only', 4, this.map.clientHeight - 2);
    }
    g.font = '11px system-ui, sans-serif';
    for (let a = 0; a < arenas; a++) {
      const arena = run.arenas[a];
      const label = arenaName(run, a) + '  ' + arena.lo + ' + ' + bytes(run.arenaSpan[a]) +
        (this.zoom.to - this.zoom.from < 1 ? '  (zoom ' + (1 / (this.zoom.to - this.zoom.from)).toFixed(1) + '\u00d7)' : '');
      g.fillStyle = 'rgba(255,255,255,0.85)';
      g.fillRect(0, this.stripTop(a) - STRIP_GAP + 2, g.measureText(label).width + 6, STRIP_GAP - 2);
      g.fillStyle = '#333';
      g.fillText(label, 2, this.stripTop(a) - 3);
    }
    this.drawnTiles = drawnTiles;
  }

  arrow(g, x0, y0, x1, y1, width, colour) {
    g.strokeStyle = colour;
    g.lineWidth = width;
    g.beginPath();
    g.moveTo(x0, y0);
    const bend = y0 === y1 ? -Math.min(40, 8 + Math.abs(x1 - x0) / 4) : 0;
    g.quadraticCurveTo((x0 + x1) / 2 + (y0 === y1 ? 0 : 12), (y0 + y1) / 2 + bend, x1, y1);
    g.stroke();
    g.fillStyle = colour;
    g.beginPath();
    g.arc(x1, y1, Math.max(1.5, width), 0, 2 * Math.PI);
    g.fill();
  }

  drawTileMoves(g, width, gc) {
    const tiles = this.run.tiles;
    const biggest = gc.moves.reduce((m, move) => Math.max(m, move[5]), 1);
    for (const [fa, ft, ta, tt, , size] of gc.moves.slice(0, MAX_TILE_ARROWS)) {
      const x0 = this.arenaX(fa, (ft + 0.5) / tiles, width), x1 = this.arenaX(ta, (tt + 0.5) / tiles, width);
      const y0 = this.stripTop(fa) + (fa === ta ? 0 : fa < ta ? STRIP_HEIGHT : 0);
      const y1 = this.stripTop(ta) + (fa === ta ? 0 : fa < ta ? 0 : STRIP_HEIGHT);
      this.arrow(g, x0, y0, x1, y1, 0.4 + 2.6 * Math.sqrt(size / biggest), 'rgba(20,40,120,0.3)');
    }
  }

  drawObjects(g, width, gc) {
    const run = this.run, detail = run.detail, before = this.view.boundary % 2 === 0;
    const first = gc.detail[0], n = gc.detail[1];
    const place = (a, offset) => this.xOf(offset / run.maxSpan, width);
    const scale = width / (this.zoom.to - this.zoom.from);
    let arrows = 0;
    const moved = [];
    for (let i = first; i < first + n; i++) {
      const word = i * DETAIL_WORDS;
      const offset = detail[word], size = detail[word + 1];
      const cls = detail[word + 2] >>> 8, a = detail[word + 2] & 255;
      const fate = detail[word + 3] & 255, to = detail[word + 3] >>> 8, newOffset = detail[word + 4];
      const name = run.classes[cls] || '?';
      const x = place(a, offset), w = Math.max(1, size / run.maxSpan * scale - 0.5);
      const gone = !before && fate !== FATE_STAYED;
      if (x + w >= 0 && x <= width) {
        g.fillStyle = gone ? FREE_COLOUR : classColour(name, 1);
        g.fillRect(x, this.stripTop(a) + 2, w, STRIP_HEIGHT - 4);
      }
      if (!before && fate === FATE_MOVED) {
        const nx = place(to, newOffset), nw = Math.max(1, size / run.maxSpan * scale - 0.5);
        if (nx + nw >= 0 && nx <= width) {
          g.fillStyle = classColour(name, 1);
          g.fillRect(nx, this.stripTop(to) + 2, nw, STRIP_HEIGHT - 4);
        }
        moved.push([x + w / 2, a, nx + nw / 2, to]);
      }
    }
    /* one arrow per moved object, thinned evenly past MAX_OBJECT_ARROWS */
    const step = Math.max(1, Math.ceil(moved.length / MAX_OBJECT_ARROWS));
    for (let i = 0; i < moved.length; i += step) {
      const [x0, a, x1, to] = moved[i];
      if ((x0 < 0 || x0 > width) && (x1 < 0 || x1 > width)) continue;
      const y0 = this.stripTop(a) + (a === to ? 0 : a < to ? STRIP_HEIGHT : 0);
      const y1 = this.stripTop(to) + (a === to ? 0 : a < to ? 0 : STRIP_HEIGHT);
      this.arrow(g, x0, y0, x1, y1, 0.8, 'rgba(20,40,120,0.5)');
      arrows++;
    }
    g.fillStyle = '#333';
    const window = gc.detail[2] < 1 ? ' in the first ' + (gc.detail[2] * 100).toPrecision(2) + '% of each arena' : '';
    g.fillText(objects(n) + ' live at GC_START' + window + (before ? '' : ', ' + count(moved.length) + ' moved (' +
      count(arrows) + ' arrows drawn)'), 4, this.map.clientHeight - 2);
  }

  drawCharts(moment) {
    const run = this.run, page = this.page;
    const xOf = (clock, width) => clock / page.maxClock * width;
    const frame = (canvas, top) => {
      const c = context2d(canvas);
      c.g.fillStyle = 'rgba(120,120,200,0.18)';
      for (const gc of run.gcs) c.g.fillRect(xOf(gc.at, c.width) - 1, 0, 2, c.height); /* collection bands */
      c.g.fillStyle = '#555';
      c.g.font = '10px system-ui, sans-serif';
      c.g.fillText(top, 2, 10);
      return c;
    };
    const cursor = c => {
      c.g.strokeStyle = '#d22';
      c.g.lineWidth = 1;
      const x = xOf(moment.clock, c.width);
      c.g.beginPath(); c.g.moveTo(x, 0); c.g.lineTo(x, c.height); c.g.stroke();
    };
    /* used vs capacity */
    {
      const biggest = largest([1, ...run.arenaSpan, largest(run.gcs.map(gc => gc.total_object_space))]);
      const c = frame(this.charts.used, bytes(biggest));
      const y = v => c.height - 2 - v / biggest * (c.height - 14);
      run.arenas.forEach((arena, a) => {
        c.g.strokeStyle = 'hsl(' + (a * 97 + 20) % 360 + ',60%,42%)';
        c.g.lineWidth = 1.2;
        c.g.setLineDash([]);
        c.g.beginPath();
        c.g.moveTo(0, y(0));
        for (const gc of run.gcs) {
          c.g.lineTo(xOf(gc.at, c.width), y(gc.before[a][1]));
          c.g.lineTo(xOf(gc.at, c.width), y(gc.after[a][1]));
        }
        c.g.lineTo(xOf(run.end.at, c.width), y(run.end.live[a][1]));
        c.g.stroke();
        c.g.setLineDash([4, 3]);
        c.g.beginPath();
        c.g.moveTo(0, y(run.arenaSpan[a]));
        c.g.lineTo(c.width, y(run.arenaSpan[a]));
        c.g.stroke();
        c.g.setLineDash([]);
      });
      cursor(c);
    }
    /* pauses */
    {
      const biggest = largest([1, largest(run.pause)]);
      const c = frame(this.charts.pause, count(biggest) + ' objects');
      c.g.fillStyle = 'rgba(200,80,40,0.8)';
      run.gcs.forEach((gc, k) => {
        const h = run.pause[k] / biggest * (c.height - 14);
        c.g.fillRect(xOf(gc.at, c.width) - 1, c.height - h, 2.5, h);
      });
      cursor(c);
      const side = context2d(this.charts.pauseSide);
      const bins = new Array(12).fill(0);
      run.pause.forEach(p => bins[Math.min(11, Math.floor(p / biggest * 12))]++);
      const tallest = Math.max(1, ...bins);
      side.g.fillStyle = 'rgba(200,80,40,0.8)';
      bins.forEach((b, i) => {
        const h = b / tallest * (side.height - 14);
        side.g.fillRect(i * side.width / 12 + 1, side.height - h, side.width / 12 - 2, h);
      });
      side.g.fillStyle = '#555';
      side.g.font = '10px system-ui, sans-serif';
      side.g.fillText(run.gcs.length + ' collections, 0\u2013' + count(biggest), 2, 10);
    }
    /* survival and promotion */
    {
      const biggest = largest([1, largest(run.promotion)]);
      const c = frame(this.charts.survival, '100% / ' + bytes(biggest) + ' promoted');
      c.g.fillStyle = 'rgba(60,140,60,0.6)';
      run.gcs.forEach((gc, k) => {
        const h = run.promotion[k] / biggest * (c.height - 14);
        c.g.fillRect(xOf(gc.at, c.width) - 1, c.height - h, 2.5, h);
      });
      c.g.strokeStyle = '#236';
      c.g.fillStyle = '#236';
      c.g.beginPath();
      run.gcs.forEach((gc, k) => {
        const x = xOf(gc.at, c.width), yy = c.height - 2 - run.survival[k] * (c.height - 14);
        if (k) c.g.lineTo(x, yy); else c.g.moveTo(x, yy);
      });
      c.g.stroke();
      cursor(c);
    }
    if (this.charts.fragmentation) {
      const sampled = run.gcs.filter(gc => gc.fragmentation); /* at most 64, spread over the run */
      const biggest = largest([1, largest(sampled.map(gc => gc.fragmentation.reduce((s, f) => s + f[0], 0)))]);
      const c = frame(this.charts.fragmentation, bytes(biggest) + ' free');
      c.g.fillStyle = 'rgba(140,60,160,0.6)';
      sampled.forEach(gc => {
        const widest = largest(gc.fragmentation.map(f => f[1]));
        const h = widest / biggest * (c.height - 14);
        c.g.fillRect(xOf(gc.at, c.width) - 1, c.height - h, 2.5, h);
      });
      c.g.strokeStyle = '#636';
      c.g.beginPath();
      sampled.forEach((gc, k) => {
        const free = gc.fragmentation.reduce((s, f) => s + f[0], 0);
        const x = xOf(gc.at, c.width), yy = c.height - 2 - free / biggest * (c.height - 14);
        if (k) c.g.lineTo(x, yy); else c.g.moveTo(x, yy);
      });
      c.g.stroke();
      cursor(c);
    }
  }
}

class Page {
  constructor(data) {
    this.data = data;
    this.runs = data.runs;
    this.at = 0;
    this.showBefore = false;
    this.stepMode = false;
    this.sceneStep = 0;
    this.setClock('bytes');
    document.title = 'heapview: ' + data.title;
    const header = document.createElement('header');
    const h1 = document.createElement('h1');
    h1.textContent = 'heapview: ' + data.title;
    const button = (label, title, action) => {
      const b = document.createElement('button');
      b.textContent = label;
      b.title = title;
      b.addEventListener('click', action);
      header.appendChild(b);
      return b;
    };
    header.appendChild(h1);
    button('start', 'the start (Home)', () => this.go(0));
    button('\u25c0 collection', 'the previous collection (\u2190)', () => this.go(this.at - 1));
    button('collection \u25b6', 'the next collection (\u2192)', () => this.go(this.at + 1));
    button('end', 'the end (End)', () => this.go(this.moments.length - 1));
    this.stepButton = button('step-through', 'play one collection step by step: roots, references, the collector\'s phases (s)', () => this.toggleStepMode());
    button('\u25c0 step', 'the previous step (,)', () => this.advance(-1));
    this.playButton = button('\u25b6 play', 'play or pause the steps or collections (space)', () => this.togglePlay());
    button('step \u25b6', 'the next step (.)', () => this.advance(1));
    this.speed = document.createElement('select');
    this.speed.title = 'steps per second';
    for (const rate of [1, 2, 4, 8, 16, 32, 64]) this.speed.add(new Option(rate + '/s', rate, rate === 4, rate === 4));
    this.speed.addEventListener('change', () => { if (this.timer) { this.togglePlay(); this.togglePlay(); } });
    header.appendChild(this.speed);
    this.beforeButton = button('after', 'show the heap before or after the collection (b)', () => this.toggleBefore());
    this.where = document.createElement('span');
    this.where.className = 'where';
    header.appendChild(this.where);
    const hint = document.createElement('span');
    hint.className = 'hint';
    hint.textContent = 'clock: bytes allocated, the same moment of the program in every run';
    this.clockButton = button('clock: bytes', 'the clock: bytes or objects allocated (c)', () => {
      this.setClock(this.clock === 'bytes' ? 'objects' : 'bytes');
      hint.textContent = 'clock: ' + this.clock + ' allocated, the same moment of the program in every run';
    });
    header.appendChild(hint);
    document.body.insertBefore(header, summary);
    this.main = document.createElement('main');
    document.body.insertBefore(this.main, summary);
    this.panels = this.runs.map((run, r) => new RunPanel(this, run, r));
    document.addEventListener('keydown', event => {
      if (event.key === 'ArrowRight') this.go(this.at + 1);
      else if (event.key === 'ArrowLeft') this.go(this.at - 1);
      else if (event.key === 'Home') this.go(0);
      else if (event.key === 'End') this.go(this.moments.length - 1);
      else if (event.key === 'b') this.toggleBefore();
      else if (event.key === 'c') this.clockButton.click();
      else if (event.key === 's') this.toggleStepMode();
      else if (event.key === ' ') { event.preventDefault(); this.togglePlay(); }
      else if (event.key === '.') this.advance(1);
      else if (event.key === ',') this.advance(-1);
    });
    window.addEventListener('resize', () => this.go(this.at));
  }

  /* The clock is bytes allocated (as in docs/heapview.md) or objects
   * allocated: refcount's objects carry a count, so its bytes run ahead of
   * the other collectors' for the same program. */
  setClock(mode) {
    const current = this.moments ? this.moments[this.at] : null;
    this.clock = mode;
    const column = mode === 'bytes' ? 1 : 0;
    for (const run of this.runs) {
      let allocated = 0;
      for (const gc of run.gcs) {
        allocated += gc.alloc.reduce((s, c) => s + c[column], 0);
        gc.at = allocated;
      }
      run.end.at = allocated + run.end.alloc.reduce((s, c) => s + c[column], 0);
    }
    this.maxClock = Math.max(1, ...this.runs.map(run => run.end.at));
    this.moments = buildMoments(this.runs);
    if (!current) return;
    if (this.clockButton) this.clockButton.textContent = 'clock: ' + mode;
    /* stay on the same collection, or the same end of the run */
    const same = current.gcs.length ? this.moments.findIndex(m => m.gcs.some(g => g.r === current.gcs[0].r && g.k === current.gcs[0].k))
      : current.kind === 'end' ? this.moments.length - 1 : 0;
    this.go(same);
  }

  /* Play: a step (or, outside the step-through, a collection) at the chosen rate. */
  togglePlay() {
    if (this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    } else {
      this.timer = setInterval(() => { if (!this.advance(1)) this.togglePlay(); }, 1000 / Number(this.speed.value));
    }
    this.playButton.textContent = this.timer ? '\u275a\u275a pause' : '\u25b6 play';
  }

  /* One step on or back; false at either end. */
  advance(delta) {
    if (!this.stepMode) {
      const before = this.at;
      this.go(this.at + delta);
      return this.at !== before;
    }
    const longest = Math.max(1, ...this.panels.map(p => { const sc = p.sceneShown(); return sc ? sc.steps.length : 1; }));
    const next = Math.max(0, Math.min(longest - 1, this.sceneStep + delta));
    if (next === this.sceneStep) return false;
    this.sceneStep = next;
    for (const panel of this.panels) panel.drawStep();
    return true;
  }

  /* How many steps on the middle step of the first run's phase `name` is. */
  middleOfPhase(name) {
    const scene = this.panels[0].sceneShown(), steps = scene ? scene.steps : [];
    const first = steps.findIndex(step => step.phase === name);
    if (first < 0) return 0;
    let last = first;
    while (last + 1 < steps.length && steps[last + 1].phase === name) last++;
    return Math.floor((first + last) / 2) - this.sceneStep;
  }

  toggleStepMode() {
    this.stepMode = !this.stepMode;
    this.stepButton.textContent = this.stepMode ? 'overview' : 'step-through';
    this.sceneStep = 0;
    this.go(this.at);
  }

  toggleBefore() {
    this.showBefore = !this.showBefore;
    this.beforeButton.textContent = this.showBefore ? 'before' : 'after';
    this.go(this.at);
  }

  goToGc(r, k) {
    const index = this.moments.findIndex(m => m.gcs.some(g => g.r === r && g.k === k));
    if (index >= 0) this.go(index);
  }

  go(index) {
    const at = Math.max(0, Math.min(this.moments.length - 1, index));
    if (at !== this.at) this.sceneStep = 0;
    this.at = at;
    const moment = this.moments[this.at];
    this.where.textContent = 'step ' + this.at + ' of ' + (this.moments.length - 1) + ': ' +
      (moment.kind === 'start' ? 'the start' : moment.kind === 'end' ? 'the end' :
        moment.gcs.map(g => this.runs[g.r].collector + ' #' + (g.k + 1)).join(', ')) +
      ', ' + (this.clock === 'bytes' ? bytes(moment.clock) : objects(moment.clock)) + ' allocated';
    for (const panel of this.panels) panel.update(moment);
  }
}

/* The page's own model, for the tests (tests/heapview): per run its scenes'
 * facts, its lifetimes, and points of the screenshot whose colour the
 * page knows (the first panel's map, in viewport pixels). */
function exposeModel(page) {
  const facts = page.runs.map((run, r) => {
    const scenes = [];
    run.gcs.forEach((gc, k) => { const s = gc.scene && buildScene(run, k); if (s) scenes.push(sceneFacts(run, s)); });
    const panel = page.panels[r], rect = panel.map.getBoundingClientRect();
    return {
      collector: run.collector,
      arenas: run.arenas.map(arena => ({ name: arena.name, span: arena.span })),
      classes: run.classes.map(name => ({ name, rgb: classRgb(name) })),
      lives: run.lives.map((life, c) => ({ class: run.classes[c], ...life })),
      scenes,
      probes: panel.map.hidden ? [] : (panel.probes || []).map(p => ({ ...p, x: p.x + rect.left, x0: p.x0 + rect.left,
        x1: p.x1 + rect.left, y: p.y + rect.top })),
    };
  });
  const holder = document.createElement('script');
  holder.type = 'application/json';
  holder.id = 'heapview-model';
  holder.textContent = JSON.stringify({ free_rgb: FREE_RGB, strip_rgb: STRIP_RGB, runs: facts });
  document.body.appendChild(holder);
}

(async function main() {
  try {
    const data = JSON.parse(document.getElementById('heapview-data').textContent);
    if (data.format !== 'gclab-heapview' || data.version !== 1) throw new Error('not a heapview page of version 1');
    await loadRuns(data);
    assignClassColours(data.runs);
    const page = new Page(data);
    /* open half-way through the run, where every run has usually collected,
     * or where the address says: #step=N&zoom=F&before (F: the share of each
     * arena's addresses shown, from its start) */
    const wanted = new URLSearchParams(location.hash.slice(1));
    if (wanted.has('before')) page.toggleBefore();
    if (wanted.has('steps')) page.toggleStepMode();
    if (wanted.has('zoom')) {
      const share = Math.min(1, Math.max(1e-6, Number(wanted.get('zoom')) || 1));
      for (const panel of page.panels) panel.zoom = { from: 0, to: share };
    }
    page.go(wanted.has('step') ? Number(wanted.get('step')) || 0 : Math.floor((page.moments.length - 1) / 2));
    if (wanted.has('at')) page.advance(Number(wanted.get('at')) || 0);
    if (wanted.has('phase')) page.advance(page.middleOfPhase(wanted.get('phase')));
    exposeModel(page);
    summary.dataset.runs = String(data.runs.length);
    summary.dataset.strips = String(document.querySelectorAll('canvas.map').length);
    summary.dataset.arenasDrawn = String(page.panels.reduce((s, p) => s + p.run.arenas.length, 0));
    summary.dataset.tilesDrawn = String(page.panels.reduce((s, p) => s + p.drawnTiles, 0));
    summary.dataset.moments = String(page.moments.length);
    summary.dataset.loadMs = String(Math.round(performance.now()));
    summary.dataset.ready = 'yes';
  } catch (error) {
    summary.dataset.ready = 'failed';
    summary.dataset.error = String(error);
    const message = document.createElement('pre');
    message.textContent = 'heapview: ' + error;
    document.body.appendChild(message);
  }
})();
