// worker.js -- one run of a program (vmrun or heapview) in a Web Worker
// (docs/lab.md).  The page puts this after emscripten's vmrun.js or
// heapview.js, and a line naming that script's factory createProgram, and
// starts one worker per run, so a run that never ends is stopped by
// terminating its worker.
//
// Message in:  {args: [the program's arguments], files: {path: text or bytes},
//               read: [paths to hand back]}
// Message out: {status, stdout, stderr, stats, files}: the exit status, what
// it wrote on stdout and stderr (bytes, decoded as UTF-8), the gcstats
// agent's JSON when the arguments asked for it at /gcstats.json, and each
// file of `read` as bytes (null if the run left none).
'use strict';
self.onmessage = (message) => {
  const {args, files, read} = message.data;
  const stdout = [], stderr = [];
  const collect = (bytes) => (code) => { if (code !== null) bytes.push(code & 255); };
  let finished = false;
  const finish = (module, status) => {
    if (finished) return;
    finished = true;
    const readFile = (path, options) => {
      try { return module.FS.readFile(path, options); } catch (e) { return null; /* not asked for, or no run */ }
    };
    const stats = readFile('/gcstats.json', {encoding: 'utf8'});
    const kept = {};
    for (const path of read || []) kept[path] = readFile(path);
    const text = (bytes) => new TextDecoder().decode(new Uint8Array(bytes));
    const buffers = Object.values(kept).filter((bytes) => bytes !== null).map((bytes) => bytes.buffer);
    self.postMessage({status, stdout: text(stdout), stderr: text(stderr), stats, files: kept}, buffers);
  };
  let module = null;
  createProgram({
    noInitialRun: true,
    preRun: [(m) => m.FS.init(null, collect(stdout), collect(stderr))],
    onExit: (status) => finish(module, status),
  }).then((instance) => {
    module = instance;
    for (const [path, contents] of Object.entries(files)) module.FS.writeFile(path, contents);
    let status;
    try {
      status = module.callMain(args);
    } catch (e) {
      // exit() unwinds with an ExitStatus; anything else is a trap in the VM.
      if (e && e.name === 'ExitStatus') status = e.status;
      else { stderr.push(...new TextEncoder().encode('lab: the VM stopped: ' + e + '\n')); status = 134; }
    }
    finish(module, status);
  });
};
