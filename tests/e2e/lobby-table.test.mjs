// Issue #18 end to end, Chaturaji in the lobby: a real maharajah-server on loopback, the real app,
// and a scripted player (maharajah-netbot --lobby) who posts a table for three people with
// computers after 5 s. The app sees it in its list, joins it (the bot sees two people now), and
// when the wait is over the table starts: the app opens the Chaturaji table screen seated there,
// the same screen as a table joined by code.
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
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'maharajah-e2e-lobby-table-'));
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

test('a Chaturaji table from the lobby: joined from the list, started with a computer, seated in the app', async () => {
  await waitFor('the menu', () => exists('#menu-online'));
  await d.tap('#menu-online');
  await waitFor('the Online screen', () => exists('#server-url'));
  const field = await d.find('#server-url');
  await d.wd('POST', `/session/${d.session}/element/${field}/clear`, {});
  await d.typeInto('#server-url', serverUrl);
  await d.tap('#lobby-connect');
  await waitFor('the lobby', async () => (await exists('#lobby-empty')) || exists('#lobby-list'), 15000);

  const bot = launch(botBinary, [serverUrl, '--lobby', 'Tabler']);
  await bot.waitLine('the bot named', /^named Tabler$/);
  await bot.cmd('table 3 5 30 casual');
  const created = await bot.waitLine('the table', /^challenge_created \d+$/);
  const id = created.split(' ')[1];
  await waitFor('the table listed', () => exists(`#lobby-join-${id}`), 15000);
  assert.match(await textOf(`li[data-id="${id}"]`), /Chaturaji 30 s a turn.*Tabler.*1 of 3 people · computers after 5 s/);

  // Joined: the bot's table has two people; the app's row says we sit there.
  await d.tap(`#lobby-join-${id}`);
  await bot.waitLine('the app at the table', new RegExp(`^lobby_updated ${id} 2$`));
  await waitFor('our seat at the table', () => exists(`#lobby-seated-${id}`));
  assert.match(await textOf(`#lobby-table-${id}`), /2 of 3 people/);
  await d.screenshot('lobby-table-joined-390x844.png');

  // The wait is over: the table starts with a computer in the empty seat, the app seated there.
  const matched = await bot.waitLine('the table started', /^matched [A-Z0-9]{8}$/i, 20000);
  const code = matched.split(' ')[1].toUpperCase();
  await waitFor('the Chaturaji table screen', () => exists('#cj-board'), 20000);
  await waitFor('the table started', async () => ((await textOf('#cj-remote')) ?? '').includes(code) && !(await exists('#cj-waiting')));
  assert.equal(await attr('#cj-board', 'data-facing'), 'blue', 'the second person sits at Blue, the board faces it');
  await d.screenshot('lobby-table-started-390x844.png');
});
