// Unit tests of the UI's pure modules (no DOM): catalogues, language choice, reducer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

import { CATALOGUES, pickLanguage, t } from '../../ui/i18n.js';
import {
  MENU, initialState, reduce, destinations, promotionLetters, tapDecision, dropDecision, isFlipped,
  soundFor, timeControlOf, opponentOf, formatClock, TIME_CONTROLS, THEMES,
  buildTap, visibleArmies, shownSaved, newBuild, stepPly, resultHeadline, personColor, premoveToPlay, setupFor, PALETTE, plyLabels, announcement,
  placeOf,
} from '../../ui/store.js';

const uiDir = fileURLToPath(new URL('../../ui/', import.meta.url));

test('every catalogue has exactly the keys of every other', () => {
  const languages = Object.keys(CATALOGUES);
  assert.deepEqual(languages.sort(), ['en', 'es']);
  const all = new Set(languages.flatMap((l) => Object.keys(CATALOGUES[l])));
  for (const language of languages) {
    const missing = [...all].filter((key) => !(key in CATALOGUES[language]));
    assert.deepEqual(missing, [], `${language} lacks keys`);
    for (const [key, text] of Object.entries(CATALOGUES[language])) {
      assert.ok(typeof text === 'string' && text.trim() !== '', `${language}.${key} is empty`);
    }
  }
});

test('every key the UI source uses exists in the catalogues', async () => {
  const files = [];
  async function walk(dir) {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory() && entry.name !== 'i18n') await walk(full);
      else if (entry.name.endsWith('.js')) files.push(full);
    }
  }
  await walk(uiDir);
  const used = new Set();
  for (const file of files) {
    const source = await readFile(file, 'utf8');
    for (const match of source.matchAll(/\bt\('([a-zA-Z0-9_.]+)'/g)) used.add(match[1]);
  }
  // Keys built from data: the menu entries and language names.
  for (const item of MENU) {
    used.add(`menu.${item.id}`);
    used.add(`menu.${item.id}.hint`);
  }
  for (const language of Object.keys(CATALOGUES)) used.add(`settings.language.${language}`);
  const roles = ['pawn', 'knight', 'bishop', 'rook', 'queen', 'king', 'archbishop', 'chancellor', 'maharajah'];
  for (const color of ['white', 'black']) {
    used.add(`color.${color}`);
    for (const role of roles) used.add(`piece.${color}.${role}`);
  }
  for (const role of roles) used.add(`role.${role}`);
  for (const reason of ['checkmate', 'all_pieces_captured', 'stalemate', 'insufficient_material', 'seventy_five_moves',
    'fivefold_repetition', 'fifty_moves', 'threefold_repetition', 'timeout', 'timeout_vs_insufficient_material', 'resignation', 'agreement', 'setup_failed']) {
    used.add(`reason.${reason}`);
  }
  for (const tc of TIME_CONTROLS) used.add(`time.${tc}`);
  for (const theme of THEMES) used.add(`theme.${theme}`);
  for (const variant of ['chess', 'horde', 'maharajah']) used.add(`variant.${variant}`);
  assert.ok(used.size > 20, `found only ${used.size} keys: the scan is broken`);
  for (const language of Object.keys(CATALOGUES)) {
    const missing = [...used].filter((key) => !(key in CATALOGUES[language]));
    assert.deepEqual(missing, [], `${language} lacks keys used by the UI`);
  }
});

test('language follows the saved choice, then the system, then English', () => {
  assert.equal(pickLanguage('es', ['en-US']), 'es');
  assert.equal(pickLanguage(null, ['es-MX', 'en']), 'es');
  assert.equal(pickLanguage(null, ['fr-FR', 'en-GB']), 'en');
  assert.equal(pickLanguage('xx', ['de']), 'en');
});

test('t fills placeholders and flags unknown keys', () => {
  assert.equal(t('en', 'about.error', { message: 'boom' }), 'Could not read the versions: boom');
  assert.equal(t('es', 'nav.back'), 'Volver');
  assert.equal(t('en', 'no.such.key'), '[no.such.key]');
});

test('the menu lists the ten entries people use, in order', () => {
  // Learn and "Play the computer" up front (issue #20, item 8: the order changed on purpose).
  assert.deepEqual(MENU.map((m) => m.id), [
    'learn', 'computer', 'classic', 'custom', 'lan', 'online', 'horde', 'chaturaji', 'settings', 'about',
  ]);
});

test('reducer navigates, goes back and records versions', () => {
  let s = initialState('en');
  assert.equal(s.screen, 'menu');
  s = reduce(s, { type: 'navigate', screen: 'about' });
  assert.equal(s.screen, 'about');
  s = reduce(s, { type: 'versions/loading' });
  assert.equal(s.versions.status, 'loading');
  s = reduce(s, { type: 'versions/loaded', app: '1.2.3', engine: '4.5.6' });
  assert.deepEqual(s.versions, { status: 'ready', app: '1.2.3', engine: '4.5.6', error: null });
  s = reduce(s, { type: 'back' });
  assert.equal(s.screen, 'menu');
  const same = reduce(s, { type: 'unknown' });
  assert.equal(same, s, 'unknown actions keep the same state object');
});

// A snapshot shaped like the backend's GameView, trimmed to what the helpers read.
function snapshot(overrides = {}) {
  return {
    id: 1,
    opponent: { kind: 'human' },
    board: { pieces: [
      { square: 'e2', color: 'white', role: 'pawn' },
      { square: 'a7', color: 'white', role: 'pawn' },
      { square: 'e8', color: 'black', role: 'king' },
    ], turn: 'white', check: null, last_move: null, ply: 0 },
    legal: ['e2e3', 'e2e4', 'a7a8q', 'a7a8r', 'a7a8b', 'a7a8n'],
    history: [],
    captured: { white: [], black: [] },
    result: null,
    ...overrides,
  };
}

function withGame(game, ui = {}) {
  const s = initialState('en');
  return { ...s, screen: 'game', game, ui: { ...s.ui, ...ui } };
}

test('taps select, move and open the promotion picker from the backend\'s legal moves', () => {
  const game = snapshot();
  assert.deepEqual(destinations(game, 'e2'), ['e3', 'e4']);
  assert.deepEqual(promotionLetters(game, 'a7', 'a8'), ['q', 'r', 'b', 'n']);
  let state = withGame(game);
  assert.deepEqual(tapDecision(state, 'e2'), { kind: 'select', square: 'e2' });
  assert.deepEqual(tapDecision(state, 'e8'), { kind: 'deselect' }, 'not the side to move');
  state = withGame(game, { selected: 'e2' });
  assert.deepEqual(tapDecision(state, 'e4'), { kind: 'move', uci: 'e2e4' });
  assert.deepEqual(tapDecision(state, 'e5'), { kind: 'deselect' });
  assert.deepEqual(dropDecision(state, 'a7', 'a8'), { kind: 'promote', from: 'a7', to: 'a8', letters: ['q', 'r', 'b', 'n'] });
  const computer = withGame(snapshot({ opponent: { kind: 'computer', color: 'white', level: 1 } }));
  assert.deepEqual(tapDecision(computer, 'e2'), { kind: 'none' }, 'no moves for the computer');
  const over = withGame(snapshot({ result: { winner: 'black', reason: 'checkmate' } }));
  assert.deepEqual(tapDecision(over, 'e2'), { kind: 'none' });
});

test('a premove in the computer\'s time: own piece, any square; played when legal, dropped if not', () => {
  const thinking = withGame(snapshot({ opponent: { kind: 'computer', color: 'black', level: 1 }, board: { ...snapshot().board, turn: 'black' } }));
  let state = thinking;
  const own = state.game.board.pieces.find((p) => p.color === 'white').square;
  assert.deepEqual(tapDecision(state, own), { kind: 'select', square: own }, 'the person picks a piece in the opponent\'s time');
  state = reduce(state, { type: 'select', square: own });
  assert.deepEqual(tapDecision(state, 'h5'), { kind: 'premove', premove: { from: own, to: 'h5' } });
  state = reduce(state, { type: 'premove', premove: { from: 'e2', to: 'e4' } });
  assert.deepEqual(tapDecision(state, 'a1'), { kind: 'premove', premove: null }, 'any tap cancels a premove');
  assert.equal(premoveToPlay(state), null, 'not yet the person\'s turn');
  const turn = (st) => ({ ...st, game: { ...st.game, board: { ...st.game.board, turn: 'white' } } });
  const legal = turn(state);
  assert.equal(premoveToPlay(legal), 'e2e4');
  assert.equal(premoveToPlay(turn(reduce(state, { type: 'premove', premove: { from: 'a7', to: 'a8' } }))), 'a7a8q', 'a premoved pawn becomes a queen');
  const illegal = turn(reduce(state, { type: 'premove', premove: { from: 'e2', to: 'e5' } }));
  assert.equal(premoveToPlay(illegal), null, 'an illegal premove is dropped');
  assert.equal(tapDecision(withGame(snapshot()), 'e2').kind === 'premove', false, 'no premoves between two people at one board');
});

test('the board turns for Black against the computer and with auto-turn', () => {
  const s = withGame(snapshot({ opponent: { kind: 'computer', color: 'white', level: 2 } }));
  assert.equal(isFlipped(s), true);
  const black = snapshot({ board: { ...snapshot().board, turn: 'black' } });
  assert.equal(isFlipped(withGame(black)), false);
  assert.equal(isFlipped({ ...withGame(black), settings: { ...initialState('en').settings, autoTurn: true } }), true);
  assert.equal(isFlipped(withGame(black, { flipped: true })), true);
});

test('sounds follow the snapshots', () => {
  const before = snapshot();
  const moved = snapshot({ history: ['e4'] });
  assert.equal(soundFor(before, moved), 'move');
  assert.equal(soundFor(moved, snapshot({ history: ['e4', 'd5'], captured: { white: ['pawn'], black: [] } })), 'capture');
  assert.equal(soundFor(moved, snapshot({ history: ['e4', 'Qh4+'], board: { ...moved.board, check: 'e1' } })), 'check');
  assert.equal(soundFor(moved, snapshot({ history: ['e4'], result: { winner: null, reason: 'agreement' } })), 'end');
  assert.equal(soundFor(moved, moved), null);
});

test('time controls, opponents and clock text', () => {
  const setup = initialState('en').setup;
  assert.equal(timeControlOf(setup), null);
  assert.deepEqual(timeControlOf({ ...setup, timeControl: '3+2' }), { base_ms: 180000, increment_ms: 2000 });
  assert.deepEqual(timeControlOf({ ...setup, timeControl: 'custom', customMinutes: '1.5', customIncrement: '0' }), { base_ms: 90000, increment_ms: 0 });
  assert.deepEqual(opponentOf(setup), { kind: 'human' });
  assert.deepEqual(opponentOf({ ...setup, opponent: 'computer', color: 'black', level: '3' }), { kind: 'computer', color: 'white', level: 3 });
  assert.deepEqual(opponentOf({ ...setup, opponent: 'computer', color: 'random' }, 1).color, 'white');
  assert.equal(formatClock(185000), '3:05');
  assert.equal(formatClock(9440), '0:09.4');
  assert.equal(formatClock(3723000), '1:02:03');
});

test('a finished game opens the result dialog once', () => {
  let s = reduce(initialState('en'), { type: 'game/loaded', game: snapshot() });
  assert.equal(s.screen, 'game');
  assert.equal(s.ui.dialog, null);
  s = reduce(s, { type: 'game/loaded', game: snapshot({ result: { winner: 'black', reason: 'checkmate' } }) });
  assert.equal(s.ui.dialog, 'result');
  s = reduce(s, { type: 'dialog', dialog: null });
  s = reduce(s, { type: 'game/loaded', game: snapshot({ result: { winner: 'black', reason: 'checkmate' } }) });
  assert.equal(s.ui.dialog, null, 'closing it keeps it closed');
});

test('custom setup: who builds first, what the builder may show, what a tap asks for', () => {
  let state = initialState('en');
  state = reduce(state, { type: 'setup/open', entry: 'custom' });
  assert.equal(state.setup.variant, 'maharajah');
  state = reduce(state, { type: 'setup/change', key: 'hidden', value: true });
  state = reduce(state, { type: 'build/begin', person: 'white' });
  assert.equal(state.screen, 'builder');
  assert.equal(state.build.side, 'white');
  assert.deepEqual(visibleArmies(state.build), ['white', 'black']);
  state = reduce(state, { type: 'build/stage', stage: 'handover', side: 'white' });
  state = reduce(state, { type: 'build/stage', stage: 'build', side: 'black' });
  assert.deepEqual(visibleArmies(state.build), ['black'], 'hidden mode never shows White while Black builds');
  const computer = newBuild({ ...setupFor('custom', { timeControl: 'none' }), opponent: 'computer' }, 'black');
  assert.equal(computer.side, 'black', 'against the computer the person builds their own side');
  assert.deepEqual(visibleArmies(computer), ['black'], 'the computer\'s army is never in the builder');
  const view = { pieces: [{ square: 'e1', role: 'king' }, { square: 'a1', role: 'rook' }] };
  assert.deepEqual(buildTap(view, null, 'a1'), { square: 'a1', role: null }, 'tap removes');
  assert.deepEqual(buildTap(view, 'knight', 'a1'), { square: 'a1', role: 'knight' }, 'tap replaces');
  assert.deepEqual(buildTap(view, 'rook', 'a1'), { square: 'a1', role: null }, 'the same piece again removes');
  assert.equal(buildTap(view, null, 'b1'), null, 'an empty square with nothing picked does nothing');
  assert.deepEqual(buildTap(view, 'queen', 'e1'), { square: 'e1', role: 'king' }, 'the king square is asked about (and refused)');
  assert.deepEqual(PALETTE.map(([, cost]) => cost), [1, 3, 3, 5, 6, 8, 9, 13]);
});

test('hidden pass-and-play: an army White saves during the setup is not offered to Black', () => {
  const older = { id: 1, name: 'Old', army: 'x', status: 'variant' };
  const whites = { id: 2, name: 'White secret', army: 'y', status: 'variant' };
  const blacks = { id: 3, name: 'Black one', army: 'z', status: 'classic' };
  const begin = (hidden) => {
    let state = reduce(initialState('en'), { type: 'setup/open', entry: 'custom' });
    state = reduce(state, { type: 'setup/change', key: 'hidden', value: hidden });
    state = reduce(state, { type: 'build/begin', person: 'white' });
    state = reduce(state, { type: 'build/saved', saved: [older] });
    return reduce(state, { type: 'build/saved', saved: [older, whites], saving: true });
  };
  const toBlack = (state) => reduce(reduce(state, { type: 'build/stage', stage: 'handover', side: 'white' }),
    { type: 'build/stage', stage: 'build', side: 'black' });
  let state = begin(true);
  assert.deepEqual(shownSaved(state.build).map((a) => a.id), [1, 2], 'White sees what White saved');
  state = toBlack(state);
  assert.deepEqual(shownSaved(state.build).map((a) => a.id), [1], 'Black is not offered White\'s new army');
  state = reduce(state, { type: 'build/saved', saved: [older, whites, blacks], saving: true });
  assert.deepEqual(shownSaved(state.build).map((a) => a.id), [1, 3], 'Black sees its own saved army');
  state = toBlack(begin(false));
  assert.deepEqual(shownSaved(state.build).map((a) => a.id), [1, 2], 'without hiding nothing is kept back');
});

test('the move list steps: first, back, forward, last, from the live game or a move shown', () => {
  assert.equal(stepPly(5, null, 'prev'), 4, 'back from the live game');
  assert.equal(stepPly(5, null, 'next'), 5, 'forward from the live game stays there');
  assert.equal(stepPly(5, 2, 'next'), 3);
  assert.equal(stepPly(5, 0, 'prev'), 0, 'never before the start');
  assert.equal(stepPly(5, 3, 'first'), 0);
  assert.equal(stepPly(5, 3, 'last'), 5);
});

test('the result speaks to the person against the computer, names the colour between two people', () => {
  const tr = (key, params) => t('en', key, params);
  const computer = { opponent: { kind: 'computer', color: 'black', level: 2 } };
  assert.equal(personColor(computer), 'white');
  assert.equal(personColor({ opponent: { kind: 'human' } }), null);
  assert.equal(resultHeadline({ winner: 'white' }, 'white', tr), 'You won');
  assert.equal(resultHeadline({ winner: 'black' }, 'white', tr), 'You lost');
  assert.equal(resultHeadline({ winner: null }, 'white', tr), 'Draw');
  assert.equal(resultHeadline({ winner: 'black' }, null, tr), 'Black wins');
  assert.equal(resultHeadline({ winner: 'white' }, 'white', (key, params) => t('es', key, params)), 'Has ganado');
});

test('with Confirm moves a move waits for the second tap; cancel drops it', () => {
  let state = initialState('en');
  assert.equal(state.settings.coordinates, true, 'coordinates on by default');
  assert.equal(state.settings.confirmMove, false, 'moves are played at once by default');
  state = reduce(state, { type: 'select', square: 'e2' });
  state = reduce(state, { type: 'move/pending', uci: 'e2e4' });
  assert.equal(state.ui.pending, 'e2e4');
  assert.equal(state.ui.selected, null);
  state = reduce(state, { type: 'move/cancel' });
  assert.equal(state.ui.pending, null);
});

test('Learn: the piece moves, blockers toggle and never sit under the piece', () => {
  let state = reduce(initialState('en'), { type: 'learn/open' });
  assert.equal(state.learn.square, 'd4');
  state = reduce(state, { type: 'learn/tool', tool: 'blocker' });
  state = reduce(state, { type: 'learn/square', square: 'd6' });
  assert.deepEqual(state.learn.blockers, ['d6']);
  state = reduce(state, { type: 'learn/square', square: 'd6' });
  assert.deepEqual(state.learn.blockers, []);
  state = reduce(state, { type: 'learn/square', square: 'f5' });
  state = reduce(state, { type: 'learn/tool', tool: 'piece' });
  state = reduce(state, { type: 'learn/square', square: 'f5' });
  assert.equal(state.learn.square, 'f5');
  assert.deepEqual(state.learn.blockers, []);
});

test('keys built at run time exist: every refusal the backend names, statuses, Learn pieces', () => {
  const kinds = ['budget', 'king', 'own_half', 'fill_from_home', 'too_many_pieces', 'wrong_color', 'in_check', 'no_legal_move'];
  const keys = [
    ...kinds.map((k) => `army.rule.${k}`),
    ...['classic', 'variant'].flatMap((s) => ['', '.castling', '.promotion', '.double'].map((x) => `army.status.${s}${x}`)),
    ...['maharajah', 'chancellor', 'archbishop', 'queen', 'rook', 'bishop', 'knight', 'king'].map((r) => `learn.moves.${r}`),
    ...['pieces', 'army', 'start', 'status', 'hidden', 'end'].flatMap((p) => [`rules.${p}.title`, `rules.${p}.body`]),
    ...['classic', 'learn', 'custom', 'lan', 'online'].flatMap((p) => [`path.${p}`, `path.${p}.hint`]),
    ...['lan_permission', 'lan_discovery'].flatMap((c) => [`lan.advert.${c}`, `cj.lan.advert.${c}`]),
  ];
  for (const language of ['en', 'es']) {
    for (const key of keys) assert.ok(key in CATALOGUES[language], `${language} lacks ${key}`);
  }
  assert.equal(t('es', 'army.rule.fill_from_home', { color: 'Blancas', squares: 'a3', rank: 2, empty: 'a2, b2' }),
    'Blancas: pieza en a3 mientras la fila 2 tiene casillas vacías: a2, b2');
});

test('move numbers follow the position, also when Black moved first', () => {
  // From the start: 1. f3 e5 2. g4 Qh4#
  assert.deepEqual(
    plyLabels('rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3', 4),
    ['1.', null, '2.', null]);
  // An imported position with Black to move at move 12, then 12… Nf6 13. Nc3 Be7
  assert.deepEqual(plyLabels('8/8/8/8/8/8/8/8 w - - 3 14', 3), ['12…', '13.', null]);
  // Extended Maharajah FEN (eight fields) reads the same way.
  assert.deepEqual(plyLabels('4k3/8/8/8/8/8/8/4K2M w - - 0 2 vc -', 2), ['1.', null]);
  assert.deepEqual(plyLabels('4k3/8/8/8/8/8/8/4K3 w - - 0 1', 0), []);
});

test('the live announcement names the last move or the result', () => {
  const tEn = (key, params) => t('en', key, params);
  const game = { history: ['f3', 'e5', 'g4', 'Qh4#'], fen: 'x w KQkq - 1 3', result: null };
  assert.equal(announcement({ screen: 'game', game }, tEn), 'Black: Qh4#');
  assert.equal(announcement({ screen: 'game', game: { ...game, history: ['e4'], fen: 'x b - - 0 1' } }, tEn), 'White: e4');
  const over = { ...game, result: { winner: 'black', reason: 'checkmate' } };
  assert.equal(announcement({ screen: 'game', game: over }, tEn), 'Black wins, by checkmate');
  assert.equal(announcement({ screen: 'menu', game }, tEn), '');
  assert.equal(announcement({ screen: 'game', game: { ...game, history: [] } }, tEn), '');
  assert.equal(announcement({ screen: 'game', game }, (k, p) => t('es', k, p)), 'Negras: Qh4#');
});

test('a new screen, or a new page of one, is a new place (opened at its top); a re-render is not', () => {
  const menu = initialState('en');
  assert.equal(placeOf(menu), 'menu');
  const setup = { ...menu, screen: 'chaturaji', chaturaji: { page: 'setup' } };
  const table = { ...setup, chaturaji: { page: 'table', selected: 'b1' } };
  assert.notEqual(placeOf(setup), placeOf(table), 'the table started from its setup opens at the top');
  assert.equal(placeOf(table), placeOf({ ...table, chaturaji: { page: 'table', selected: null } }), 'a tap on the table keeps the scroll');
  const white = { ...menu, screen: 'builder', build: { stage: 'build', side: 'white', role: null } };
  assert.equal(placeOf(white), placeOf({ ...white, build: { ...white.build, role: 'knight' } }), 'picking a piece keeps the scroll');
  assert.notEqual(placeOf(white), placeOf({ ...white, build: { ...white.build, stage: 'handover' } }));
  assert.notEqual(placeOf(white), placeOf({ ...white, build: { ...white.build, side: 'black' } }), 'Black builds from the top');
  const learn = { ...menu, screen: 'learn', learn: { page: 'board' } };
  assert.notEqual(placeOf(learn), placeOf({ ...learn, learn: { page: 'rules' } }));
  assert.notEqual(placeOf(menu), placeOf({ ...menu, screen: 'analysis' }));
});
