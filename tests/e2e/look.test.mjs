// The look of the main screens at phone (390×844) and desktop (1280×800) size: menu, setup,
// settings, a chess and a Horde game in progress, the result dialog. Nothing may spill sideways
// or be cut off; screenshots land in tests/artifacts/look-*.png for people to judge. Then the
// layout check the Chromium run makes (tests/layout.mjs) on the game, builder, Learn, Chaturaji
// and menu screens at 360×640, 390×844, 844×390 and 1024×768, and a Spanish pass whose labels
// ("‹ Volver", the buttons) neither wrap nor clip. Also: the computer answers a draw offer from
// its own search (level start position: it accepts).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { newGame as stepNewGame, toMenu as stepToMenu, typeMoves as stepTypeMoves } from './steps.mjs';
import { startDriver, waitFor, tempDir } from './webdriver.mjs';
import { layoutScript } from '../layout.mjs';

let d;

before(async () => {
  d = await startDriver({ MAHARAJAH_DATA_DIR: await tempDir('look') });
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

/** Resizes to exactly `width`×`height` of page (the layout check reads the first screen). */
async function resizePage(width, height) {
  await d.wd('POST', `/session/${d.session}/window/rect`, { width, height });
  await waitFor(`a ${width}×${height} page`, () => d.script('return window.innerWidth === arguments[0] && window.innerHeight === arguments[1];', [width, height]), 5000);
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

/** The sizes and screens of the layout check (as in tests/browser/ui.test.mjs). */
const LAYOUT_SIZES = [[360, 640], [390, 844], [844, 390], [1024, 768]];
const TWO_COLUMNS = new Set(['game', 'builder', 'learn', 'chaturaji']);

/**
 * Runs the layout check on the screen shown at each size, as a person arriving there sees it
 * (scrolled to the top); the screen is opened once and the window resized around it.
 */
async function layoutAtEverySize(name, options = {}) {
  const found = [];
  for (const [width, height] of LAYOUT_SIZES) {
    await resizePage(width, height);
    await d.script('document.activeElement?.blur(); window.scrollTo(0, 0);');
    await new Promise((r) => setTimeout(r, 120));
    const besideBoard = width > height && TWO_COLUMNS.has(name);
    // The builder's palette names keep one line (WebKit broke "Archbishop" mid-word at 360 px).
    const checks = { besideBoard, oneLine: '.palette-name', ...options };
    for (const problem of await d.script(layoutScript, [checks])) found.push(`${name} at ${width}×${height}: ${problem}`);
    await d.screenshot(`layout-${name}-${width}x${height}.png`);
  }
  return found;
}

/** The screens of the layout check, each opened from the menu. */
const LAYOUT_SCREENS = [
  ['menu', async () => {}],
  ['game', async () => {
    await d.tap('#menu-classic');
    await waitFor('the setup screen', () => d.find('#start-game'));
    await d.tap('#start-game');
    await waitFor('the board', () => d.find('#board .piece'));
  }],
  ['builder', async () => {
    await d.tap('#menu-custom');
    await waitFor('the setup screen', () => d.find('#start-game'));
    await d.tap('#start-game');
    await waitFor('the builder', () => d.find('#preset-orthodox'));
    await d.tap('#preset-orthodox');
    await waitFor('39 points', () => d.script('return document.querySelector("#budget")?.dataset.spent === "39";'));
  }],
  ['learn', async () => {
    await d.tap('#menu-learn');
    await waitFor('the Learn board', () => d.find('#learn-board'));
  }],
  ['chaturaji-setup', async () => {
    await d.tap('#menu-chaturaji');
    await waitFor('the table setup', () => d.find('#cj-start, #cj-new'));
    if (await d.script('return Boolean(document.querySelector("#cj-new"));')) await d.tap('#cj-new');
    await waitFor('the table setup', () => d.find('#cj-start'));
  }],
  ['chaturaji', async () => {
    await d.tap('#menu-chaturaji');
    await waitFor('the table or its setup', () => d.find('#cj-start, #cj-board .piece'));
    if (await d.script('return Boolean(document.querySelector("#cj-start"));')) await d.tap('#cj-start');
    await waitFor('the table', () => d.find('#cj-board .piece'));
  }],
];

test('the game, builder, Learn, Chaturaji and menu screens fit at 360×640, 390×844, 844×390 and 1024×768', async () => {
  const found = [];
  for (const [name, open] of LAYOUT_SCREENS) {
    await resizePage(390, 844);
    await toMenu();
    await open();
    found.push(...await layoutAtEverySize(name));
  }
  await resize(390, 844);
  assert.deepEqual(found, [], 'layout problems in the real app');
});

test('in Spanish the labels fit on one line, "‹ Volver" included, at 360×640', async () => {
  await resize(390, 844);
  await toMenu();
  await d.tap('#menu-settings');
  await d.tap('#language-es');
  await waitFor('Spanish', () => d.script('return document.documentElement.lang === "es";'));
  // (Learn's three tools share a phone's width: their labels may take two lines, by design.)
  const oneLine = '#back, .action, .segmented:not(#learn-tool) .seg, .chip, .menu-title, .badge, .palette-cost';
  const found = [];
  try {
    for (const [name, open] of [['settings', () => d.tap('#menu-settings')], ...LAYOUT_SCREENS]) {
      await resizePage(390, 844);
      await toMenu();
      await open();
      await resizePage(360, 640);
      await d.script('document.activeElement?.blur(); window.scrollTo(0, 0);');
      await new Promise((r) => setTimeout(r, 120));
      if (name !== 'menu') assert.equal(await d.script('return document.querySelector("#back").textContent;'), name === 'game' ? '‹ Menú' : '‹ Volver');
      for (const problem of await d.script(layoutScript, [{ oneLine }])) found.push(`${name}: ${problem}`);
      await d.screenshot(`layout-es-${name}-360x640.png`);
    }
  } finally {
    await resize(390, 844);
    await toMenu();
    await d.tap('#menu-settings');
    await d.tap('#language-en');
    await waitFor('English again', () => d.script('return document.documentElement.lang === "en";'));
  }
  assert.deepEqual(found, [], 'Spanish labels that wrap or clip');
});
