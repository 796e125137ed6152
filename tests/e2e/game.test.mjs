// End-to-end games in the real app at phone size: moves by taps on the SVG board, the result
// dialog, promotion picker, a claimed threefold repetition, Horde, the computer's reply, PGN
// export, and continuing a saved game after the app is closed and started again.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  dragPiece, importGame, newGame as stepNewGame, pieceAt as stepPieceAt, plies as stepPlies, setValue, tapMove,
  toMenu as stepToMenu, typeMoves,
} from './steps.mjs';
import { startDriver, waitFor, tempDir } from './webdriver.mjs';

let d;

before(async () => {
  const dataDir = await tempDir('game');
  const exportDir = await tempDir('export');
  d = await startDriver({ MAHARAJAH_DATA_DIR: dataDir, MAHARAJAH_EXPORT_DIR: exportDir });
  await d.open(390, 844);
});

after(async () => {
  if (d) await d.stop();
});

const plies = () => stepPlies(d);
const pieceAt = (square) => stepPieceAt(d, square);
const move = (from, to) => tapMove(d, from, to);
const typeMove = (text) => typeMoves(d, text);
const toMenu = () => stepToMenu(d);
const newGame = (entry, choose) => stepNewGame(d, entry, choose);

/** Opens `fen`, pushes the white pawn on a7 to a8, and returns the roles the picker offers. */
async function promotionChoices(fen) {
  await importGame(d, fen);
  await d.tap('g.sq[data-square="a7"] > rect');
  await d.tap('g.sq[data-square="a8"] > rect');
  await waitFor('the picker', () => d.find('#promotion'));
  return d.script('return [...document.querySelectorAll("#promotion .promo")].map((b) => b.dataset.role);');
}

test("Fool's mate by taps ends in the result dialog; the PGN export matches", async () => {
  await newGame('classic');
  assert.equal(await d.script('return document.querySelectorAll("#board .piece").length;'), 32);
  const label = await d.script('return document.querySelector(\'g.sq[data-square="g1"]\').getAttribute("aria-label");');
  assert.equal(label, 'g1, white knight', 'squares have spoken labels');
  await d.tap('g.sq[data-square="e2"] > rect');
  const dests = await d.script('return [...document.querySelectorAll("g.sq.target")].map((g) => g.dataset.square).sort();');
  assert.deepEqual(dests, ['e3', 'e4'], 'legal destinations from the backend');
  await d.screenshot('game-selected-390x844.png');
  await d.tap('g.sq[data-square="e2"] > rect'); // tap again: deselect
  await move('f2', 'f3');
  assert.equal(await d.script('return document.getElementById("announcer").textContent;'), 'White: f3', 'the move is announced');
  assert.equal(await d.script('return document.querySelectorAll("[aria-live]").length;'), 1, 'one live region: the announcer');
  await move('e7', 'e5');
  await move('g2', 'g4');
  await move('d8', 'h4');
  const title = await waitFor('the result dialog', async () => d.text(await d.find('#result-dialog h2')));
  assert.equal(title, 'Black wins');
  assert.equal(await d.text(await d.find('#result-reason')), 'by checkmate');
  assert.equal(await d.script('return document.getElementById("announcer").textContent;'), 'Black wins, by checkmate');
  assert.equal(await d.script('return document.querySelector("#board .hl-check") !== null;'), true, 'the mated king is marked');
  await d.screenshot('game-checkmate-390x844.png');
  await d.tap('#result-export');
  const pgn = await waitFor('the PGN', () => d.script('return document.querySelector("#pgn-text")?.value;'));
  assert.match(pgn, /\[Result "0-1"\]/);
  assert.match(pgn, /1\. f3 e5 2\. g4 Qh4# 0-1/);
  await d.tap('#pgn-save');
  const saved = await waitFor('the saved file', async () => d.text(await d.find('#saved-path')));
  assert.match(saved, /maharajah-\d+-\d{4}-\d{2}-\d{2}\.pgn/);
  await d.screenshot('game-export-390x844.png');
  await d.tap('#export-close');
});

test('a promotion offers exactly the side\'s set in the picker', async () => {
  const roles = await promotionChoices('8/P6k/8/8/8/8/8/K7 w - - 0 1');
  assert.deepEqual(roles.sort(), ['bishop', 'knight', 'queen', 'rook']);
  await d.screenshot('game-promotion-390x844.png');
  await d.tap('#promotion .promo[data-role="knight"]');
  await waitFor('the knight on a8', async () => (await pieceAt('a8')) === 'white-knight');
  // King and knight against a king: the backend ends the game at once.
  assert.equal(await d.text(await waitFor('the result', () => d.find('#result-reason'))), 'insufficient material');
});

test('knights shuffling reach threefold repetition, and the draw is claimed', async () => {
  await newGame('classic');
  assert.equal(await d.script('return document.querySelector("#claim-draw");'), null);
  await move('g1', 'f3');
  await move('g8', 'f6');
  await move('f3', 'g1');
  await move('f6', 'g8');
  await typeMove('Nf3');   // keyboard entry, SAN
  await typeMove('g8f6');  // keyboard entry, UCI
  await move('f3', 'g1');
  assert.equal(await d.script('return document.querySelector("#claim-draw");'), null, 'not yet claimable');
  await move('f6', 'g8');
  await d.tap('#claim-draw');
  const title = await waitFor('the result dialog', async () => d.text(await d.find('#result-dialog h2')));
  assert.equal(title, 'Draw');
  assert.equal(await d.text(await d.find('#result-reason')), 'threefold repetition');
  await d.tap('#result-close');
});

test('a Horde game starts with 36 white pawns against the black army', async () => {
  await newGame('horde');
  const counts = await d.script(`const all = [...document.querySelectorAll("#board .piece")].map((p) => p.dataset.piece);
    return { pawns: all.filter((p) => p === 'white-pawn').length, white: all.filter((p) => p.startsWith('white')).length, black: all.filter((p) => p.startsWith('black')).length };`);
  assert.deepEqual(counts, { pawns: 36, white: 36, black: 16 });
  await d.screenshot('game-horde-390x844.png');
  await move('e4', 'e5');
  assert.equal(await pieceAt('e5'), 'white-pawn');
});

test('the computer answers with a legal move', async () => {
  await newGame('computer', async () => {
    await d.tap('#level-1');
  });
  await move('e2', 'e4');
  await waitFor('the computer\'s reply', async () => (await plies()) === 2, 30000);
  const history = await d.script('return [...document.querySelectorAll("#moves .san")].map((b) => b.textContent);');
  assert.equal(history[0], '1.e4');
  assert.match(history[1], /^[a-hNBRQK]/, 'a SAN move');
  assert.equal(await d.script('return document.querySelector("#thinking");'), null, 'no longer thinking');
  await d.screenshot('game-computer-390x844.png');
});

test('a game and the settings survive closing and opening the app', async () => {
  await toMenu();
  await d.tap('#menu-settings');
  await d.tap('#theme-green');
  await d.tap('#setting-animation');
  await d.tap('#back');
  await newGame('classic', async () => {
    await d.tap('#time-5\\+3');
  });
  await move('d2', 'd4');
  await move('d7', 'd5');
  await waitFor('the clock running', async () => (await d.script('return document.querySelector("#clock-white.running") !== null;')));
  await d.close();
  await d.open(390, 844);
  await d.tap('#continue', 15000);
  await waitFor('the saved moves', async () => (await plies()) === 2);
  const history = await d.script('return [...document.querySelectorAll("#moves .san")].map((b) => b.textContent);');
  assert.deepEqual(history, ['1.d4', 'd5']);
  assert.equal(await d.script('return document.querySelector("#board").classList.contains("theme-green");'), true, 'the theme was kept');
  await move('c2', 'c4');
  const clock = await d.text(await d.find('#clock-black'));
  assert.match(clock, /^[45]:\d\d$/);
  await d.screenshot('game-continued-390x844.png');
});

test('all nine piece types of both colours, drawn on the board', async () => {
  await importGame(d, 'rnbqkbnr/pppppppp/8/2cam3/2CAM3/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1');
  const kinds = await d.script('return [...new Set([...document.querySelectorAll("#board .piece")].map((p) => p.dataset.piece))].sort();');
  const roles = ['archbishop', 'bishop', 'chancellor', 'king', 'knight', 'maharajah', 'pawn', 'queen', 'rook'];
  assert.deepEqual(kinds, [...roles.map((r) => `black-${r}`), ...roles.map((r) => `white-${r}`)]);
  assert.equal(await d.script('return document.querySelector(\'g.sq[data-square="d4"]\').getAttribute("aria-label");'), 'd4, white archbishop');
  await d.screenshot('pieces-all-390x844.png');
});

test('the game screen at desktop size puts the moves beside the board', async () => {
  await d.wd('POST', `/session/${d.session}/window/rect`, { width: 1280, height: 800 });
  await waitFor('the wide layout', () => d.script('const b = document.querySelector("#board").getBoundingClientRect(); const m = document.querySelector(".moves-panel").getBoundingClientRect(); return m.left > b.right;'));
  await d.screenshot('game-desktop-1280x800.png');
  await d.wd('POST', `/session/${d.session}/window/rect`, { width: 390, height: 844 });
});

test('drag a piece, review the move list, take back, offer a draw and resign', async () => {
  await newGame('classic');
  // Drag e2 → e4 with pointer actions.
  await dragPiece(d, '#board', 'e2', 'e4');
  await waitFor('e4 dragged', async () => (await pieceAt('e4')) === 'white-pawn');
  await move('e7', 'e5');
  await move('g1', 'f3');
  // Review the position after 1. e4.
  await d.tap('#moves .san[data-ply="1"]');
  await waitFor('the review board', async () => (await pieceAt('e5')) === null && (await pieceAt('e4')) === 'white-pawn');
  assert.equal(await pieceAt('g1'), 'white-knight');
  await d.screenshot('game-review-390x844.png');
  await d.tap('#live');
  await waitFor('the live board', async () => (await pieceAt('f3')) === 'white-knight');
  // Take back Nf3.
  await d.tap('#takeback');
  await waitFor('Nf3 taken back', async () => (await plies()) === 2 && (await pieceAt('g1')) === 'white-knight');
  // White offers a draw, Black sees it after White's move and may accept; here Black plays on.
  await d.tap('#offer-draw');
  // The offer asks first (the "Confirm resign and draw offers" setting, on by default).
  await d.tap('#draw-confirm');
  await waitFor('the offer', () => d.find('#draw-offer'));
  await move('d2', 'd4');
  await waitFor('the accept button for Black', () => d.find('#accept-draw'));
  await move('d7', 'd5');
  assert.equal(await d.script('return document.querySelector("#draw-offer");'), null, 'a move declines the offer');
  await d.tap('#resign');
  await d.tap('#resign-confirm');
  const title = await waitFor('the result dialog', async () => d.text(await d.find('#result-dialog h2')));
  assert.equal(title, 'Black wins', 'White, to move, resigned');
  assert.equal(await d.text(await d.find('#result-reason')), 'by resignation');
  await d.tap('#result-close');
});

test('saved games are listed with variant, opponent and result', async () => {
  await toMenu();
  await d.tap('#menu-history');
  const items = await waitFor('the list', async () => {
    const texts = await d.script('return [...document.querySelectorAll("#history-list .history-item")].map((b) => b.textContent);');
    return texts.length ? texts : null;
  });
  assert.ok(items.some((t) => /Chess · pass-and-play.*Black wins · by checkmate/.test(t)), items.join('\n'));
  assert.ok(items.some((t) => /Horde · pass-and-play.*in progress/.test(t)), items.join('\n'));
  await d.screenshot('history-390x844.png');
  await d.tap('#back');
});

test('moves can be made with the keyboard on the board', async () => {
  await newGame('classic');
  const key = (value) => d.wd('POST', `/session/${d.session}/actions`, { actions: [{ type: 'key', id: 'kb', actions: [{ type: 'keyDown', value }, { type: 'keyUp', value }] }] });
  await d.script('document.querySelector(\'g.sq[data-square="e2"]\').focus();');
  await key('\uE007'); // Enter: select e2
  await waitFor('e2 selected', async () => (await d.script('return document.querySelector(\'g.sq[aria-pressed="true"]\')?.dataset.square;')) === 'e2');
  await key('\uE013'); // ArrowUp: e3
  await key('\uE013'); // ArrowUp: e4
  await key('\uE007'); // Enter: move
  await waitFor('e4 played from the keyboard', async () => (await pieceAt('e4')) === 'white-pawn');
  assert.equal(await d.script('return document.activeElement && document.activeElement.getAttribute("data-square");'), 'e4', 'focus stays on the square');
});

test('the computer thinks visibly, and a takeback cancels it', async () => {
  await newGame('computer', async () => {
    await d.tap('#level-8');
  });
  await move('e2', 'e4');
  await waitFor('the thinking indicator', () => d.find('#thinking'));
  await d.screenshot('game-thinking-390x844.png');
  await d.tap('#takeback');
  await waitFor('the takeback', async () => (await plies()) === 0 && (await pieceAt('e2')) === 'white-pawn');
  assert.equal(await d.script('return document.querySelector("#thinking");'), null, 'no longer thinking');
  // The cancelled search never plays its move.
  await new Promise((r) => setTimeout(r, 1500));
  assert.equal(await plies(), 0);
});

test('a flag falls on the backend clock and the result names time', async () => {
  await newGame('classic', async () => {
    await d.tap('#time-custom');
    await setValue(d, '#custom-minutes', '0.05');
    await setValue(d, '#custom-increment', '0');
  });
  assert.equal(await d.text(await d.find('#clock-black')), '0:03.0');
  await move('e2', 'e4'); // Black's clock starts
  await waitFor('the clock ticking', async () => (await d.text(await d.find('#clock-black'))) !== '0:03.0');
  const title = await waitFor('the result dialog', async () => d.text(await d.find('#result-dialog h2')), 10000);
  assert.equal(title, 'White wins');
  assert.equal(await d.text(await d.find('#result-reason')), 'on time');
  assert.equal(await d.text(await d.find('#clock-black')), '0:00.0');
  await d.screenshot('game-flag-390x844.png');
  await d.tap('#result-close');
});

test('an unreadable import says why; the game screen speaks Spanish', async () => {
  await toMenu();
  await d.tap('#menu-history');
  await d.typeInto('#import-text', 'not a game');
  await d.tap('#import-submit');
  const error = await waitFor('the import error', async () => d.text(await d.find('#import-error')));
  assert.match(error, /could not read the game/);
  await d.tap('#back');
  await d.tap('#menu-settings');
  await d.tap('#language-es');
  await d.tap('#back');
  await newGame('classic');
  assert.equal(await d.script('return document.querySelector(\'g.sq[data-square="g8"]\').getAttribute("aria-label");'), 'g8, caballo negro');
  assert.equal(await d.text(await d.find('#flip')), 'Girar tablero');
  await move('e2', 'e4');
  await d.screenshot('game-es-390x844.png');
  await d.tap('#back');
  await d.tap('#menu-settings');
  await d.tap('#language-en');
  await d.tap('#back');
});

test('a Maharajah variant side is offered the compound pieces when promoting', async () => {
  const roles = await promotionChoices('7k/P7/8/8/8/8/6p1/K3M3 w - - 0 1');
  assert.deepEqual(roles.sort(), ['archbishop', 'bishop', 'chancellor', 'knight', 'maharajah', 'queen', 'rook']);
  await d.screenshot('game-promotion-variant-390x844.png');
  await d.tap('#promotion .promo[data-role="maharajah"]');
  await waitFor('the Maharajah on a8', async () => (await pieceAt('a8')) === 'white-maharajah');
});

test('the move strip above the board steps through the game; the captures follow the move shown', async () => {
  await newGame('classic');
  await move('e2', 'e4');
  await move('d7', 'd5');
  await move('e4', 'd5');
  await move('d8', 'd5');
  const taken = (color) => d.script('return document.querySelectorAll(`#player-${arguments[0]} .captured .piece-icon`).length;', [color]);
  const current = () => d.script('return document.querySelector("#moves .san.current")?.dataset.ply ?? null;');
  assert.ok(await d.script('return document.querySelector(".move-strip").getBoundingClientRect().bottom <= document.querySelector("#board").getBoundingClientRect().top;'),
    'the strip is above the board');
  assert.equal(await current(), '4', 'the live move is marked');
  assert.deepEqual([await taken('white'), await taken('black')], [1, 1]);
  await d.tap('#nav-prev');
  await waitFor('the move before', async () => (await current()) === '3');
  assert.equal(await pieceAt('d5'), 'white-pawn');
  assert.deepEqual([await taken('white'), await taken('black')], [1, 0], 'after 2.exd5 only White has taken');
  await d.tap('#nav-first');
  await waitFor('the start', async () => (await pieceAt('e2')) === 'white-pawn');
  assert.equal(await current(), null);
  assert.deepEqual([await taken('white'), await taken('black')], [0, 0]);
  assert.equal(await d.script('return document.querySelector("#nav-prev").disabled;'), true, 'nothing before the start');
  await d.tap('#nav-next');
  await waitFor('the first move', async () => (await current()) === '1');
  await d.tap('#nav-last');
  await waitFor('the live game', async () => (await pieceAt('d5')) === 'black-queen' && !(await d.script('return Boolean(document.querySelector("#live"));')));
  assert.equal(await d.script('return document.querySelector("#nav-next").disabled;'), true);
  await d.screenshot('game-move-strip-390x844.png');
});

test('against the computer the result speaks to the person', async () => {
  await newGame('computer', async () => {
    await d.tap('#color-white');
    await d.tap('#level-1');
  });
  await d.tap('#resign');
  await d.tap('#resign-confirm');
  const title = await waitFor('the result dialog', async () => d.text(await d.find('#result-dialog h2')));
  assert.equal(title, 'You lost');
  assert.equal(await d.text(await d.find('#result-reason')), 'by resignation');
  await d.tap('#result-close');
});

test('settings: confirm moves, coordinates off, zen mode', async () => {
  await toMenu();
  await d.tap('#menu-settings');
  await waitFor('the settings', () => d.find('#setting-confirmMove'));
  assert.equal(await d.script('return document.querySelector("#setting-coordinates").checked;'), true, 'coordinates are on by default');
  await d.tap('#setting-confirmMove');
  await d.tap('#setting-coordinates');
  await d.tap('#setting-zen');
  await waitFor('saved', () => d.script('return document.querySelector("#setting-zen").checked;'));
  await d.tap('#back');
  await newGame('classic');
  assert.equal(await d.script('return document.querySelectorAll("#board .coord").length;'), 0, 'no coordinates');
  assert.ok(await d.script('return document.querySelector(".game-screen").classList.contains("zen") && getComputedStyle(document.querySelector(".move-strip")).display === "none";'), 'zen hides the move strip');
  await d.tap('g.sq[data-square="e2"] > rect');
  await d.tap('g.sq[data-square="e4"] > rect');
  await waitFor('the question', () => d.find('#move-confirm-bar'));
  assert.equal(await d.text(await d.find('#move-confirm-bar span')), 'Play e2–e4?');
  assert.equal(await pieceAt('e2'), 'white-pawn', 'not played before it is confirmed');
  await d.tap('#move-cancel');
  await waitFor('cancelled', async () => !(await d.script('return Boolean(document.querySelector("#move-confirm-bar"));')));
  assert.equal(await pieceAt('e4'), null);
  await d.tap('g.sq[data-square="e2"] > rect');
  await d.tap('g.sq[data-square="e4"] > rect');
  await d.tap('#move-confirm');
  await waitFor('played', async () => (await pieceAt('e4')) === 'white-pawn');
  await toMenu();
  await d.tap('#menu-settings');
  for (const key of ['confirmMove', 'coordinates', 'zen']) await d.tap(`#setting-${key}`);
  await waitFor('restored', () => d.script('return document.querySelector("#setting-coordinates").checked && !document.querySelector("#setting-zen").checked;'));
  await d.tap('#back');
});

test('a premove in the computer\'s time is played the moment the turn comes', async () => {
  await newGame('computer', async () => {
    await d.tap('#color-black');
    await d.tap('#level-8');
  });
  // The computer (White, level 8) thinks for about three seconds: the person premoves e7–e5.
  await waitFor('the computer thinking', () => d.find('#thinking'));
  await d.tap('g.sq[data-square="e7"] > rect');
  await d.tap('g.sq[data-square="e5"] > rect');
  assert.equal(await d.script('return document.querySelectorAll("#board .hl-premove").length;'), 2, 'the premove is marked');
  assert.ok(await d.find('#thinking'), 'set while the computer was still thinking');
  await waitFor('the premove played after the computer\'s move', async () => (await plies()) >= 2 && (await pieceAt('e5')) === 'black-pawn', 30000);
  assert.equal(await d.script('return document.querySelectorAll("#board .hl-premove").length;'), 0);
  await d.tap('#resign');
  await d.tap('#resign-confirm');
  await waitFor('the result dialog', () => d.find('#result-dialog'));
  await d.tap('#result-close');
});

test('a draw offer survives closing the app, and the other player declines it', async () => {
  await newGame('classic');
  await move('e2', 'e4');
  await move('e7', 'e5');
  await d.tap('#offer-draw');
  await d.tap('#draw-confirm');
  await waitFor('the offer', () => d.find('#draw-offer'));
  await move('g1', 'f3');
  await waitFor('Black may answer it', () => d.find('#decline-draw'));
  await d.close();
  await d.open(390, 844);
  await d.tap('#continue', 15000);
  await waitFor('the offer still stands after the restart', () => d.find('#decline-draw'));
  await d.tap('#decline-draw');
  await waitFor('declined', async () => !(await d.script('return Boolean(document.querySelector("#draw-offer"));')));
  await move('b8', 'c6');
  assert.equal(await d.script('return document.querySelector("#status").textContent;'), 'White to move', 'the game goes on');
});

test('a clocked game pauses: the clock stands still until Resume', async () => {
  await newGame('classic', async () => {
    await d.tap('#time-5\\+3');
  });
  await move('e2', 'e4');
  await waitFor('the clock running', () => d.find('#pause'));
  await d.tap('#pause');
  await waitFor('paused', () => d.find('#paused-banner'));
  const frozen = await d.text(await d.find('#clock-black'));
  await new Promise((resolve) => setTimeout(resolve, 2200));
  assert.equal(await d.text(await d.find('#clock-black')), frozen, 'the clock does not run while paused');
  assert.equal(await d.script('return document.querySelector("#clock-black.running");'), null);
  await d.tap('#resume');
  await waitFor('running again', () => d.script('return document.querySelector("#clock-black.running") !== null;'));
  await waitFor('time passes again', async () => (await d.text(await d.find('#clock-black'))) !== frozen, 5000);
  await move('e7', 'e5');
});

test('the clocked game pauses when the app goes to the background, and waits for Resume', async () => {
  // The game of the previous test goes on: White's clock runs.
  await waitFor('White\'s clock running', () => d.script('return document.querySelector("#clock-white.running") !== null;'));
  // The app in the background, as the web view reports it when the phone locks or another app opens.
  await d.script(`
    Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });
    Object.defineProperty(document, 'hidden', { configurable: true, get: () => true });
    document.dispatchEvent(new Event('visibilitychange'));`);
  await waitFor('paused', () => d.find('#paused-banner'));
  const frozen = await d.text(await d.find('#clock-white'));
  assert.equal(await d.script('return document.querySelector("#clock-white.running");'), null);
  // Back in the foreground the game stays paused until the person taps Resume.
  await d.script(`
    delete document.visibilityState;
    delete document.hidden;
    document.dispatchEvent(new Event('visibilitychange'));`);
  await new Promise((resolve) => setTimeout(resolve, 1500));
  assert.equal(await d.text(await d.find('#clock-white')), frozen, 'the clock stood still in the background and after');
  assert.ok(await d.find('#paused-banner'), 'still paused in the foreground');
  await d.tap('#resume');
  await waitFor('running again', () => d.script('return document.querySelector("#clock-white.running") !== null;'));
  await waitFor('time passes again', async () => (await d.text(await d.find('#clock-white'))) !== frozen, 5000);
});

test('a piece set chosen in the settings draws the board', async () => {
  await toMenu();
  await d.tap('#menu-settings');
  await waitFor('the piece sets', () => d.find('#pieces-letters'));
  await d.tap('#pieces-letters');
  await waitFor('chosen', () => d.script('return document.querySelector("#pieces-letters").checked;'));
  await d.tap('#back');
  await newGame('classic');
  assert.equal(await d.script('return document.querySelector(\'[data-piece-square="e1"]\').textContent;'), 'K', 'the king wears its letter');
  await d.screenshot('game-letters-390x844.png');
  await toMenu();
  await d.tap('#menu-settings');
  await d.tap('#pieces-classic');
  await waitFor('back to the drawn set', () => d.script('return document.querySelector("#pieces-classic").checked;'));
  await d.tap('#back');
});
