// Issue #18 end to end, Play now: a real maharajah-server on loopback, the real app and a scripted
// player (maharajah-netbot --lobby). The app asks for a casual 5+3 chess game and, while it waits,
// starts a game against the computer; the bot asks for the same; the server pairs them, and the
// paired game waits behind a banner over the local game (never taking the screen away) until the
// app opens it, where a move of each side goes through.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { newGame, tapMove } from './steps.mjs';
import { startRig, queries } from './lobby-rig.mjs';
import { waitFor } from './webdriver.mjs';

let rig;
let d;
let serverUrl;

before(async () => {
  rig = await startRig('play-now');
  ({ d, serverUrl } = rig);
});

after(async () => {
  if (rig) await rig.stop();
});

const { exists, textOf, attr } = queries(() => d);

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
  // Waiting, the player starts a game against the computer meanwhile.
  await newGame(d, 'classic');

  const bot = rig.bot('Pairbot');
  await bot.waitLine('the bot named', /^named Pairbot$/);
  await bot.cmd('seek chess 5+3 casual');
  const seated = await bot.waitLine('the bot seated', /^seated (white|black) [A-Z0-9]{8}$/i, 20000);
  const [, botColor, code] = seated.split(' ');
  await waitFor('the banner over the local game', () => exists('#match-banner'), 15000);
  assert.match(await textOf('#match-banner'), /Your online game has started/);
  assert.ok(await exists('#screen-game'), 'the local game is still on screen');
  await d.screenshot('play-now-banner-390x844.png');
  await d.tap('#match-open');
  await waitFor('the board', () => exists('#screen-netgame #board'), 15000);
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
