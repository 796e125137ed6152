// Issue 17 item 5: in a game against the computer the Hint and Threat toggles start off, a tap
// asks the backend, and what it found is drawn on the board (the hint's piece ringed, the
// threat's arrow); a view of the same position keeps the piece in hand. Also the analysis
// board's "Save file" (item 2) and its review graph drawn as it goes (item 4).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { installFakeDom, find, text } from './fakedom.mjs';

installFakeDom();
const { initialState, reduce } = await import('../../ui/store.js');
const { renderGame } = await import('../../ui/views/game.js');
const { renderAnalysis } = await import('../../ui/views/analysis.js');
const { graphPoints } = await import('../../ui/analysis-store.js');
const { CATALOGUES, t: translate } = await import('../../ui/i18n.js');

const t = (key, params) => translate('en', key, params);
function recorder() {
  const seen = [];
  return { seen, intent: (action) => seen.push(action) };
}

const START = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';
function game(aids, fen = START) {
  return {
    id: 1, variant: 'chess', fen,
    board: { turn: 'white', pieces: [{ square: 'e1', color: 'white', role: 'king' }, { square: 'g1', color: 'white', role: 'knight' }], check: null, last_move: null, ply: 0 },
    legal: ['g1f3', 'e1e2'], history: [], captured: { white: [], black: [] }, material: 0,
    opponent: { kind: 'computer', color: 'black', level: 3 }, result: null, clock: null,
    claimable: null, draw_offer: null, statuses: null, thinking: false, aids,
  };
}
const off = { hint: false, threat: false, hint_square: null, threat_move: null, thinking: false, hints_used: 0, threats_used: 0 };

test('the hint and threat toggles start off and a tap asks the backend', () => {
  const s = reduce(initialState('en'), { type: 'game/loaded', game: game(off) });
  const { seen, intent } = recorder();
  const page = renderGame(s, { t, intent });
  assert.equal(find(page, 'aid-hint').getAttribute('aria-pressed'), 'false');
  assert.equal(find(page, 'aid-threat').getAttribute('aria-pressed'), 'false');
  assert.equal(find(page, 'hint-ring'), null);
  assert.equal(find(page, 'threat-arrow'), null);
  find(page, 'aid-hint').click();
  find(page, 'aid-threat').click();
  assert.deepEqual(seen, [{ type: 'aid', kind: 'hint', on: true }, { type: 'aid', kind: 'threat', on: true }]);
  // Pass-and-play and network games have no aids.
  const human = reduce(initialState('en'), { type: 'game/loaded', game: { ...game(null), opponent: { kind: 'human' } } });
  assert.equal(find(renderGame(human, { t, intent }), 'aids'), null);
});

test('what the engine found is drawn: the piece ringed, the threat as an arrow', () => {
  const shown = { ...off, hint: true, threat: true, hint_square: 'g1', threat_move: { from: 'd8', to: 'h4' }, hints_used: 1, threats_used: 1 };
  const s = reduce(initialState('en'), { type: 'game/loaded', game: game(shown) });
  const { seen, intent } = recorder();
  const page = renderGame(s, { t, intent });
  assert.equal(find(page, 'hint-ring').getAttribute('data-square'), 'g1');
  assert.equal(find(page, 'threat-arrow').getAttribute('data-move'), 'd8h4');
  assert.equal(find(page, 'aid-hint').getAttribute('aria-pressed'), 'true');
  find(page, 'aid-hint').click();
  assert.deepEqual(seen, [{ type: 'aid', kind: 'hint', on: false }]);
  const looking = reduce(s, { type: 'game/loaded', game: game({ ...off, hint: true, thinking: true }) });
  assert.match(text(find(renderGame(looking, { t, intent }), 'aid-thinking')), /looking/);
});

test('a view of the same position keeps the piece in hand; a new position drops it', () => {
  let s = reduce(initialState('en'), { type: 'game/loaded', game: game(off) });
  s = reduce(s, { type: 'select', square: 'g1' });
  s = reduce(s, { type: 'game/loaded', game: game({ ...off, hint: true, hint_square: 'g1' }) });
  assert.equal(s.ui.selected, 'g1', 'the hint arrived while the knight was in hand');
  s = reduce(s, { type: 'game/loaded', game: game(off, 'rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R b KQkq - 1 1') });
  assert.equal(s.ui.selected, null);
});

test('the aids and the save button have texts in every language', () => {
  for (const [language, catalogue] of Object.entries(CATALOGUES)) {
    for (const key of ['game.aids', 'game.hint', 'game.threat', 'game.aidThinking', 'error.no_aids', 'export.save', 'export.saved']) {
      assert.ok(catalogue[key], `${language} lacks ${key}`);
    }
  }
});

function analysisView(review) {
  return {
    revision: 1, generation: 1, variant: 'chess', board: game(off).board, legal: [], fen: START, node: 0,
    at_start: true, at_end: false, on_main_line: true, moves: [], lines: 1, engine: null, thinking: false,
    review, statuses: null, result: null, intro: [],
  };
}

test('the analysis export saves a file and shows where', () => {
  let s = reduce(initialState('en'), { type: 'analysis/loaded', view: analysisView(null) });
  s = reduce(s, { type: 'analysis/pgn', pgn: '1. e4 *' });
  const { seen, intent } = recorder();
  let page = renderAnalysis(s, { t, intent });
  find(page, 'analysis-save').click();
  assert.deepEqual(seen, [{ type: 'analysis/save' }]);
  assert.equal(find(page, 'analysis-saved-path'), null);
  s = reduce(s, { type: 'analysis/saved', path: '/tmp/x/maharajah-analysis-2026-12-02.pgn' });
  page = renderAnalysis(s, { t, intent });
  assert.match(text(find(page, 'analysis-saved-path')), /maharajah-analysis-2026-12-02\.pgn/);
  // A new export forgets the old path.
  s = reduce(s, { type: 'analysis/pgn', pgn: '1. d4 *' });
  assert.equal(s.analysis.savedPath, null);
});

test('a running review draws the part of the graph done, with its progress', () => {
  const graph = [0, 1, 2, 3, 4].map((ply) => ({ ply, node: ply, white_win: ply < 2 ? 50 + ply : null }));
  const side = { accuracy: null, inaccuracies: 0, mistakes: 0, blunders: 0 };
  const review = { running: true, done: 2, total: 5, complete: false, graph, white: side, black: side };
  const points = graphPoints(review, 400);
  assert.deepEqual(points.map((p) => p.x), [0, 100], 'the first two positions, on the whole game\'s scale');
  const s = reduce(initialState('en'), { type: 'analysis/loaded', view: analysisView(review) });
  const { intent } = recorder();
  const page = renderAnalysis(s, { t, intent });
  assert.ok(find(page, 'eval-graph'), 'the graph is drawn before the review ends');
  assert.equal(String(find(page, 'review-progress').getAttribute('value')), '2');
  assert.match(text(find(page, 'review-count')), /2.*5/);
  assert.ok(find(page, 'review-cancel'));
});
