// The UI in Chromium, the engine of Android's web view, at phone and tablet sizes with touch,
// against the real application core through the web shell (src-tauri/examples/web_shell.rs):
// a game by taps, an army built and locked in, a Chaturaji table rolled, and a layout check of
// every screen at 360×640, 390×844, 844×390 and 1024×768 that fails on horizontal scrolling,
// clipped text, controls drawn over each other, or a board that does not fit on the screen.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { artifacts, launch, phone, startShell, waitFor } from './shell.mjs';

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

const count = (page, css) => page.evaluate((c) => document.querySelectorAll(c).length, css);
const spent = (page) => page.evaluate(() => { const b = document.querySelector('#budget'); return b && Number(b.dataset.spent); });

async function toMenu(page) {
  await waitFor('the menu', async () => {
    if (await count(page, '#screen-menu') === 1) return true;
    await page.evaluate(() => {
      for (const id of ['#result-close', '#export-close', '#discard-leave']) document.querySelector(id)?.click();
      document.querySelector('#back')?.click();
    });
    await page.waitForTimeout(150);
    return false;
  });
}

async function tapSquare(page, square, board = '#board') {
  await page.tap(`${board} g.sq[data-square="${square}"] > rect`);
}

async function move(page, from, to) {
  const before = await count(page, '#moves .san');
  await tapSquare(page, from);
  await waitFor(`${from} selected`, () => page.evaluate((s) => document.querySelector(`g.sq[data-square="${s}"]`)?.getAttribute('aria-pressed') === 'true', from));
  await tapSquare(page, to);
  await waitFor(`${from}-${to} played`, async () => (await count(page, '#moves .san')) > before);
}

async function openSetup(page, entry) {
  await toMenu(page);
  await page.tap(`#menu-${entry}`);
  await page.waitForSelector('#start-game');
}

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

/** Layout problems on the page as it is now (see the file's header). */
function layoutProblems(besideBoard) {
  const problems = [];
  const vw = document.documentElement.clientWidth;
  const vh = window.innerHeight;
  const describe = (el) => `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${el.className && typeof el.className === 'string' ? `.${el.className.trim().split(/\s+/).join('.')}` : ''} “${(el.textContent ?? '').trim().slice(0, 30)}”`;
  const shown = (el) => {
    const r = el.getBoundingClientRect();
    const s = getComputedStyle(el);
    // checkVisibility: not inside a closed <details>, display: none or content-visibility: hidden.
    return r.width > 1 && r.height > 1 && s.visibility !== 'hidden' && s.opacity !== '0'
      && (el.checkVisibility ? el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true }) : true);
  };
  const scrolls = (el) => {
    for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
      if (['auto', 'scroll'].includes(getComputedStyle(p).overflowX)) return true;
    }
    return false;
  };
  if (document.documentElement.scrollWidth > vw + 1) problems.push(`the page scrolls sideways (${document.documentElement.scrollWidth} px in ${vw})`);
  const all = [...document.querySelectorAll('#app *')].filter(shown);
  for (const el of all) {
    if (el.closest('svg') && el.tagName.toLowerCase() !== 'svg') continue;
    const r = el.getBoundingClientRect();
    if ((r.right > vw + 1 || r.left < -1) && !scrolls(el)) problems.push(`beyond the screen's edge: ${describe(el)} (${Math.round(r.left)}–${Math.round(r.right)})`);
    const s = getComputedStyle(el);
    const leaf = el.children.length === 0 && (el.textContent ?? '').trim() !== '';
    // (A rotated label, as the evaluation bar's, is laid out across its box on purpose.)
    if (leaf && s.display !== 'inline' && s.transform === 'none' && !el.closest('svg') && el.scrollWidth > el.clientWidth + 1 && !scrolls(el)) {
      problems.push(`text cut off: ${describe(el)} (${el.scrollWidth} px in ${el.clientWidth})`);
    }
  }
  const controls = all.filter((el) => el.matches('button, input:not([type=hidden]), select, textarea, a[href]'));
  for (let i = 0; i < controls.length; i += 1) {
    for (let j = i + 1; j < controls.length; j += 1) {
      const [a, b] = [controls[i], controls[j]];
      if (a.contains(b) || b.contains(a)) continue;
      const [p, q] = [a.getBoundingClientRect(), b.getBoundingClientRect()];
      const w = Math.min(p.right, q.right) - Math.max(p.left, q.left);
      const h = Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top);
      if (w > 2 && h > 2) problems.push(`controls overlap: ${describe(a)} and ${describe(b)}`);
    }
  }
  for (const board of document.querySelectorAll('#board, #builder-board, #learn-board, #cj-board, #analysis-board')) {
    if (!shown(board)) continue;
    const r = board.getBoundingClientRect();
    if (r.width > vw + 1 || r.height > vh + 1) problems.push(`${describe(board)} does not fit on the screen (${Math.round(r.width)}×${Math.round(r.height)} in ${vw}×${vh})`);
    // Landscape: two columns, the board on one side and the controls beside it.
    const beside = (c) => { const b = c.getBoundingClientRect(); return b.left >= r.right - 1 && b.top < r.bottom && b.bottom > r.top; };
    if (besideBoard && !controls.some(beside)) problems.push(`no controls beside ${describe(board)}`);
  }
  return problems;
}

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
      for (const problem of await page.evaluate(layoutProblems, besideBoard)) found.push(`${name}: ${problem}`);
      await page.screenshot({ path: path.join(artifacts, `chromium-${name}-${width}x${height}.png`) });
    }
    assert.deepEqual(found, [], `layout problems at ${width}×${height}`);
    assert.deepEqual(errors, []);
    await context.close();
  });
}
