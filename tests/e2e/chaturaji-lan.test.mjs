// End-to-end: a Chaturaji table hosted on this Wi-Fi from the real app, inside a private network
// namespace (../shared/notes/lan-testing.md): this file re-runs itself under `unshare --net` with
// only `lo` up, so the app's mDNS never sends a packet outside it. In there the app hosts a table
// (two people, two CPU seats), its table page shows the hosting line (address, room, join code)
// and waits for Blue; the app's own LAN list finds the table as a Chaturaji entry; a malformed
// join code is refused with the reason; the chess LAN screen greys the table and says where to
// join it. Then the app is the guest: a bot (`maharajah-lan-bot --chaturaji`) hosts a table whose
// Red seat the room's CPU plays; the app finds it in its list, joins as Blue and rolls on its turn.
// (Two people playing to the end over the LAN: crates/app/tests/chaturaji_lan.rs.)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { chooseSeat, menuShown, setValue } from './steps.mjs';
import { application, startDriver, waitFor, tempDir } from './webdriver.mjs';
import { INSIDE, runInsidePrivateNetwork } from './netns.mjs';


if (!INSIDE) {
  runInsidePrivateNetwork('A Chaturaji table on this Wi-Fi, inside a private network namespace', import.meta.url, 2, 300000);
} else {
  let d;

  before(async () => {
    const dataDir = await tempDir('chaturaji-lan');
    d = await startDriver({ MAHARAJAH_DATA_DIR: dataDir, MAHARAJAH_LAN_SCOPE: 'loopback' });
    await d.open(390, 844);
  });

  after(async () => {
    if (d) await d.stop();
  });

  const q = (source, args = []) => d.script(source, args);
  const type = (id, value) => setValue(d, `#${id}`, value);

  test('the app hosts a Chaturaji table on the Wi-Fi and finds it in the list', async () => {
    await menuShown(d);
    await waitFor('Chaturaji ready', async () => (await q('return document.getElementById("menu-chaturaji").dataset.ready ?? null;')) === 'true', 30000);
    await d.tap('#menu-chaturaji');
    await waitFor('the table setup', () => d.find('#cj-lan-host'), 30000).catch(async (e) => {
      console.log('PAGE', await q('return document.body.innerText.slice(0, 300);'));
      throw e;
    });
    await chooseSeat(d, 'red', 'person');
    await chooseSeat(d, 'blue', 'person');
    await chooseSeat(d, 'yellow', 'greedy');
    await chooseSeat(d, 'green', 'greedy');
    // Without a name, hosting is refused with the reason.
    await d.tap('#cj-lan-host');
    assert.match(await d.text(await waitFor('the error', () => d.find('#cj-error'))), /name/);
    await type('cj-lan-name', 'Bea’s tablet');
    await d.tap('#cj-lan-host');
    await waitFor('the hosted table', () => q('return Boolean(document.querySelector("#cj-hosted"));'), 20000);
    const hosted = await d.text(await d.find('#cj-hosted'));
    const m = hosted.match(/at 127\.0\.0\.1:(\d+) · room ([A-Z0-9]{8}) · join code ([A-Z0-9]{6}-[A-Z0-9]{6}-[A-Z0-9]{6})/);
    assert.ok(m, hosted);
    assert.match(await d.text(await d.find('#cj-remote')), new RegExp(`Room ${m[2]} · you play ● Red`));
    assert.ok(await q('return Boolean(document.querySelector("#cj-waiting"));'), 'waiting for Blue');
    await q('window.scrollTo(0, 0);');
    await d.screenshot('chaturaji-lan-hosting-390x844.png');

    // A new table's setup: the LAN list finds the hosted table (this device sees its own advert).
    await d.tap('#cj-new');
    await waitFor('the setup', () => d.find('#cj-lan-browse'));
    await d.tap('#cj-lan-browse');
    const entry = await waitFor('the table in the list', () => q('return [...document.querySelectorAll("#cj-lan-tables button")].map((b) => b.textContent).find((t) => t.includes("Bea")) ?? null;'), 15000);
    assert.equal(entry, 'Join Bea’s tablet');
    await q('document.getElementById("cj-lan").scrollIntoView();');
    await d.screenshot('chaturaji-lan-list-390x844.png');
    // A malformed join code is refused with the reason.
    await type('cj-lan-code', 'nope');
    await d.tap('#cj-lan-join-code');
    assert.match(await d.text(await waitFor('the error', () => d.find('#cj-error'))), /18 letters/);

    // The chess LAN list shows the table greyed, saying where to join it.
    await d.tap('#back');
    await menuShown(d);
    await d.tap('#menu-lan');
    await d.tap('#lan-tab-join');
    const shown = await waitFor('the table on the LAN screen', async () => {
      const names = await q("return [...document.querySelectorAll('.lan-host')].map((e) => e.textContent + (e.classList.contains('incompatible') ? ' [greyed]' : ''));");
      return names.find((n) => n.startsWith('Bea')) ?? null;
    }, 15000);
    assert.match(shown, /127\.0\.0\.1:\d+.*join it from Chaturaji.*\[greyed\]$/);
  });

  test('the app joins a Chaturaji table a bot hosts on the Wi-Fi, from its list, and plays Blue', async () => {
    const bot = process.env.MAHARAJAH_LAN_BOT ?? path.join(path.dirname(application), 'maharajah-lan-bot');
    assert.ok(existsSync(bot), `${bot} is built (cargo build -p maharajah-net --bin maharajah-lan-bot)`);
    const child = spawn(bot, ['--chaturaji', '--name', 'Bot table'], { stdio: ['pipe', 'pipe', 'inherit'] });
    try {
      const ready = await new Promise((resolve, reject) => {
        readline.createInterface({ input: child.stdout }).once('line', (line) => resolve(JSON.parse(line)));
        child.once('exit', (code) => reject(new Error(`the bot exited (${code})`)));
      });
      assert.match(ready.address, /^127\.0\.0\.1:\d+$/);
      await d.tap('#back');
      await menuShown(d);
      await d.tap('#menu-chaturaji');
      await waitFor('a Chaturaji page', async () => (await d.findAll('#cj-lan-browse, #cj-new')).length > 0, 20000);
      if ((await d.findAll('#cj-new')).length) await d.tap('#cj-new');
      await waitFor('the setup', () => d.find('#cj-lan-browse'));
      await d.tap('#cj-lan-browse');
      // The list is redrawn as pushes come: find and tap the entry in one step.
      await waitFor('the bot table in the list, tapped', () => q('const b = [...document.querySelectorAll("#cj-lan-tables button")].find((e) => e.textContent === "Join Bot table"); if (b) b.click(); return Boolean(b);'), 15000);
      await waitFor('the joined table', () => q('return Boolean(document.querySelector("#cj-remote"));'), 20000);
      assert.match(await d.text(await d.find('#cj-remote')), new RegExp(`Room ${ready.room} · you play ▲ Blue`));
      // The room's CPU plays Red; then it is Blue's turn on this device.
      await waitFor('Blue to roll', () => q('return Boolean(document.querySelector("#cj-roll"));'), 30000);
      await d.tap('#cj-roll');
      await waitFor('the dice', async () => (await d.findAll('#cj-dice .cj-die')).length === 2, 15000);
      await q('window.scrollTo(0, 0);');
      await d.screenshot('chaturaji-lan-guest-390x844.png');
    } finally {
      child.stdin.end();
      child.kill('SIGTERM');
    }
  });
}
