// Issue #18 end to end, Chaturaji in the lobby: a real maharajah-server on loopback, the real app,
// and a scripted player (maharajah-netbot --lobby) who posts a table for three people with
// computers after 12 s. The app sees it in its list, joins it (the bot sees two people now),
// leaves it and joins again, and when the wait is over the table starts: the app opens the
// Chaturaji table screen seated there, the same screen as a table joined by code.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startRig, queries } from './lobby-rig.mjs';
import { waitFor } from './webdriver.mjs';

let rig;
let d;
let serverUrl;

before(async () => {
  rig = await startRig('lobby-table');
  ({ d, serverUrl } = rig);
});

after(async () => {
  if (rig) await rig.stop();
});

const { exists, textOf, attr } = queries(() => d);

test('a Chaturaji table from the lobby: joined from the list, started with a computer, seated in the app', async () => {
  await waitFor('the menu', () => exists('#menu-online'));
  await d.tap('#menu-online');
  await waitFor('the Online screen', () => exists('#server-url'));
  const field = await d.find('#server-url');
  await d.wd('POST', `/session/${d.session}/element/${field}/clear`, {});
  await d.typeInto('#server-url', serverUrl);
  await d.tap('#lobby-connect');
  await waitFor('the lobby', async () => (await exists('#lobby-empty')) || exists('#lobby-list'), 15000);

  const bot = rig.bot('Tabler');
  await bot.waitLine('the bot named', /^named Tabler$/);
  await bot.cmd('table 3 12 30 casual');
  const created = await bot.waitLine('the table', /^challenge_created \d+$/);
  const id = created.split(' ')[1];
  await waitFor('the table listed', () => exists(`#lobby-join-${id}`), 15000);
  assert.match(await textOf(`li[data-id="${id}"]`), /Chaturaji 30 s a turn.*Tabler.*1 of 3 people · computers after 12 s/);

  // Joined: the bot's table has two people; the app's row says we sit there.
  await d.tap(`#lobby-join-${id}`);
  await bot.waitLine('the app at the table', new RegExp(`^lobby_updated ${id} 2$`));
  await waitFor('our seat at the table', () => exists(`#lobby-seated-${id}`));
  assert.match(await textOf(`#lobby-table-${id}`), /2 of 3 people/);
  await d.screenshot('lobby-table-joined-390x844.png');

  // Left and joined again: the table stays for the bot, one person fewer, then two again.
  await d.tap(`#lobby-leave-${id}`);
  await bot.waitLine('the app left the table', new RegExp(`^lobby_updated ${id} 1$`));
  await waitFor('the table joinable again', () => exists(`#lobby-join-${id}`));
  await d.tap(`#lobby-join-${id}`);
  await waitFor('our seat at the table again', () => exists(`#lobby-seated-${id}`));

  // The wait is over: the table starts with a computer in the empty seat, the app seated there.
  const matched = await bot.waitLine('the table started', /^matched [A-Z0-9]{8}$/i, 30000);
  const code = matched.split(' ')[1].toUpperCase();
  await waitFor('the Chaturaji table screen', () => exists('#cj-board'), 20000);
  await waitFor('the table started', async () => ((await textOf('#cj-remote')) ?? '').includes(code) && !(await exists('#cj-waiting')));
  assert.equal(await attr('#cj-board', 'data-facing'), 'blue', 'the second person sits at Blue, the board faces it');
  await d.screenshot('lobby-table-started-390x844.png');
});
