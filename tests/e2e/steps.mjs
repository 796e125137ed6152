// Steps the end-to-end tests share, each taking the driver from webdriver.mjs: getting back to
// the menu, starting or importing a game, moves by taps, typed and dragged, and form input.
import assert from 'node:assert/strict';
import { waitFor } from './webdriver.mjs';

/** The closing buttons of the game screen's dialogs, tried in this order on the way out. */
const DIALOG_CLOSERS = ['#result-close', '#export-close', '#promotion-cancel', '#resign-cancel', '#draw-cancel'];

/** Whether an element matches `css` now. */
export const exists = (d, css) => d.script('return Boolean(document.querySelector(arguments[0]));', [css]);

/** How many half-moves the move list shows. */
export const plies = (d) => d.script('return document.querySelectorAll("#moves .san").length;');

/** The piece drawn on `square` ("white-knight"), or null. */
export const pieceAt = (d, square) => d.script('const p = document.querySelector(`[data-piece-square="${arguments[0]}"]`); return p && p.getAttribute("data-piece");', [square]);

/** Waits for the main menu with all its entries. */
export const menuShown = (d) => waitFor('the menu', async () => (await d.findAll('.menu-item')).length === 10);

/** Closes any game dialog, then goes back one screen at a time (each given time to re-render)
 * until the menu shows. */
export async function toMenu(d) {
  for (const close of DIALOG_CLOSERS) {
    if (await exists(d, close)) await d.tap(close);
  }
  while (!(await exists(d, '#screen-menu'))) {
    // Back on the builder's hand-over asks before White's army is thrown away: here it is.
    if (await exists(d, '#discard-leave')) await d.tap('#discard-leave');
    else await d.tap('#back');
    await new Promise((r) => setTimeout(r, 150));
  }
  await menuShown(d);
}

/** Starts a game from menu entry `entry`; `choose` picks options on the setup screen first. */
export async function newGame(d, entry, choose = async () => {}) {
  await toMenu(d);
  await d.tap(`#menu-${entry}`);
  await waitFor('the setup screen', () => d.find('#start-game'));
  await choose();
  await d.tap('#start-game');
  await waitFor('the board', () => d.find('#board .piece'));
}

/** Opens a game from text (FEN or PGN) through the history screen's import box. */
export async function importGame(d, text) {
  await toMenu(d);
  await d.tap('#menu-history');
  await setValue(d, '#import-text', ''); // an earlier, refused import may have left text there
  await d.typeInto('#import-text', text);
  await d.tap('#import-submit');
  await waitFor('the board', () => d.find('#board'));
}

/** Taps `from`, waits for it to be selected, taps `to`, and waits for the move list to grow. */
export async function tapMove(d, from, to) {
  const before = await plies(d);
  await d.tap(`g.sq[data-square="${from}"] > rect`);
  await waitFor(`${from} selected`, async () => (await d.script('return document.querySelector(`g.sq[data-square="${arguments[0]}"]`)?.getAttribute("aria-pressed");', [from])) === 'true');
  await d.tap(`g.sq[data-square="${to}"] > rect`);
  await waitFor(`${from}${to} played`, async () => (await plies(d)) > before);
}

/** Types each move (SAN or UCI) into the keyboard entry and waits for it to be played. */
export async function typeMoves(d, ...moves) {
  for (const text of moves) {
    const before = await plies(d);
    await d.typeInto('#move-input', text);
    await d.tap('#move-submit');
    await waitFor(`${text} played`, async () => (await plies(d)) > before);
  }
}

/** W3C pointer actions moving the mouse from the centre of element `fromId` to that of `toId`
 * with the button held, unless `release` is false (then `releasePointer` lets go later). */
export async function drag(d, fromId, toId, { release = true } = {}) {
  const origin = (id) => ({ 'element-6066-11e4-a52e-4f735466cecf': id });
  const actions = [
    { type: 'pointerMove', duration: 0, origin: origin(fromId), x: 0, y: 0 },
    { type: 'pointerDown', button: 0 },
    { type: 'pointerMove', duration: 150, origin: origin(toId), x: 0, y: 0 },
  ];
  if (release) actions.push({ type: 'pointerUp', button: 0 });
  await d.wd('POST', `/session/${d.session}/actions`, { actions: [{ type: 'pointer', id: 'finger', parameters: { pointerType: 'mouse' }, actions }] });
  if (release) await d.wd('DELETE', `/session/${d.session}/actions`);
}

/** Lets go of a pointer held by `drag(…, { release: false })`. */
export async function releasePointer(d) {
  await d.wd('POST', `/session/${d.session}/actions`, { actions: [{ type: 'pointer', id: 'finger', parameters: { pointerType: 'mouse' }, actions: [{ type: 'pointerUp', button: 0 }] }] });
  await d.wd('DELETE', `/session/${d.session}/actions`);
}

/** The client rectangle [left, top, width, height] of the element matching `css`, or null. */
const boxOf = (d, css) => d.script('const r = document.querySelector(arguments[0])?.getBoundingClientRect(); return r ? [r.left, r.top, r.width, r.height] : null;', [css]);

/**
 * Drags the piece on `from` to `to` on the board `board` (a CSS selector) with the mouse, and
 * checks before letting go that the piece is lifted and has moved as far as the pointer (within a
 * fifth of a square). What the drop does is for the caller to check.
 */
export async function dragPiece(d, board, from, to) {
  const square = (name) => `${board} g.sq[data-square="${name}"] > rect`;
  const piece = `${board} [data-piece-square="${from}"]`;
  const [fromBox, toBox, atRest] = [await boxOf(d, square(from)), await boxOf(d, square(to)), await boxOf(d, piece)];
  assert.ok(atRest, `a piece on ${from}`);
  await drag(d, await d.find(square(from)), await d.find(square(to)), { release: false });
  try {
    const lifted = await boxOf(d, `${piece}.dragging`);
    assert.ok(lifted, `the piece on ${from} is lifted while dragged`);
    const pointer = [toBox[0] - fromBox[0], toBox[1] - fromBox[1]];
    const moved = [lifted[0] - atRest[0], lifted[1] - atRest[1]];
    const off = Math.max(Math.abs(moved[0] - pointer[0]), Math.abs(moved[1] - pointer[1]));
    assert.ok(off < fromBox[2] / 5, `the lifted piece follows the pointer: it moved ${moved}, the pointer ${pointer}`);
  } finally {
    await releasePointer(d);
  }
}

/** Sets a form field's value as typing or choosing would, firing `event` ("input" or "change"). */
export const setValue = (d, css, value, event = 'input') => d.script(
  'const n = document.querySelector(arguments[0]); n.value = arguments[1]; n.dispatchEvent(new Event(arguments[2], { bubbles: true }));',
  [css, value, event]);

/** Sets who sits in a Chaturaji seat on the table setup ("person" or a CPU level). */
export async function chooseSeat(d, seat, value) {
  await setValue(d, `#cj-seat-${seat}`, value, 'change');
  await waitFor(`${seat} set to ${value}`, async () => (await d.script('return document.querySelector(arguments[0]).value;', [`#cj-seat-${seat}`])) === value);
}
