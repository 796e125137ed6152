// Issue #18 end to end, Play now for Chaturaji: a real maharajah-server on loopback, the real app
// and a scripted player (maharajah-netbot --lobby). The app picks Chaturaji, 30 s a turn and
// computers after 15 s, and waits; the bot asks for a table too; after the wait the table starts
// with two people and two computers, and the app opens the Chaturaji table screen seated there.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startRig, queries } from './lobby-rig.mjs';
import { waitFor } from './webdriver.mjs';

let rig;
let d;
let serverUrl;

before(async () => {
  rig = await startRig('play-now-table');
  ({ d, serverUrl } = rig);
});

after(async () => {
  if (rig) await rig.stop();
});

const { exists, textOf, attr } = queries(() => d);

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

  const bot = rig.bot('Seeker');
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
