// Cold start of the real app, measured from the moment its process starts (the kernel's start
// time of the `maharajah` process, so WebDriver's own start-up before it is not counted):
//   exec → page navigation start → menu built → menu on screen (next frame) → backend answers in
//   (settings, saved-game list: the "Continue" button) → board of the continued game drawn after
//   a tap on "Continue" TAP_AFTER_MS (default 400) after it appears (the tap is made inside the
//   page); execToBoardLessTapWaitMs leaves that wait out.
// Each run is a new app process on the same data folder (which holds one unfinished game), so the
// file cache is warm but nothing of the app is. Usage (under Xvfb, see BENCHMARKS.md):
//   MAHARAJAH_APP=$CARGO_TARGET_DIR/release/maharajah node tests/bench/app-start.mjs [runs]
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { application, artifacts, startDriver, waitFor } from '../e2e/webdriver.mjs';

const runs = Number(process.argv[2] ?? 7);
// How long after "Continue" appears the tap comes (a person's reaction; 0 = at once).
const TAP_AFTER_MS = Number(process.env.TAP_AFTER_MS ?? 400);
if (!(TAP_AFTER_MS >= 0)) throw new Error(`TAP_AFTER_MS must be a number of milliseconds, not ${process.env.TAP_AFTER_MS}`);
if (!Number.isInteger(runs) || runs < 1) throw new Error(`runs must be a positive whole number, not ${process.argv[2]}`);
const ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());

/** Processes descending from `root` (the test's tauri-driver), with their command names and RSS. */
function descendants(root) {
  const rows = execFileSync('ps', ['-eo', 'pid=,ppid=,rss=,comm='], { encoding: 'utf8' }).trim().split('\n')
    .map((l) => l.trim().split(/\s+/)).map(([pid, ppid, rss, comm]) => ({ pid: Number(pid), ppid: Number(ppid), rss: Number(rss), comm }));
  const mine = new Set([root]);
  for (let grew = true; grew;) {
    grew = false;
    for (const row of rows) if (mine.has(row.ppid) && !mine.has(row.pid)) { mine.add(row.pid); grew = true; }
  }
  return rows.filter((r) => mine.has(r.pid) && r.pid !== root);
}

/** Wall-clock time (ms since 1970) at which process `pid` started, to the kernel's 10 ms tick. */
function startedAt(pid) {
  const now = Date.now();
  const uptime = Number(readFileSync('/proc/uptime', 'utf8').split(' ')[0]);
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const startTicks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
  return now - (uptime - startTicks / ticksPerSecond) * 1000;
}

// In the page: wait for the backend's answers, tap "Continue", wait for the board; report marks
// as wall-clock times.
const inPage = `const done = arguments[arguments.length - 1];
  const mark = (name) => performance.getEntriesByName(name)[0]?.startTime;
  (async () => {
    while (mark('maharajah:ready') === undefined || !document.getElementById('continue')) await new Promise((r) => setTimeout(r, 1));
    const shown = performance.now();
    // A person needs a moment to find the button; the tap comes ${TAP_AFTER_MS} ms after it appears.
    while (performance.now() < shown + ${TAP_AFTER_MS}) await new Promise((r) => setTimeout(r, 1));
    const tapped = performance.now();
    document.getElementById('continue').click();
    while (!document.querySelector('#screen-game #board .piece')) await new Promise((r) => setTimeout(r, 1));
    await new Promise((r) => requestAnimationFrame(() => setTimeout(r)));
    const board = performance.now();
    const paint = performance.getEntriesByType('paint').find((e) => e.name === 'first-contentful-paint')?.startTime;
    done({ origin: performance.timeOrigin, menu: mark('maharajah:menu'), painted: mark('maharajah:menu-painted'),
      ready: mark('maharajah:ready'), shown, tapped, board, paint: paint ?? null });
  })();`;

const dataDir = await mkdtemp(path.join(os.tmpdir(), 'maharajah-bench-start-'));
const d = await startDriver({ MAHARAJAH_DATA_DIR: dataDir });
const samples = [];
try {
  // Prepare the unfinished game "Continue" opens (not measured).
  await d.open(390, 844);
  await waitFor('the menu', async () => (await d.findAll('.menu-item')).length > 0);
  await d.script(`return window.__TAURI__.core.invoke('new_game', { variant: 'chess', opponent: { kind: 'human' }, timeControl: null })
    .then(() => window.__TAURI__.core.invoke('play_move', { mv: 'e2e4' }));`);
  await d.close();

  for (let run = 0; run < runs; run += 1) {
    await d.open(390, 844);
    const app = descendants(d.pid).find((p) => p.comm === 'maharajah');
    if (!app) throw new Error('the maharajah process was not found under tauri-driver');
    const exec = startedAt(app.pid);
    const m = await d.wd('POST', `/session/${d.session}/execute/async`, { script: inPage, args: [] });
    const at = (t) => Math.round(m.origin + t - exec);
    const memory = descendants(d.pid);
    const rss = (prefix) => Math.round(memory.filter((p) => p.comm.startsWith(prefix)).reduce((s, p) => s + p.rss, 0) / 1024);
    samples.push({
      execToPageStartMs: at(0),
      execToMenuBuiltMs: at(m.menu),
      execToMenuOnScreenMs: at(m.painted),
      execToFirstContentfulPaintMs: m.paint === null ? null : at(m.paint),
      execToContinueShownMs: at(m.ready),
      continueTapToBoardMs: Math.round(m.board - m.tapped),
      execToBoardMs: at(m.board),
      execToBoardLessTapWaitMs: at(m.board) - Math.round(m.tapped - m.shown),
      rssMb: { app: rss('maharajah'), webProcess: rss('WebKitWebProces'), networkProcess: rss('WebKitNetworkPr') },
    });
    console.log(`run ${run + 1}:`, JSON.stringify(samples.at(-1)));
    await d.close();
    await new Promise((r) => setTimeout(r, 500));
  }
} finally {
  await d.stop();
}

const summary = {};
for (const key of Object.keys(samples[0]).filter((k) => k !== 'rssMb')) {
  const values = samples.map((s) => s[key]).filter((v) => v !== null).sort((a, b) => a - b);
  if (values.length) summary[key] = { median: values[Math.floor(values.length / 2)], min: values[0], max: values.at(-1) };
}
summary.rssMb = samples.at(-1).rssMb;
const result = { application, runs, summary, samples };
await mkdir(artifacts, { recursive: true });
await writeFile(path.join(artifacts, 'app-start.json'), `${JSON.stringify(result, null, 2)}\n`);
console.log(JSON.stringify(summary, null, 2));
