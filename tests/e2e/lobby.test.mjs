// Issue #18 end to end: a real maharajah-server on loopback, the real app, and a scripted second
// player in the lobby (maharajah-netbot --lobby: its own key, its own name). The app makes its
// player, registers a name (a refused one first), sees the bot's rated challenge arrive live,
// accepts it and is seated at once, plays the game to mate and shows the rating change; then a
// rematch with colours swapped, and the player's profile with the games and a PGN download.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { tapMove } from './steps.mjs';
import { startRig, queries } from './lobby-rig.mjs';
import { waitFor } from './webdriver.mjs';

let rig;
let d;
let serverUrl;

before(async () => {
  rig = await startRig('lobby');
  ({ d, serverUrl } = rig);
});

after(async () => {
  if (rig) await rig.stop();
});

const { exists, textOf, attr } = queries(() => d);

async function clearAndType(css, text) {
  const field = await d.find(css);
  await d.wd('POST', `/session/${d.session}/element/${field}/clear`, {});
  await d.typeInto(css, text);
}

test('a name, a rated challenge from the lobby accepted, a game to mate, the rating change', async () => {
  await waitFor('the menu', () => exists('#menu-online'));
  await d.tap('#menu-online');
  await waitFor('the Online screen', () => exists('#server-url'));
  await clearAndType('#server-url', serverUrl);
  assert.equal(await attr('#online-tab-lobby', 'aria-selected'), 'true', 'the lobby comes first');
  await d.tap('#lobby-connect');

  // First online use: a key is made, the server knows it, the player picks a name.
  await waitFor('the name form', () => exists('#online-name'));
  assert.ok(await exists('#online-recovery-offer'), 'the recovery code is offered');
  await d.typeInto('#online-name', 'x');
  await d.tap('#online-name-go');
  await waitFor('the refused name', async () => (await attr('#online-error', 'data-code')) === 'invalid_name');
  await clearAndType('#online-name', 'Tester');
  await d.tap('#online-name-go');
  await waitFor('the name shown', async () => (await textOf('#online-player-name')) === 'Tester');

  // The bot posts a rated challenge; it arrives in the app's list live.
  const bot = rig.bot('Botty');
  await bot.waitLine('the bot named', /^named Botty$/);
  await bot.cmd('challenge chess 5+0 rated black');
  const created = await bot.waitLine('the challenge', /^challenge_created \d+$/);
  const id = created.split(' ')[1];
  await waitFor('the challenge listed', () => exists(`#lobby-accept-${id}`), 15000);
  assert.match(await textOf(`li[data-id="${id}"]`), /Chess 5\+0.*Botty \(1500\?\).*rated/);
  await d.screenshot('lobby-list-390x844.png');

  // Accepted: both seated at once, the app plays White.
  await d.tap(`#lobby-accept-${id}`);
  await waitFor('the board', () => exists('#board'), 15000);
  await bot.waitLine('the bot seated', /^seated black [A-Z0-9]{8}$/i);
  await waitFor('the opponent connected', async () => (await attr('#presence-black', 'data-connected')) === 'true');
  assert.equal(await attr('#board', 'data-flipped'), 'false', 'White plays from the bottom');

  await tapMove(d, 'f2', 'f3');
  await bot.waitLine('the bot sees f2f3', /^moved 0 f2f3$/);
  await bot.cmd('play e7e5');
  await waitFor('the reply on the board', async () => (await attr('[data-piece-square="e5"]', 'data-piece')) === 'black-pawn');
  await tapMove(d, 'g2', 'g4');
  await bot.waitLine('the bot sees g2g4', /^moved 2 g2g4$/);
  await bot.cmd('play d8h4');
  await waitFor('the result dialog', async () => (await textOf('#net-result-title')) === 'Black wins');

  // The rated game's end: our rating went down, by what the server says.
  const ratings = await bot.waitLine('the ratings', /^ratings \d+ \d+ \d+ \d+$/);
  const [, whiteBefore, whiteAfter] = ratings.split(' ').map(Number);
  assert.ok(whiteAfter < whiteBefore, ratings);
  const shown = await waitFor('the rating change', () => textOf('#net-result-rating'), 15000);
  assert.equal(shown.replace(/ \(provisional\)$/, ''), `Rating −${whiteBefore - whiteAfter} → ${whiteAfter}`);
  await d.screenshot('lobby-rating-change-390x844.png');

  // A rematch, colours swapped: we offer, the bot accepts, both are in the new room at once.
  await d.tap('#net-result-rematch');
  await waitFor('our offer waiting', () => exists('#net-result-rematch-waiting'));
  await bot.cmd('rematch');
  const seatedAgain = await bot.waitLine('the bot in the new room', /^seated white [A-Z0-9]{8}$/i);
  const newCode = seatedAgain.split(' ')[2].toUpperCase();
  await waitFor('the new room', async () => ((await textOf('#net-room')) ?? '').includes(newCode));
  await waitFor('the board, Black at the bottom now', async () => (await attr('#board', 'data-flipped')) === 'true');
  await bot.cmd('play e2e4');
  await waitFor('the bot\'s first move', async () => (await attr('[data-piece-square="e4"]', 'data-piece')) === 'white-pawn');
  await bot.cmd('resign');
  await waitFor('the second result', async () => (await textOf('#net-result-title')) === 'Black wins');
  await d.screenshot('lobby-rematch-390x844.png');

  // Back on the Online screen: the profile lists both games; one is saved as PGN.
  await d.tap('#net-result-leave');
  await waitFor('the player again', () => exists('#online-my-profile'), 15000);
  await d.tap('#online-my-profile');
  await waitFor('the profile', async () => (await d.script('return document.querySelectorAll("#profile-games li").length;')) === 2);
  assert.match(await textOf('#profile-games'), /against Botty · won.*against Botty · lost/);
  const first = await attr('#profile-games li', 'data-id');
  await d.tap(`#profile-pgn-${first}`);
  const saved = await waitFor('the PGN saved', () => textOf('#profile-pgn-saved'));
  assert.match(saved, /maharajah-online-\d+\.pgn/);
  await d.screenshot('lobby-profile-390x844.png');
});
