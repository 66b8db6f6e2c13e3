// Opens N files at once with fs.promises and holds them: a sample for `fdbench trace`.
//
// Makes N empty files in a fresh temporary directory (with touch, in a child process: trace it
// with --no-follow to leave those out), opens every one at once through fs.promises (libuv's
// thread pool makes the opens, sharing the process's descriptor table), holds them, closes
// them and removes the directory. Usage: node open_many.js [N] (default 10000).
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');

const n = Number(process.argv[2] || 10000);
const top = fs.mkdtempSync(path.join(os.tmpdir(), 'open-many-'));
(async () => {
  try {
    execFileSync('sh', ['-c', `seq 0 ${n - 1} | sed 's/$/.txt/' | xargs touch`], { cwd: top });
    const names = Array.from({ length: n }, (_, i) => path.join(top, `${i}.txt`));
    const handles = await Promise.all(names.map((name) => fs.promises.open(name, 'r')));
    console.log(`opened ${handles.length} files at once`);
    await Promise.all(handles.map((h) => h.close()));
  } finally {
    fs.rmSync(top, { recursive: true });
  }
})();
