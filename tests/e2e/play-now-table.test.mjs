// Issue #18 end to end, Play now for Chaturaji: a real maharajah-server on loopback, the real app
// and a scripted player (maharajah-netbot --lobby). The app picks Chaturaji, 30 s a turn and
// computers after 15 s, and waits; the bot asks for a table too; after the wait the table starts
// with two people and two computers, and the app opens the Chaturaji table screen seated there.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { application, startDriver, waitFor } from './webdriver.mjs';

const bin = path.dirname(application);
const serverBinary = process.env.MAHARAJAH_SERVER ?? path.join(bin, 'maharajah-server');
const botBinary = process.env.MAHARAJAH_NETBOT ?? path.join(bin, 'maharajah-netbot');

let d;
let serverUrl;
const children = [];

/** Starts a process whose stdout lines are collected; `waitLine` waits for a matching one. */
function launch(file, args) {
  const child = spawn(file, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  children.push(child);
  const lines = [];
  readline.createInterface({ input: child.stdout }).on('line', (line) => lines.push(line));
  const p = {
    lines,
    async waitLine(what, pattern, timeoutMs = 15000) {
      return waitFor(what, async () => lines.find((l) => pattern.test(l)), timeoutMs);
    },
    async cmd(line) {
      const name = line.split(' ')[0];
      child.stdin.write(`${line}\n`);
      const answer = await p.waitLine(`the bot's answer to ${line}`, new RegExp(`^(ok|err) ${name}\\b`));
      lines.splice(lines.indexOf(answer), 1);
      assert.match(answer, /^ok /, `${line}: ${answer}`);
    },
  };
  return p;
}

before(async () => {
  const server = launch(serverBinary, ['--memory', '--listen', '127.0.0.1:0']);
  const line = await server.waitLine('the server to listen', /listening on /);
  serverUrl = `ws://${line.split('listening on ')[1].trim()}/`;
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'maharajah-e2e-play-now-table-'));
  d = await startDriver({ MAHARAJAH_DATA_DIR: dataDir });
  await d.open(390, 844);
});

after(async () => {
  for (const c of children) c.kill('SIGKILL');
  if (d) await d.stop();
});

const exists = (css) => d.script('return Boolean(document.querySelector(arguments[0]));', [css]);
const textOf = (css) => d.script('const n = document.querySelector(arguments[0]); return n ? n.textContent : null;', [css]);
const attr = (css, name) => d.script('const n = document.querySelector(arguments[0]); return n ? n.getAttribute(arguments[1]) : null;', [css, name]);

test('Play now for Chaturaji: the app and the bot at one table, computers after the chosen wait', async () => {
  await waitFor('the menu', () => exists('#menu-online'));
  await d.tap('#menu-online');
  await waitFor('the Online screen', () => exists('#server-url'));
  const field = await d.find('#server-url');
  await d.wd('POST', `/session/${d.session}/element/${field}/clear`, {});
  await d.typeInto('#server-url', serverUrl);
  await d.tap('#online-tab-play');
  await waitFor('the Play now form', () => exists('#play-now'), 15000);
  await d.tap('#online-variant-chaturaji');
  await waitFor('the table choices', () => exists('#online-wait-15'));
  await d.tap('#online-wait-15');
  await waitFor('the wait chosen', async () => /after 15 s/.test(await textOf('#online-panel-play')));
  await d.tap('#online-turn-30');
  await d.tap('#play-now');
  await waitFor('the wait', () => exists('#play-now-waiting'), 15000);
  assert.match(await textOf('#play-now-waiting'), /Chaturaji table \(30 s a turn\)/);

  const bot = launch(botBinary, [serverUrl, '--lobby', 'Seeker']);
  await bot.waitLine('the bot named', /^named Seeker$/);
  const asked = Date.now();
  await bot.cmd('seek_table 300 30 casual');
  const matched = await bot.waitLine('the table started', /^matched [A-Z0-9]{8}$/i, 30000);
  const code = matched.split(' ')[1].toUpperCase();
  assert.ok(Date.now() - asked >= 5000, 'the table waited for more people');
  await waitFor('the Chaturaji table screen', () => exists('#cj-board'), 20000);
  await waitFor('the table started', async () => ((await textOf('#cj-remote')) ?? '').includes(code) && !(await exists('#cj-waiting')));
  const seats = await textOf('#cj-scores');
  assert.equal((seats.match(/CPU/g) ?? []).length, 2, `two computers: ${seats}`);
  await d.screenshot('play-now-table-started-390x844.png');
});
