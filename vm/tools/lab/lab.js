// lab.js -- the lab page (docs/lab.md): edit a program, run it under one
// collector or all five in vmrun compiled to WebAssembly, see its output,
// its compile errors at their place, gccompare's rows of counts, and
// heapview's pictures of the runs.
//
// Every run is vmrun's own main, with the arguments a shell would give it,
// in a Worker of its own (worker.js); the gcstats agent, linked into the
// module, writes the figures the table shows.  With the pictures asked for,
// each run also records its events and heap dumps as `heapview --run` has
// vmrun do, and heapview's own main, also WebAssembly, draws the recordings
// into its page, shown in a frame.  The program and the settings live in
// the URL fragment, so a link opens the page on them.
'use strict';

const COLLECTORS = ['marksweep', 'markcompact', 'semispace', 'generational', 'refcount'];
const PROGRAM_PATH = '/program.gcl';
const RECORDING_PATH = '/run.bin';
const DUMPS_PATH = '/run.dumps';
const HEAPVIEW_PAGE_PATH = '/heapview.html';
// What `heapview --run` has vmrun record (vmpi/tools/heapview/heapview.c):
// the events with the collectors' mechanism, for the step-through view, and
// the heap dumps of collections of at most 4096 objects (SCENE_MAX_OBJECTS).
const RECORDING_AGENTS = ['-agentlib:trace=file=' + RECORDING_PATH + ',format=binary,mechanism=y',
                          '-agentlib:heapdump=file=' + DUMPS_PATH + ',max=4096'];
// gccompare's rows (vmpi/tools/gccompare/figures.c) that are counts: the
// same in the page as in vmrun on Linux.  Times differ and are shown apart.
const COUNT_ROWS = [
  ['collections', 'collections'],
  ['objects_allocated', 'objects allocated'],
  ['bytes_allocated', 'bytes allocated'],
  ['objects_moved', 'objects moved'],
  ['bytes_moved', 'bytes moved'],
  ['objects_freed', 'objects freed'],
  ['bytes_freed', 'bytes freed'],
  ['arenas_created', 'arenas created'],
  ['live_objects_at_exit', 'objects live at exit'],
];
const TIME_ROWS = [
  ['pause_max_ns', 'pause max (ms)'],
  ['gc_time_ns', 'GC time (ms)'],
  ['run_time_ns', 'run time (ms)'],
];

const $ = (id) => document.getElementById(id);
const statusLine = $('lab-status');
let cspViolations = 0;
document.addEventListener('securitypolicyviolation', () => {
  cspViolations++;
  statusLine.dataset.cspViolations = String(cspViolations);
});

const examples = JSON.parse($('lab-examples').textContent);
const scriptUrl = (id) => URL.createObjectURL(new Blob([$(id).textContent], {type: 'text/javascript'}));
const vmrunUrl = scriptUrl('lab-worker');
const heapviewUrl = scriptUrl('lab-heapview-worker');
let running = [];
let stopRequested = false;

function element(tag, attributes, text) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes || {})) node.setAttribute(name, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

// ---- settings and the URL fragment ----------------------------------------------

function chosenCollectors() {
  return COLLECTORS.filter((gc) => $('gc-' + gc).checked);
}

function words(text) {
  return text.trim() === '' ? [] : text.trim().split(/\s+/);
}

function settings() {
  return {
    src: $('source').value, gc: chosenCollectors().join(','), heap: $('heap').value,
    seed: $('seed').value, opts: $('options').value, args: $('args').value, limit: $('limit').value,
    pictures: $('pictures').checked ? 'y' : 'n',
  };
}

function saveFragment() {
  history.replaceState(null, '', '#' + new URLSearchParams(settings()).toString());
}

function loadFragment() {
  const given = new URLSearchParams(location.hash.slice(1));
  const fields = {src: 'source', heap: 'heap', seed: 'seed', opts: 'options', args: 'args', limit: 'limit'};
  for (const [key, id] of Object.entries(fields)) if (given.has(key)) $(id).value = given.get(key);
  if (given.has('pictures')) $('pictures').checked = given.get('pictures') === 'y';
  if (given.has('gc')) {
    const wanted = given.get('gc').split(',');
    for (const gc of COLLECTORS) $('gc-' + gc).checked = wanted.includes(gc);
  }
  return given.has('src');
}

// ---- the examples ------------------------------------------------------------------

function chooseExample(name) {
  const example = examples.find((e) => e.name === name);
  if (!example) return;
  $('source').value = example.source;
  $('args').value = example.args;
  $('options').value = example.vmargs;
}

// ---- a run -----------------------------------------------------------------------------

// vmrun's arguments for one collector, as docs/man/vmrun.1 spells them.
function vmrunArguments(gc, given) {
  const args = ['--gc=' + gc];
  if (given.heap.trim() !== '') args.push('--heap=' + given.heap.trim());
  if (given.seed.trim() !== '') args.push('--seed=' + given.seed.trim());
  args.push(...words(given.opts), '-agentlib:gcstats=file=/gcstats.json');
  if (given.pictures === 'y') args.push(...RECORDING_AGENTS);
  args.push(PROGRAM_PATH, ...words(given.args));
  return args;
}

// One program's main in a worker of its own (worker.js), stopped after the
// page's time limit; resolves to {gc, status, stdout, stderr, stats, files}.
function runWorker(url, gc, request, given) {
  return new Promise((resolve) => {
    const worker = new Worker(url);
    const seconds = Number(given.limit) > 0 ? Number(given.limit) : 10;
    const run = {gc, worker, resolve};
    const end = (result) => {
      if (run.done) return;
      run.done = true;
      clearTimeout(run.timer);
      worker.terminate();
      resolve(result);
    };
    const nothing = {gc, status: null, stdout: '', stats: null, files: {}};
    run.stop = (why) => end(Object.assign({stderr: why}, nothing));
    run.timer = setTimeout(() => run.stop('lab: stopped after ' + seconds + ' s: the program was still running\n'), seconds * 1000);
    worker.onmessage = (message) => end(Object.assign({gc}, message.data));
    worker.onerror = (e) => end(Object.assign({stderr: 'lab: the worker failed: ' + e.message + '\n'}, nothing));
    running.push(run);
    worker.postMessage(request);
  });
}

function runOne(gc, given) {
  const read = given.pictures === 'y' ? [RECORDING_PATH, DUMPS_PATH] : [];
  return runWorker(vmrunUrl, gc, {args: vmrunArguments(gc, given), files: {[PROGRAM_PATH]: given.src}, read}, given);
}

// "/program.gcl:LINE:COL: message", as vmc and vmrun report a compile error.
function compileError(stderr) {
  const found = /^\/program\.gcl:(\d+):(\d+): (.*)$/m.exec(stderr);
  return found ? {line: Number(found[1]), column: Number(found[2]), message: found[3]} : null;
}

function showCompileError(error) {
  const box = $('compile-error');
  box.hidden = !error;
  if (!error) return;
  box.dataset.line = String(error.line);
  box.dataset.column = String(error.column);
  box.textContent = 'line ' + error.line + ', column ' + error.column + ': ' + error.message;
  const lines = $('source').value.split('\n');
  let offset = 0;
  for (let i = 0; i < error.line - 1 && i < lines.length; i++) offset += lines[i].length + 1;
  offset += error.column - 1;
  $('source').focus();
  $('source').setSelectionRange(offset, offset + 1);
}

function showRun(result) {
  const section = element('section', {class: 'run', id: 'run-' + result.gc, 'data-collector': result.gc,
                                      'data-status': result.status === null ? 'stopped' : String(result.status)});
  section.append(element('h3', {}, result.gc + (result.status === null ? ': stopped' : ': exit status ' + result.status)));
  section.append(element('pre', {class: 'stdout', 'data-collector': result.gc}, result.stdout));
  if (result.stderr) section.append(element('pre', {class: 'stderr', 'data-collector': result.gc}, result.stderr));
  $('runs').append(section);
}

function cell(stats, key, scale) {
  if (!stats || stats[key] === null || stats[key] === undefined) return '-';
  return scale ? (stats[key] / scale).toFixed(3) : String(stats[key]);
}

// gccompare's table: one row per figure, one column per collector.
function showTable(results) {
  const table = element('table', {id: 'compare'});
  const head = element('tr');
  head.append(element('th', {}, ''));
  for (const r of results) head.append(element('th', {}, r.gc));
  table.append(head);
  const row = (key, label, scale) => {
    const tr = element('tr', {'data-key': key});
    tr.append(element('th', {}, label));
    for (const r of results) {
      const stats = r.stats ? JSON.parse(r.stats) : null;
      tr.append(element('td', {'data-collector': r.gc, 'data-key': key}, cell(stats, key, scale)));
    }
    table.append(tr);
  };
  for (const [key, label] of COUNT_ROWS) row(key, label, 0);
  for (const [key, label] of TIME_ROWS) row(key, label, 1e6);
  $('table').replaceChildren(table);
}

async function runAll() {
  const given = settings();
  saveFragment();
  stopAll();
  stopRequested = false;
  $('runs').replaceChildren();
  $('table').replaceChildren();
  $('pictures-area').replaceChildren();
  showCompileError(null);
  statusLine.dataset.state = 'running';
  statusLine.textContent = 'running';
  $('run').disabled = true;
  const started = performance.now();
  const results = [];
  // One at a time: the runs' times are then comparable, as in gccompare.
  for (const gc of chosenCollectors()) {
    if (stopRequested) break;
    const result = await runOne(gc, given);
    results.push(result);
    showRun(result);
    const error = compileError(result.stderr);
    if (error) { showCompileError(error); break; }
  }
  showTable(results);
  if (given.pictures === 'y' && !stopRequested) await showPictures(results, given);
  running = [];
  $('run').disabled = false;
  statusLine.dataset.state = 'done';
  statusLine.dataset.runs = String(results.length);
  statusLine.dataset.ms = String(Math.round(performance.now() - started));
  statusLine.textContent = 'done: ' + results.length + ' run(s)';
}

function stopAll() {
  stopRequested = true;
  for (const run of running) run.stop('lab: stopped by the stop button\n');
  running = [];
}

// ---- heapview's pictures -------------------------------------------------------------

// heapview's page of the runs that had a heap, the runs side by side, as
// `heapview -o PAGE GC.bin...` draws them with each GC.dumps beside.  A run
// stopped or not compiled leaves no recording; one refused before its heap
// existed (a program with natives) leaves one that names no collector, as
// gcstats' figures do, which heapview cannot draw.
async function showPictures(results, given) {
  const area = $('pictures-area');
  const hadHeap = (r) => r.stats !== null && JSON.parse(r.stats).collector !== null;
  const recorded = results.filter((r) => r.files && r.files[RECORDING_PATH] && hadHeap(r));
  if (recorded.length === 0) return;
  const files = {};
  const args = ['-o', HEAPVIEW_PAGE_PATH, '--title=' + ($('example').value || 'your program')];
  for (const r of recorded) {
    files['/' + r.gc + '.bin'] = r.files[RECORDING_PATH];
    if (r.files[DUMPS_PATH]) files['/' + r.gc + '.dumps'] = r.files[DUMPS_PATH];
    args.push('/' + r.gc + '.bin');
  }
  statusLine.textContent = 'drawing the pictures';
  const drawn = await runWorker(heapviewUrl, 'heapview', {args, files, read: [HEAPVIEW_PAGE_PATH]}, given);
  const page = drawn.files[HEAPVIEW_PAGE_PATH];
  if (drawn.status !== 0 || !page) {
    area.replaceChildren(element('pre', {id: 'pictures-error'}, drawn.stderr || 'heapview drew nothing'));
    return;
  }
  // heapview's own page (its page.js and scene.js), in a frame that
  // inherits this page's policy, which allows that page's script and style.
  // The frame never scrolls (its height follows the page, fitFrame): a
  // scroll bar that came and went would change the width the page drew at.
  const frame = element('iframe', {id: 'heapview-frame', title: "heapview's pictures of the runs", scrolling: 'no'});
  const loaded = new Promise((resolve) => frame.addEventListener('load', resolve, {once: true}));
  frame.srcdoc = new TextDecoder().decode(page);
  area.replaceChildren(frame);
  await loaded;
  // Its script has run by its load event, and made the summary first thing.
  if (!frame.contentDocument.getElementById('heapview-summary')) {
    area.replaceChildren(element('pre', {id: 'pictures-error'}, "heapview's page did not run its script"));
    return;
  }
  await fitFrame(frame);
}

// Makes the frame as tall as heapview's page, once the page says it is
// drawn and whenever it grows (the step-through view), so that this page
// scrolls, not the frame.
function fitFrame(frame) {
  const doc = frame.contentDocument;
  const fit = () => { frame.style.height = doc.documentElement.scrollHeight + 'px'; };
  return new Promise((resolve) => {
    const summary = doc.getElementById('heapview-summary');
    const drawn = () => {
      if (summary.dataset.ready === 'no') { setTimeout(drawn, 50); return; }
      fit();
      new frame.contentWindow.ResizeObserver(fit).observe(doc.body);
      frame.dataset.ready = summary.dataset.ready;
      resolve();
    };
    drawn();
  });
}

// ---- start -----------------------------------------------------------------------------

const select = $('example');
select.append(element('option', {value: ''}, '(your program)'));
for (const example of examples) select.append(element('option', {value: example.name}, example.name));
select.addEventListener('change', () => chooseExample(select.value));
// The menu names the example the editor holds, and none once it is edited.
const showExampleOf = (source) => {
  const match = examples.find((e) => e.source === source);
  select.value = match ? match.name : '';
};
$('source').addEventListener('input', () => showExampleOf($('source').value));
$('run').addEventListener('click', runAll);
$('stop').addEventListener('click', stopAll);
$('all').addEventListener('click', () => { for (const gc of COLLECTORS) $('gc-' + gc).checked = true; });
window.addEventListener('hashchange', () => { // a link followed while the page is open
  loadFragment();
  showExampleOf($('source').value);
});
if (!loadFragment()) chooseExample('hello');
showExampleOf($('source').value);
statusLine.dataset.ready = 'yes';
statusLine.dataset.cspViolations = String(cspViolations);
statusLine.textContent = 'ready';
