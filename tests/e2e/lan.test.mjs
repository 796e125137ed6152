// End-to-end test of Local network play in the real app, inside a private network namespace
// (../shared/notes/lan-testing.md): this file re-runs itself under `unshare --net` with only `lo`
// up, so the app's mDNS and the LAN bots (`maharajah-lan-bot`, the real embedded LanHost) never
// send a packet outside it. In there: the live list shows a bot's game and a greyed incompatible
// host; bad input is refused with a clear message; the app joins a bot by typed address and plays
// a move on the network game screen; the host leaving is shown to the guest; it joins by tapping
// the list; the app hosts and a bot joins it by the join code the app shows, and they play. Screenshots at phone size go to tests/artifacts/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { tapMove } from './steps.mjs';
import { application, startDriver, waitFor, tempDir } from './webdriver.mjs';
import { INSIDE, runInsidePrivateNetwork } from './netns.mjs';

const bot = process.env.MAHARAJAH_LAN_BOT ?? path.join(path.dirname(application), 'maharajah-lan-bot');

if (!INSIDE) {
  runInsidePrivateNetwork('Local network play, inside a private network namespace', import.meta.url, 5, 600000);
} else {
  /** Starts a bot; resolves with its first JSON line and a way to read the next ones. */
  async function startBot(args) {
    assert.ok(existsSync(bot), `${bot} is built (cargo build -p maharajah-net --bin maharajah-lan-bot)`);
    const child = spawn(bot, args, { stdio: ['pipe', 'pipe', 'inherit'] });
    const lines = [];
    const waiters = [];
    readline.createInterface({ input: child.stdout }).on('line', (line) => {
      lines.push(JSON.parse(line));
      waiters.splice(0).forEach((wake) => wake());
    });
    const next = (pred, what) => waitFor(what, async () => lines.find(pred), 15000);
    const ready = await next(() => true, 'the bot to start');
    return {
      ...ready,
      child,
      seen: (uci) => next((l) => l.moved === uci, `the bot to see ${uci}`),
      stop: () => new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) {
          resolve();
          return;
        }
        child.once('exit', resolve);
        child.stdin.end();
        setTimeout(() => child.kill('SIGKILL'), 5000).unref();
      }),
    };
  }

  let d;
  const bots = [];

  before(async () => {
    const dataDir = await tempDir('lan');
    d = await startDriver({ MAHARAJAH_DATA_DIR: dataDir, MAHARAJAH_LAN_SCOPE: 'loopback', MAHARAJAH_LAN_HOST_GONE_MS: '3000' });
    await d.open(390, 844);
  });

  after(async () => {
    for (const b of bots) await b.stop();
    if (d) await d.stop();
  });

  const textOf = async (css) => d.text(await d.find(css));
  const attr = (css, name) => d.script('const n = document.querySelector(arguments[0]); return n ? n.getAttribute(arguments[1]) : null;', [css, name]);

  /** Plays from→to on the network game board by tapping. */
  const move = (from, to) => tapMove(d, from, to);

  /** Waits for the network game screen with this device to move. */
  const myMove = async () => {
    try {
      await waitFor('our move on the game screen', async () => (await attr('#status', 'data-turn')) === 'mine');
    } catch (error) {
      // This wait failed once in a while in full runs (issue notes, session 7): say where the app
      // stood, so the next failure names its cause.
      const where = await d.script(`return [document.querySelector('[data-screen]')?.dataset.screen,
        [...document.querySelectorAll('[role=alert], .error, #net-link')].map((n) => n.textContent || n.dataset.state).join(' | ')];`);
      throw new Error(`${error.message}; screen ${where[0]}; shown: ${where[1] || 'nothing'}`);
    }
  };

  test('the live list shows a hosted game and greys an incompatible one with the reason', async () => {
    bots.push(await startBot(['--name', 'Bot tablet', '--incompatible']));
    await d.tap('#menu-lan');
    await d.tap('#lan-tab-join');
    const entries = await waitFor('both hosts in the list', async () => {
      const names = await d.script("return [...document.querySelectorAll('.lan-host')].map((e) => e.textContent + (e.classList.contains('incompatible') ? ' [greyed]' : ''));");
      return names.length === 2 ? names : null;
    });
    assert.match(entries[0], /^Bot tablet.*Chess.*127\.0\.0\.1:\d+/);
    assert.doesNotMatch(entries[0], /\[greyed\]/);
    assert.match(entries[1], /^Future tablet.*update this app.*\[greyed\]$/);
    await d.screenshot('lan-join-390x844.png');
  });

  test('bad input is refused with a message naming the problem', async () => {
    await d.typeInto('#lan-address-input', '10.0.0.1');
    await d.typeInto('#lan-room-input', 'ABCD2345');
    await d.tap('#lan-join-address-go');
    const error = await waitFor('the error', async () => textOf('#lan-error'));
    assert.match(error, /not an address and port/);
    assert.match(error, /port is missing/);
    await d.typeInto('#lan-code-input', 'HELLO');
    await d.tap('#lan-join-code-go');
    await waitFor('the join-code error', async () => /join code/.test(await textOf('#lan-error')));
  });

  test('joins a LAN host by typed address and room code, plays a move; the host leaving is shown', async () => {
    const host = await startBot(['--name', 'Typed bot']);
    bots.push(host);
    await d.script("for (const id of ['lan-address-input', 'lan-room-input']) document.getElementById(id).value = '';");
    await d.typeInto('#lan-address-input', host.address);
    await d.typeInto('#lan-room-input', host.room.toLowerCase());
    await d.tap('#lan-join-address-go');
    // Joined: the game itself runs on the network game screen; the app plays White.
    await myMove();
    await move('e2', 'e4');
    await host.seen('e2e4');
    await waitFor('the bot\'s reply on the board', async () => (await attr('[data-piece-square="f6"]', 'data-piece')) === 'black-knight');
    await d.screenshot('lan-game-390x844.png');
    // The host leaves for good: the link is lost at once, then the guest is told the host has left.
    await host.stop();
    await waitFor('the link lost', async () => (await attr('#net-link', 'data-state')) === 'reconnecting');
    await waitFor('the host has left', async () => /host has left the game/.test(await textOf('#game-error')), 20000);
    await d.screenshot('lan-host-left-390x844.png');
    // Leaving the game comes back to the Local network screen, where it says so too.
    await d.tap('#back');
    await waitFor('the list again', async () => (await d.findAll('#lan-hosts, #lan-hosts-empty')).length === 1);
  });

  test('joins by tapping the list', async () => {
    await d.tap('.lan-host:not(.incompatible)');
    await myMove();
    assert.match(await textOf('#net-room'), /[2-9A-Z]{8}/);
    await d.tap('#back');
    await waitFor('the Local network screen', async () => (await d.findAll('#screen-lan')).length === 1);
  });

  test('hosts a game; a guest joins with the join code it shows', async () => {
    await d.tap('#lan-tab-host');
    await d.typeInto('#lan-name', 'Ana phone');
    await d.tap('#lan-variant-chess');
    await d.tap('#lan-color-white');
    await d.tap('#lan-host-start');
    const code = await waitFor('the join code', async () => textOf('#lan-join-code'));
    assert.match(code, /^[2-9A-Z]{6}-[2-9A-Z]{6}-[2-9A-Z]{6}$/);
    assert.match(await textOf('#lan-address'), /^127\.0\.0\.1:\d+$/);
    assert.match(await textOf('#lan-room'), /^[2-9A-Z]{8}$/);
    assert.equal(await textOf('#lan-host-name'), 'Ana phone');
    const modules = await d.script("return document.querySelectorAll('#lan-qr path').length;");
    assert.equal(modules, 1, 'the QR code is drawn');
    assert.match(await textOf('#lan-status'), /Waiting for a guest/);
    await d.screenshot('lan-host-390x844.png');
    const guest = await startBot(['--join', code]);
    bots.push(guest);
    assert.equal(guest.seat, 'black');
    // Seated: the host goes to the game at once and plays White.
    await myMove();
    await move('d2', 'd4');
    await guest.seen('d2d4');
    await waitFor('the guest\'s reply', async () => (await attr('[data-piece-square="f6"]', 'data-piece')) === 'black-knight');
    await d.tap('#back');
    await waitFor('the host form again', async () => (await d.findAll('#lan-host-start')).length === 1);
  });
}
