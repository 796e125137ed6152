// Issue #18 end to end, Play now: a real maharajah-server on loopback, the real app and a scripted
// player (maharajah-netbot --lobby). The app asks for a casual 5+3 chess game and waits; the bot
// asks for the same; the server pairs them and the app is seated at the board at once, where a
// move of each side goes through.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { tapMove } from './steps.mjs';
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
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'maharajah-e2e-play-now-'));
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

test('Play now pairs the app with the bot: seated at once, a move each way', async () => {
  await waitFor('the menu', () => exists('#menu-online'));
  await d.tap('#menu-online');
  await waitFor('the Online screen', () => exists('#server-url'));
  const field = await d.find('#server-url');
  await d.wd('POST', `/session/${d.session}/element/${field}/clear`, {});
  await d.typeInto('#server-url', serverUrl);
  await d.tap('#online-tab-play');
  await waitFor('the Play now form', () => exists('#play-now'), 15000);
  await d.tap('#play-now');
  await waitFor('the wait', () => exists('#play-now-waiting'), 15000);
  assert.match(await textOf('#play-now-waiting'), /Looking for an opponent: Chess 5\+3, rating 1500/);

  const bot = launch(botBinary, [serverUrl, '--lobby', 'Pairbot']);
  await bot.waitLine('the bot named', /^named Pairbot$/);
  await bot.cmd('seek chess 5+3 casual');
  const seated = await bot.waitLine('the bot seated', /^seated (white|black) [A-Z0-9]{8}$/i, 20000);
  const [, botColor, code] = seated.split(' ');
  await waitFor('the board', () => exists('#board'), 15000);
  await waitFor('the room', async () => ((await textOf('#net-room')) ?? '').includes(code.toUpperCase()));
  const ours = botColor.toLowerCase() === 'white' ? 'black' : 'white';
  await waitFor('the opponent connected', async () => (await attr(`#presence-${botColor.toLowerCase()}`, 'data-connected')) === 'true');
  assert.equal(await attr('#board', 'data-flipped'), ours === 'black' ? 'true' : 'false', 'our colour at the bottom');
  await d.screenshot('play-now-paired-390x844.png');

  if (ours === 'white') {
    await tapMove(d, 'e2', 'e4');
    await bot.waitLine('the bot sees e2e4', /^moved 0 e2e4$/);
    await bot.cmd('play e7e5');
    await waitFor('the reply on the board', async () => (await attr('[data-piece-square="e5"]', 'data-piece')) === 'black-pawn');
  } else {
    await bot.cmd('play e2e4');
    await waitFor('the bot\'s move on the board', async () => (await attr('[data-piece-square="e4"]', 'data-piece')) === 'white-pawn');
    await tapMove(d, 'e7', 'e5');
    await bot.waitLine('the bot sees e7e5', /^moved 1 e7e5$/);
  }
});
