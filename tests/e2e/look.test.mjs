// The look of the main screens at phone (390×844) and desktop (1280×800) size: menu, setup,
// settings, a chess and a Horde game in progress, the result dialog. Nothing may spill sideways
// or be cut off; screenshots land in tests/artifacts/look-*.png for people to judge. Also: the
// computer answers a draw offer from its own search (level start position: it accepts).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { newGame as stepNewGame, toMenu as stepToMenu, typeMoves as stepTypeMoves } from './steps.mjs';
import { startDriver, waitFor } from './webdriver.mjs';

let d;

before(async () => {
  d = await startDriver({ MAHARAJAH_DATA_DIR: await mkdtemp(path.join(os.tmpdir(), 'maharajah-e2e-look-')) });
  await d.open(390, 844);
});

after(async () => {
  if (d) await d.stop();
});

const SIZES = [[390, 844], [1280, 800]];

async function resize(width, height) {
  await d.wd('POST', `/session/${d.session}/window/rect`, { width, height });
  await waitFor(`a ${width}px wide page`, () => d.script('return window.innerWidth === arguments[0];', [width]));
}

/** Everything visible fits: no sideways scroll, no text clipped inside a button, label or heading. */
async function assertFits(what) {
  const problems = await d.script(`
    const out = [];
    const page = document.documentElement;
    if (page.scrollWidth > window.innerWidth + 1) out.push('page scrolls sideways: ' + page.scrollWidth + ' > ' + window.innerWidth);
    for (const el of document.querySelectorAll('button, h1, h2, .status, .banner, label, .menu-hint, .strip, .badge')) {
      const box = el.getBoundingClientRect();
      if (box.width === 0 || getComputedStyle(el).visibility === 'hidden') continue;
      if (el.scrollWidth > el.clientWidth + 1) out.push((el.id || el.className || el.tagName) + ' clips its text "' + el.textContent.trim().slice(0, 40) + '"');
      if (box.right > window.innerWidth + 1) out.push((el.id || el.className || el.tagName) + ' runs off the right edge');
    }
    return out;`);
  assert.deepEqual(problems, [], `${what}: ${problems.join('; ')}`);
}

const toMenu = () => stepToMenu(d);
const newGame = (entry, choose) => stepNewGame(d, entry, choose);

/** The screenshot shows the top of the page, as a person sees it on arrival. */
async function shoot(name) {
  await d.script('document.activeElement?.blur(); window.scrollTo(0, 0);');
  await new Promise((r) => setTimeout(r, 100));
  await d.screenshot(name);
}

const typeMoves = (...moves) => stepTypeMoves(d, ...moves);

for (const [width, height] of SIZES) {
  const size = `${width}x${height}`;

  test(`menu, setup and settings fit at ${size}`, async () => {
    await resize(width, height);
    await toMenu();
    await assertFits('menu');
    await shoot(`look-menu-${size}.png`);
    await d.tap('#menu-computer');
    await waitFor('the setup screen', () => d.find('#start-game'));
    await assertFits('setup');
    await shoot(`look-setup-${size}.png`);
    await toMenu();
    await d.tap('#menu-settings');
    await waitFor('the settings', () => d.find('#settings-theme'));
    await assertFits('settings');
    await shoot(`look-settings-${size}.png`);
  });

  test(`a chess game with a clock, a Horde game and the result dialog fit at ${size}`, async () => {
    await resize(width, height);
    await newGame('classic', () => d.tap('#time-5\\+3'));
    await typeMoves('e4', 'e5', 'Nf3', 'Nc6', 'Bb5', 'a6', 'Bxc6', 'dxc6');
    await assertFits('chess game');
    await shoot(`look-game-chess-${size}.png`);
    await newGame('horde');
    await typeMoves('d5', 'e6', 'dxe6');
    await assertFits('Horde game');
    await shoot(`look-game-horde-${size}.png`);
    await newGame('classic');
    await typeMoves('f3', 'e5', 'g4', 'Qh4#');
    await waitFor('the result dialog', () => d.find('#result-dialog'));
    await assertFits('result dialog');
    await shoot(`look-result-${size}.png`);
  });
}

test('the computer declines a draw offered in the opening of a level game', async () => {
  await resize(390, 844);
  await newGame('computer', async () => {
    await d.tap('#color-white');
    await d.tap('#level-3');
  });
  await d.tap('#offer-draw');
  await d.tap('#draw-confirm');
  const banner = await waitFor('the answer', async () => d.text(await d.find('#draw-offer')));
  assert.match(banner, /declines the draw/);
  assert.equal(await d.script('return document.querySelector("#result-dialog");'), null, 'the game goes on');
});
