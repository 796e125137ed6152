// Measurements for BENCHMARKS.md, taken in the real app at phone size: start-up to an interactive
// menu and board, tap-to-board-updated time of a move (no computer), and the memory it uses.
// Writes tests/artifacts/bench.json; asserts only generous ceilings (the targets are in the file).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { artifacts, startDriver, waitFor, tempDir } from './webdriver.mjs';

let d;
const results = {};

before(async () => {
  d = await startDriver({ MAHARAJAH_DATA_DIR: await tempDir('bench') });
});

after(async () => {
  await mkdir(artifacts, { recursive: true });
  await writeFile(path.join(artifacts, 'bench.json'), `${JSON.stringify(results, null, 2)}\n`);
  console.log('bench:', JSON.stringify(results));
  if (d) await d.stop();
});

test('cold start to an interactive menu and board', async () => {
  const started = Date.now();
  await d.open(390, 844);
  await waitFor('the menu', async () => (await d.findAll('.menu-item')).length === 10);
  results.launchToMenuMs = Date.now() - started;
  // Time inside the page: navigation start to the first render of the menu.
  results.pageToMenuMs = Math.round(await d.script('return performance.now();'));
  const tapped = Date.now();
  await d.tap('#menu-classic');
  await d.tap('#start-game');
  await waitFor('the board', () => d.find('#board .piece'));
  results.menuToBoardMs = Date.now() - tapped;
  assert.ok(results.launchToMenuMs < 20000);
});

test('tap-to-board-updated time of a move', async () => {
  const times = await d.wd('POST', `/session/${d.session}/execute/async`, {
    script: `const done = arguments[arguments.length - 1];
      const moves = [['e2','e4'],['e7','e5'],['g1','f3'],['b8','c6'],['f1','c4'],['g8','f6'],['d2','d3'],['f8','c5']];
      const times = [];
      const tap = (sq) => document.querySelector('g.sq[data-square="' + sq + '"] > rect').dispatchEvent(new MouseEvent('click', { bubbles: true }));
      (async () => {
        for (const [from, to] of moves) {
          tap(from);
          await new Promise((r) => requestAnimationFrame(r));
          const start = performance.now();
          tap(to);
          while (!document.querySelector('[data-piece-square="' + to + '"]')) await new Promise((r) => setTimeout(r, 1));
          times.push(performance.now() - start);
          await new Promise((r) => setTimeout(r, 250));
        }
        done(times);
      })();`,
    args: [],
  });
  const sorted = [...times].sort((a, b) => a - b);
  results.tapToBoardMs = { median: Math.round(sorted[Math.floor(sorted.length / 2)] * 10) / 10, max: Math.round(sorted.at(-1) * 10) / 10, samples: times.length, inOrder: times.map((t) => Math.round(t)) };
  assert.equal(times.length, 8);
  assert.ok(results.tapToBoardMs.median < 500, `median ${results.tapToBoardMs.median} ms`);
});

test('memory of the running app', async () => {
  // Resident memory of the app and the WebKit processes it started (descendants of this test's
  // tauri-driver, so other programs on the machine are not counted), in MB.
  const rows = execFileSync('ps', ['-eo', 'pid=,ppid=,rss=,comm='], { encoding: 'utf8' }).trim().split('\n')
    .map((l) => l.trim().split(/\s+/)).map(([pid, ppid, rss, comm]) => ({ pid: Number(pid), ppid: Number(ppid), rss: Number(rss), comm }));
  const mine = new Set([d.pid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const row of rows) if (mine.has(row.ppid) && !mine.has(row.pid)) { mine.add(row.pid); grew = true; }
  }
  const rss = (match) => Math.round(rows.filter((r) => mine.has(r.pid) && match(r.comm)).reduce((sum, r) => sum + r.rss, 0) / 1024);
  results.memoryMb = {
    app: rss((c) => c === 'maharajah'),
    webProcess: rss((c) => c.startsWith('WebKitWebProces')),
    networkProcess: rss((c) => c.startsWith('WebKitNetworkPr')),
  };
  assert.ok(results.memoryMb.app > 0, JSON.stringify(results.memoryMb));
});
