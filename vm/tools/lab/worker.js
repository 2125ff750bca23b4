// worker.js -- one run of vmrun in a Web Worker (docs/lab.md).  The page
// puts this after emscripten's vmrun.js (createVmrun) and starts one worker
// per run, so a run that never ends is stopped by terminating its worker.
//
// Message in:  {args: [vmrun's arguments], files: {path: text}}
// Message out: {status, stdout, stderr, stats}: vmrun's exit status, what
// it wrote on stdout and stderr (bytes, decoded as UTF-8), and the gcstats
// agent's JSON when the arguments asked for it at /gcstats.json.
'use strict';
self.onmessage = (message) => {
  const {args, files} = message.data;
  const stdout = [], stderr = [];
  const collect = (bytes) => (code) => { if (code !== null) bytes.push(code & 255); };
  let finished = false;
  const finish = (module, status) => {
    if (finished) return;
    finished = true;
    let stats = null;
    try { stats = module.FS.readFile('/gcstats.json', {encoding: 'utf8'}); } catch (e) { /* not asked for, or no run */ }
    const text = (bytes) => new TextDecoder().decode(new Uint8Array(bytes));
    self.postMessage({status, stdout: text(stdout), stderr: text(stderr), stats});
  };
  let module = null;
  createVmrun({
    noInitialRun: true,
    preRun: [(m) => m.FS.init(null, collect(stdout), collect(stderr))],
    onExit: (status) => finish(module, status),
  }).then((instance) => {
    module = instance;
    for (const [path, text] of Object.entries(files)) module.FS.writeFile(path, text);
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
