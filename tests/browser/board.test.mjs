// The boards up close in Chromium with a finger (touch events, as on an Android phone), against
// the real application core through the web shell: the board stays put when the builder refuses
// a tap or its hint changes and at a game's first capture; a swipe steps through the moves in
// review with the strip of moves kept on the move shown; coordinates big and contrasted enough
// on every board theme; the themes' previews in Settings; the Chaturaji boat and elephant drawn
// unlike the chess rook; and a drag from the builder's palette showing the piece under the
// finger and the square it would land on.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import {
  artifacts, count, launch, move, openSetup, phone, spent, startShell, tapSquare, toMenu, waitFor,
} from './shell.mjs';

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

/** The centre of the element matching `css`, in the page's viewport. */
const centre = (page, css) => page.evaluate((c) => {
  const r = document.querySelector(c).getBoundingClientRect();
  return [r.left + r.width / 2, r.top + r.height / 2];
}, css);

/** Where the element matching `css` starts in the document (its top, whatever the scroll). */
const topOf = (page, css) => page.evaluate((c) => document.querySelector(c).getBoundingClientRect().top + window.scrollY, css);

/** One finger on the touch screen, through Chromium's own touch input (pointer events follow). */
async function finger(page) {
  const cdp = await page.context().newCDPSession(page);
  const touch = (type, points) => cdp.send('Input.dispatchTouchEvent', { type, touchPoints: points });
  let at = null;
  return {
    async down([x, y]) { at = [x, y]; await touch('touchStart', [{ x, y }]); },
    /** Slides to (x, y) in a few steps, as a finger does. */
    async slide([x, y], steps = 6) {
      const [x0, y0] = at;
      for (let i = 1; i <= steps; i += 1) {
        at = [x0 + ((x - x0) * i) / steps, y0 + ((y - y0) * i) / steps];
        await touch('touchMove', [{ x: at[0], y: at[1] }]);
      }
    },
    async up() { await touch('touchEnd', []); },
  };
}

async function openBuilder(page) {
  await openSetup(page, 'custom');
  await page.tap('#start-game');
  await waitFor('the builder', async () => (await spent(page)) !== null);
}

/** The builder's note (its hint or refusal): which, its text, and whether it is cut off. */
const note = (page) => page.evaluate(() => {
  const n = document.querySelector('#build-refusal, #build-hint');
  return { id: n.id, text: n.textContent, cut: n.scrollHeight > n.clientHeight + 1 || n.scrollWidth > n.clientWidth + 1 };
});

/**
 * Goes through the builder's hints and refusals (every piece picked; over budget; a piece beyond
 * a gap; one beyond a whole empty rank) and returns the board's top after each, by name, with
 * any note that did not fit its slot.
 */
async function builderNotes(page) {
  const board = '#builder-board';
  await openBuilder(page);
  await page.tap('#preset-orthodox');
  await waitFor('39 points', async () => (await spent(page)) === 39);
  const tops = { arrival: await topOf(page, board) };
  const cut = [];
  const look = async (when) => {
    tops[when] = await topOf(page, board);
    const shown = await note(page);
    if (shown.cut) cut.push(`${when}: ${shown.text}`);
    return shown;
  };
  assert.equal((await look('arrival')).id, 'build-hint');
  const roles = await page.evaluate(() => [...document.querySelectorAll('#palette .palette-item')].map((b) => b.dataset.role));
  for (const role of roles) {
    await page.tap(`#palette-${role}`);
    await waitFor(`${role} picked`, () => page.evaluate((r) => document.querySelector(`#palette-${r}`).getAttribute('aria-pressed') === 'true', role));
    await look(`${role} picked`);
    await page.tap(`#palette-${role}`);
    await waitFor(`${role} put back`, () => page.evaluate((r) => document.querySelector(`#palette-${r}`).getAttribute('aria-pressed') === 'false', role));
  }
  await page.tap('#palette-maharajah');
  await tapSquare(page, 'd1', board);
  await waitFor('the refusal', async () => (await note(page)).id === 'build-refusal');
  const overBudget = await look('over budget');
  await page.tap('#palette-maharajah');
  await waitFor('the refusal gone', async () => (await note(page)).id === 'build-hint');
  await look('refusal gone');
  await tapSquare(page, 'a2', board);
  await waitFor('a2 removed', async () => (await spent(page)) === 38);
  await tapSquare(page, 'b2', board);
  await waitFor('b2 removed', async () => (await spent(page)) === 37);
  await page.tap('#palette-pawn');
  await tapSquare(page, 'a3', board);
  await waitFor('the refusal', async () => (await note(page)).id === 'build-refusal');
  const gap = await look('beyond a gap');
  await page.tap('#preset-empty');
  await waitFor('the king alone', async () => (await spent(page)) === 0);
  await page.evaluate(() => window.scrollTo(0, 0));
  if ((await note(page)).id === 'build-hint' && !(await page.evaluate(() => document.querySelector('#palette-pawn').getAttribute('aria-pressed') === 'true'))) await page.tap('#palette-pawn');
  await tapSquare(page, 'a3', board);
  await waitFor('the refusal', async () => (await note(page)).id === 'build-refusal');
  const emptyRank = await look('beyond an empty rank');
  return { tops, cut, overBudget, gap, emptyRank };
}

test('the builder\'s board stays put when a tap is refused or the hint changes, in both languages, at 360×640', async () => {
  const { page, context, errors } = await phone(browser, shell.url, 360, 640);
  for (const language of ['en', 'es']) {
    if (language === 'es') {
      await toMenu(page);
      await page.tap('#menu-settings');
      await page.tap('#language-es');
      await waitFor('Spanish', () => page.evaluate(() => document.documentElement.lang === 'es'));
    }
    const { tops, cut, overBudget, gap, emptyRank } = await builderNotes(page);
    if (language === 'en') {
      assert.equal(overBudget.text, 'White spends 43 of 39 points');
      assert.equal(gap.text, 'White: piece on a3 while rank 2 has empty squares: a2, b2');
      assert.equal(emptyRank.text, 'White: piece on a3 while rank 1 has empty squares: a1, b1, c1…', 'a long list is cut short (the board marks every square)');
      await page.screenshot({ path: path.join(artifacts, 'chromium-builder-refusal-360x640.png') });
    }
    assert.deepEqual(cut, [], `${language}: every hint and refusal fits its slot`);
    for (const [when, top] of Object.entries(tops)) assert.equal(top, tops.arrival, `${language}: the board's top ${when} (${JSON.stringify(tops)})`);
  }
  assert.deepEqual(errors, []);
  await context.close();
});

test('the game board stays put at the first move and the first captures, at 360×640', async () => {
  const { page, context, errors } = await phone(browser, shell.url, 360, 640);
  await openSetup(page, 'classic');
  await page.tap('#start-game');
  await page.waitForSelector('#board .piece');
  const tops = { start: await topOf(page, '#board') };
  await move(page, 'e2', 'e4');
  tops.e4 = await topOf(page, '#board');
  await move(page, 'd7', 'd5');
  await move(page, 'e4', 'd5');
  tops.exd5 = await topOf(page, '#board');
  await move(page, 'd8', 'd5');
  assert.equal(await count(page, '#player-black .captured .piece-icon'), 1, 'Black has taken a pawn');
  tops.Qxd5 = await topOf(page, '#board');
  for (const [when, top] of Object.entries(tops)) assert.equal(top, tops.start, `the board's top after ${when} (${JSON.stringify(tops)})`);
  assert.deepEqual(errors, []);
  await context.close();
});

/** WCAG's contrast ratio of two CSS colours ("rgb(r, g, b)"). */
function contrast(a, b) {
  const luminance = (css) => {
    const [r, g, bl] = css.match(/\d+(\.\d+)?/g).slice(0, 3).map((v) => Number(v) / 255)
      .map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

/** Each coordinate label of the board `css`: text, rendered size in px, its fill and its square's. */
const coordinates = (page, css) => page.evaluate((c) => {
  const svg = document.querySelector(c);
  const perUnit = svg.getScreenCTM().a;
  return [...svg.querySelectorAll('.coord')].map((label) => ({
    text: label.textContent,
    px: parseFloat(getComputedStyle(label).fontSize) * perUnit,
    ink: getComputedStyle(label).fill,
    square: getComputedStyle(label.parentElement.querySelector('rect')).fill,
  }));
}, css);

/** The light and dark fills of the board `css`'s squares. */
const squareFills = (page, css) => page.evaluate((c) => ['light', 'dark'].map((k) => getComputedStyle(document.querySelector(`${c} rect.${k}`)).fill), css);

test('coordinates are big enough and contrasted on every theme, and each theme\'s preview shows its board, at 360×640', async () => {
  const { page, context, errors } = await phone(browser, shell.url, 360, 640);
  const themes = ['wood', 'green', 'slate'];
  const previews = {};
  for (const theme of themes) {
    await toMenu(page);
    await page.tap('#menu-settings');
    await page.waitForSelector('#settings-theme');
    if (theme === themes[0]) {
      for (const other of themes) previews[other] = await squareFills(page, `label:has(#theme-${other}) svg.theme-preview`);
      assert.equal(new Set(Object.values(previews).map(String)).size, 3, `three different previews (${JSON.stringify(previews)})`);
      await page.screenshot({ path: path.join(artifacts, 'chromium-settings-themes-360x640.png') });
    }
    await page.tap(`#theme-${theme}`);
    await waitFor(`${theme} chosen`, () => page.evaluate((t) => document.querySelector(`#theme-${t}`).checked, theme));
    await openSetup(page, 'classic');
    await page.tap('#start-game');
    await page.waitForSelector('#board .piece');
    assert.deepEqual(await squareFills(page, '#board'), previews[theme], `the ${theme} preview shows the ${theme} board`);
    const labels = await coordinates(page, '#board');
    assert.equal(labels.length, 16, 'a rank and a file label along two edges');
    for (const label of labels) {
      assert.ok(label.px >= 10, `${theme}: "${label.text}" is ${label.px.toFixed(1)} px, at least 10`);
      const ratio = contrast(label.ink, label.square);
      assert.ok(ratio >= 3, `${theme}: "${label.text}" has contrast ${ratio.toFixed(2)} with its square, at least 3:1`);
    }
    await page.screenshot({ path: path.join(artifacts, `chromium-coordinates-${theme}-360x640.png`) });
  }
  // The smaller boards (the builder's, Learn's) keep readable labels too.
  await toMenu(page);
  await page.tap('#menu-learn');
  await page.waitForSelector('#learn-board');
  for (const label of await coordinates(page, '#learn-board')) assert.ok(label.px >= 10, `Learn: "${label.text}" is ${label.px.toFixed(1)} px`);
  assert.deepEqual(errors, []);
  await context.close();
});

/** The move shown (the strip's current move) and whether the strip shows all of it. */
const stripState = (page) => page.evaluate(() => {
  const strip = document.querySelector('.move-strip');
  const current = strip.querySelector('.san.current');
  const box = strip.getBoundingClientRect();
  const item = current?.getBoundingClientRect();
  return {
    ply: current ? Number(current.dataset.ply) : 0,
    inView: current ? item.left >= box.left - 1 && item.right <= box.right + 1 : null,
    scrollLeft: strip.scrollLeft,
    overflows: strip.scrollWidth > strip.clientWidth,
  };
});

const LONG_GAME = '1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 7. Bb3 d6 8. c3 O-O 9. h3 Nb8 10. d4 Nbd7 11. c4 c6 12. cxb5 axb5 13. Nc3 Bb7 14. Bg5 b4 15. Nb1 h6 16. Bh4 c5 17. dxe5 Nxe4 18. Bxe7 Qxe7 19. exd6 Qf6 20. Nbd2 Nxd6 *';

test('in review a swipe on the board steps through the moves, the strip kept on the move shown, at 360×640', async () => {
  const { page, context, errors } = await phone(browser, shell.url, 360, 640);
  await toMenu(page);
  await page.tap('#menu-history');
  await page.fill('#import-text', LONG_GAME);
  await page.tap('#import-submit');
  await page.waitForSelector('#board .piece');
  await waitFor('40 moves', async () => (await count(page, '#moves .san')) === 40);
  let strip = await stripState(page);
  assert.ok(strip.overflows, 'the strip is longer than the screen');
  assert.equal(strip.ply, 40);
  assert.ok(strip.inView && strip.scrollLeft > 0, `the last move is in view (${JSON.stringify(strip)})`);

  const board = await centre(page, '#board');
  const hand = await finger(page);
  const swipe = async (dx) => {
    await hand.down([board[0] - dx / 2, board[1]]);
    await hand.slide([board[0] + dx / 2, board[1] + 8]);
    await hand.up();
  };
  await page.tap('#nav-first');
  await waitFor('the start', async () => (await stripState(page)).ply === 0);
  assert.equal((await stripState(page)).scrollLeft, 0, 'the strip at its start');
  // Right to left: forward; left to right: back.
  await swipe(-150);
  await waitFor('a swipe forward', async () => (await stripState(page)).ply === 1);
  await swipe(-150);
  await waitFor('another', async () => (await stripState(page)).ply === 2);
  await swipe(150);
  await waitFor('a swipe back', async () => (await stripState(page)).ply === 1);
  // A short or mostly vertical slide is no swipe.
  await hand.down([board[0], board[1] - 60]);
  await hand.slide([board[0] + 30, board[1] + 60]);
  await hand.up();
  await page.waitForTimeout(200);
  assert.equal((await stripState(page)).ply, 1);
  // Far into the game by swipes: the strip follows the move shown.
  for (let ply = 2; ply <= 24; ply += 1) {
    await swipe(-150);
    await waitFor(`ply ${ply}`, async () => (await stripState(page)).ply === ply);
  }
  strip = await stripState(page);
  assert.ok(strip.inView && strip.scrollLeft > 0, `move 24 is in view (${JSON.stringify(strip)})`);
  const shown = await page.evaluate(() => [...document.querySelectorAll('#board [data-piece-square]')].length);
  assert.equal(shown, 30, 'the board shows the position after move 24 (cxb5 axb5: two pawns taken)');
  for (let ply = 23; ply >= 8; ply -= 1) {
    await swipe(150);
    await waitFor(`back to ply ${ply}`, async () => (await stripState(page)).ply === ply);
  }
  strip = await stripState(page);
  assert.ok(strip.inView, `back at move 8, it is in view (${JSON.stringify(strip)})`);
  await page.screenshot({ path: path.join(artifacts, 'chromium-review-swipe-360x640.png') });
  assert.deepEqual(errors, []);
  await context.close();
});

test('the Chaturaji boat and elephant are drawn unlike the chess rook', async () => {
  const { page, context, errors } = await phone(browser, shell.url, 390, 844);
  await openSetup(page, 'classic');
  await page.tap('#start-game');
  await page.waitForSelector('#board .piece');
  const shapes = (css) => page.evaluate((c) => [...document.querySelectorAll(`${c} path, ${c} rect, ${c} circle, ${c} ellipse`)]
    .map((n) => n.getAttribute('d') ?? `${n.tagName}:${['x', 'y', 'width', 'height', 'cx', 'cy', 'r', 'rx', 'ry'].map((a) => n.getAttribute(a)).join(',')}`), css);
  const rook = await shapes('#board [data-piece="white-rook"]');
  assert.ok(rook.length > 0, 'the chess rook has its shapes');
  await toMenu(page);
  await page.tap('#menu-chaturaji');
  await page.waitForSelector('#cj-start, #cj-board .piece');
  if (await count(page, '#cj-start')) await page.tap('#cj-start');
  await page.waitForSelector('#cj-board .piece');
  for (const role of ['boat', 'elephant']) {
    assert.equal(await count(page, `#cj-board .piece[data-piece$="-${role}"] .piece-art.${role}`), 4, `each seat's ${role} is drawn as a ${role}`);
    const drawn = await shapes(`#cj-board .piece[data-piece="red-${role}"] .piece-art`);
    assert.ok(drawn.length > 0);
    assert.deepEqual(drawn.filter((d) => rook.includes(d)), [], `the ${role} shares no shape with the rook`);
  }
  await page.screenshot({ path: path.join(artifacts, 'chromium-chaturaji-pieces-390x844.png') });
  assert.deepEqual(errors, []);
  await context.close();
});

test('a drag from the builder\'s palette shows the piece under the finger and the square it lands on, at 390×844', async () => {
  const { page, context, errors } = await phone(browser, shell.url, 390, 844);
  await openBuilder(page);
  const square = (name) => `#builder-board g.sq[data-square="${name}"] > rect`;
  const hand = await finger(page);
  const ghost = () => page.evaluate(() => {
    const g = document.querySelector('.drag-ghost');
    if (!g) return null;
    const r = g.getBoundingClientRect();
    return { x: r.left + r.width / 2, bottom: r.bottom, piece: Boolean(g.querySelector('svg')) };
  });
  const outlined = () => page.evaluate(() => [...document.querySelectorAll('#builder-board .drop-target')].map((g) => g.dataset.square));

  await hand.down(await centre(page, '#palette-knight'));
  const c1 = await centre(page, square('c1'));
  await hand.slide(c1);
  // (Chromium hands touch moves to the page once a frame: the last one may come a frame later.)
  const under = (point) => waitFor(`the ghost at ${point}`, async () => {
    const g = await ghost();
    return g && Math.abs(g.x - point[0]) <= 2 ? g : null;
  }, 2000);
  let seen = await under(c1);
  assert.ok(seen.piece, 'the piece follows the finger, centred on it');
  assert.ok(seen.bottom <= c1[1] && seen.bottom >= c1[1] - 16, `just above the fingertip, not under it (${seen.bottom} vs ${c1[1]})`);
  assert.deepEqual(await outlined(), ['c1'], 'the square it would land on is outlined');
  await page.screenshot({ path: path.join(artifacts, 'chromium-builder-drag-390x844.png') });
  const d1 = await centre(page, square('d1'));
  await hand.slide(d1, 3);
  seen = await under(d1);
  assert.ok(seen.bottom <= d1[1] && seen.bottom >= d1[1] - 16, 'the piece moved with the finger');
  assert.deepEqual(await outlined(), ['d1'], 'the outline moved to the square under the finger');
  await hand.up();
  await waitFor('the knight placed on d1', () => page.evaluate(() => document.querySelector('#builder-board [data-piece-square="d1"]')?.dataset.piece === 'white-knight'));
  assert.equal(await ghost(), null, 'the ghost is gone once dropped');
  assert.deepEqual(await outlined(), []);
  assert.deepEqual(errors, []);
  await context.close();
});
