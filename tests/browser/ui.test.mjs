// The UI in Chromium, the engine of Android's web view, at phone and tablet sizes with touch,
// against the real application core through the web shell (src-tauri/examples/web_shell.rs):
// a game by taps, an army built and locked in, a Chaturaji table rolled, and a layout check of
// every screen at 360×640, 390×844, 844×390 and 1024×768 that fails on horizontal scrolling,
// clipped text, controls drawn over each other, or a board not wholly on the first screen
// (tests/layout.mjs, shared with the real app's run in tests/e2e/layout.test.mjs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import {
  artifacts, count, launch, move, openSetup, phone, spent, startShell, tapSquare, toMenu, waitFor,
} from './shell.mjs';
import { layoutProblems } from '../layout.mjs';

let shell;
let browser;

before(async () => {
  await mkdir(artifacts, { recursive: true });
  shell = await startShell();
  browser = await launch();
});

after(async () => {
  await browser?.close();
  shell?.stop();
});

test('a pass-and-play game by taps, at 360×640', async () => {
  const { page, context, errors } = await phone(browser, shell.url, 360, 640);
  await openSetup(page, 'classic');
  await page.tap('#start-game');
  await page.waitForSelector('#board .piece');
  assert.equal(await count(page, '#board .piece'), 32);
  await tapSquare(page, 'e2');
  const targets = await page.evaluate(() => [...document.querySelectorAll('g.sq.target')].map((g) => g.dataset.square).sort());
  assert.deepEqual(targets, ['e3', 'e4'], 'the legal destinations come from the application core');
  await tapSquare(page, 'e2');
  await move(page, 'e2', 'e4');
  await move(page, 'e7', 'e5');
  await move(page, 'g1', 'f3');
  const sans = await page.evaluate(() => [...document.querySelectorAll('#moves .san')].map((e) => e.textContent));
  assert.deepEqual(sans, ['1.e4', 'e5', '2.Nf3']);
  assert.equal(await page.evaluate(() => document.querySelector('[data-piece-square="f3"]')?.dataset.piece), 'white-knight');
  await page.screenshot({ path: path.join(artifacts, 'chromium-game-360x640.png') });
  assert.deepEqual(errors, [], 'no script errors');
  await context.close();
});

test('the builder: an orthodox army for each side, locked in, becomes a game, at 390×844', async () => {
  const { page, context, errors } = await phone(browser, shell.url, 390, 844);
  await openSetup(page, 'custom');
  await page.tap('#start-game');
  await waitFor('the builder', async () => (await spent(page)) !== null);
  assert.equal(await spent(page), 0);
  await page.tap('#preset-orthodox');
  await waitFor('39 points', async () => (await spent(page)) === 39);
  await page.tap('#lock-in');
  await waitFor('Black builds', () => page.evaluate(() => document.querySelector('.builder')?.dataset.side === 'black'));
  await page.tap('#preset-orthodox');
  await waitFor('39 points', async () => (await spent(page)) === 39);
  await page.screenshot({ path: path.join(artifacts, 'chromium-builder-390x844.png') });
  await page.tap('#lock-in');
  await page.waitForSelector('#board .piece');
  assert.equal(await count(page, '#board .piece'), 32);
  assert.deepEqual(errors, []);
  await context.close();
});

test('a Chaturaji table: four armies, a roll, the dice shown, at 390×844', async () => {
  const { page, context, errors } = await phone(browser, shell.url, 390, 844);
  await toMenu(page);
  await page.tap('#menu-chaturaji');
  await page.waitForSelector('#cj-start');
  await page.tap('#cj-start');
  await page.waitForSelector('#cj-board');
  assert.equal(await count(page, '#cj-board .piece'), 32);
  await waitFor('Red to roll', () => page.evaluate(() => Boolean(document.querySelector('#cj-roll'))), 30000);
  await page.tap('#cj-roll');
  await waitFor('two dice', async () => (await count(page, '.cj-die')) === 2);
  await page.screenshot({ path: path.join(artifacts, 'chromium-chaturaji-390x844.png') });
  assert.deepEqual(errors, []);
  await context.close();
});

/** The screens, each reached from the menu. */
const SCREENS = [
  ['menu', async () => {}],
  ['setup', async (page) => { await page.tap('#menu-classic'); await page.waitForSelector('#start-game'); }],
  ['game', async (page) => { await page.tap('#menu-classic'); await page.tap('#start-game'); await page.waitForSelector('#board .piece'); }],
  ['builder', async (page) => {
    await page.tap('#menu-custom'); await page.tap('#start-game');
    await waitFor('the builder', async () => (await spent(page)) !== null);
    await page.tap('#preset-orthodox');
    await waitFor('39 points', async () => (await spent(page)) === 39);
    // As on arrival: the tap scrolled down to the presets, below the board.
    await page.evaluate(() => window.scrollTo(0, 0));
  }],
  ['learn', async (page) => { await page.tap('#menu-learn'); await page.waitForSelector('#learn-board'); }],
  // An unfinished table opens at once; "New table" leads to the setup.
  ['chaturaji-setup', async (page) => {
    await page.tap('#menu-chaturaji');
    await page.waitForSelector('#cj-start, #cj-new');
    if (await count(page, '#cj-new')) await page.tap('#cj-new');
    await page.waitForSelector('#cj-start');
  }],
  ['chaturaji', async (page) => {
    await page.tap('#menu-chaturaji');
    await page.waitForSelector('#cj-start, #cj-board .piece');
    if (await count(page, '#cj-start')) await page.tap('#cj-start');
    await page.waitForSelector('#cj-board .piece');
  }],
  ['settings', async (page) => { await page.tap('#menu-settings'); await page.waitForSelector('#back'); }],
  ['about', async (page) => { await page.tap('#menu-about'); await page.waitForSelector('#back'); }],
  ['history', async (page) => { await page.tap('#menu-history'); await page.waitForSelector('#import-text'); }],
  ['lan', async (page) => { await page.tap('#menu-lan'); await page.waitForSelector('#back'); }],
  ['online', async (page) => { await page.tap('#menu-online'); await page.waitForSelector('#back'); }],
  ['analysis', async (page) => {
    await page.tap('#menu-classic'); await page.tap('#start-game'); await page.waitForSelector('#board .piece');
    await page.tap('#analyse'); await page.waitForSelector('#screen-analysis #board');
  }],
];
const SIZES = [[360, 640], [390, 844], [844, 390], [1024, 768]];
/** The screens with a board that a landscape screen shows beside their controls. */
const TWO_COLUMNS = new Set(['game', 'builder', 'learn', 'chaturaji', 'analysis']);

for (const [width, height] of SIZES) {
  test(`every screen fits at ${width}×${height}`, async () => {
    const { page, context, errors } = await phone(browser, shell.url, width, height);
    const found = [];
    for (const [name, open] of SCREENS) {
      await toMenu(page);
      await open(page);
      await page.waitForTimeout(100);
      const besideBoard = width > height && TWO_COLUMNS.has(name);
      // The builder's palette names keep one line (a name broken mid-word, "Archbisho p", was seen).
      for (const problem of await page.evaluate(layoutProblems, { besideBoard, oneLine: '.palette-name' })) found.push(`${name}: ${problem}`);
      await page.screenshot({ path: path.join(artifacts, `chromium-${name}-${width}x${height}.png`) });
    }
    assert.deepEqual(found, [], `layout problems at ${width}×${height}`);
    assert.deepEqual(errors, []);
    await context.close();
  });
}
