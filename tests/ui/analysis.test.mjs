// Unit tests of the analysis board's pure state: views in revision order, engine words for the
// shown node only, taps, the move tree's tokens, the graph and the score texts.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { initialState, reduce } from '../../ui/store.js';
import {
  analysisDrop, analysisTap, barPercent, currentMove, graphPoints, scoreText, treeTokens,
} from '../../ui/analysis-store.js';
import { CATALOGUES } from '../../ui/i18n.js';

function move(id, san, extra = {}) {
  return {
    id, parent: id - 1, ply: id, number: Math.ceil(id / 2), color: id % 2 ? 'white' : 'black', san, mv: null,
    depth: 0, opens: false, closes: 0, main: true, current: false, glyphs: [], judgement: null, better: null,
    eval: null, comments: [], ...extra,
  };
}

function view(revision, generation, extra = {}) {
  return {
    revision, generation, variant: 'chess', node: 0, at_start: true, at_end: false, on_main_line: true,
    board: { pieces: [{ square: 'e2', color: 'white', role: 'pawn' }, { square: 'e7', color: 'black', role: 'pawn' }], last_move: null, check: null, turn: 'white', ply: 0 },
    legal: ['e2e3', 'e2e4'], fen: '', moves: [], lines: 1, engine: null, thinking: true, review: null,
    statuses: null, result: null, intro: [], ...extra,
  };
}

const engine = (generation, best = 'e2e4') => ({
  generation, node: 0, depth: 5, nodes: 1000, time_ms: 10, finished: false, best,
  eval: { cp: 30, mate: null, winner: null, white_win: 52.8, text: '0.30' },
  lines: [{ depth: 5, eval: { cp: 30, mate: null, winner: null, white_win: 52.8, text: '0.30' }, san: ['e4', 'e5'], moves: ['e2e4', 'e7e5'] }],
});

test('a board view opens the screen; an older revision never replaces a newer one', () => {
  let state = reduce(initialState('en'), { type: 'analysis/loaded', view: view(5, 1) });
  assert.equal(state.screen, 'analysis');
  assert.equal(state.analysis.view.revision, 5);
  const same = reduce(state, { type: 'analysis/loaded', view: view(4, 9) });
  assert.equal(same, state);
  // A pushed view updates the board without changing the screen.
  const elsewhere = { ...state, screen: 'menu' };
  state = reduce(elsewhere, { type: 'analysis/loaded', view: view(6, 1), pushed: true });
  assert.equal(state.screen, 'menu');
  assert.equal(state.analysis.view.revision, 6);
});

test('engine news that beats the answer moving to its node is shown when the answer comes', () => {
  let state = reduce(initialState('en'), { type: 'analysis/loaded', view: view(1, 7) });
  // The step's answer (generation 8) is still on its way; the engine already found the mate.
  const mate = { ...engine(8, 'd8h4'), depth: 1, finished: true };
  state = reduce(state, { type: 'analysis/engine', engine: mate });
  assert.equal(state.analysis.engine, null, 'not shown on the old node');
  state = reduce(state, { type: 'analysis/loaded', view: view(2, 8) });
  assert.equal(state.analysis.engine?.best, 'd8h4', 'shown once the board is on its node');
  assert.equal(state.analysis.early, null);
  // A deeper word carried by the answer itself wins over an earlier shallow one.
  state = reduce(state, { type: 'analysis/engine', engine: { ...engine(9, 'e2e3'), depth: 2 } });
  state = reduce(state, { type: 'analysis/loaded', view: view(3, 9, { engine: { ...engine(9, 'e2e4'), depth: 6 } }) });
  assert.equal(state.analysis.engine.best, 'e2e4');
});

test('engine words count only for the node on the board', () => {
  let state = reduce(initialState('en'), { type: 'analysis/loaded', view: view(1, 7) });
  assert.equal(reduce(state, { type: 'analysis/engine', engine: engine(6) }), state, 'a stale generation is dropped');
  state = reduce(state, { type: 'analysis/engine', engine: engine(7) });
  assert.equal(state.analysis.engine.best, 'e2e4');
  // The same node again keeps the pushed word; a new node forgets it.
  state = reduce(state, { type: 'analysis/loaded', view: view(2, 7) });
  assert.equal(state.analysis.engine?.best, 'e2e4');
  state = reduce(state, { type: 'analysis/loaded', view: view(3, 8) });
  assert.equal(state.analysis.engine, null);
  // A view that carries the engine's word for its own node shows it.
  state = reduce(state, { type: 'analysis/loaded', view: view(4, 9, { engine: engine(9, 'e2e3') }) });
  assert.equal(state.analysis.engine.best, 'e2e3');
});

test('taps select the side to move and play its legal moves; promotions ask first', () => {
  const analysis = { view: view(1, 1), selected: null };
  assert.deepEqual(analysisTap(analysis, 'e2'), { kind: 'select', square: 'e2' });
  assert.deepEqual(analysisTap(analysis, 'e7'), { kind: 'deselect' }, 'not the side to move');
  assert.deepEqual(analysisTap({ ...analysis, selected: 'e2' }, 'e4'), { kind: 'move', uci: 'e2e4' });
  assert.deepEqual(analysisDrop(analysis, 'e2', 'e5'), { kind: 'deselect' });
  const promo = { view: view(1, 1, { legal: ['e7e8q', 'e7e8n'], board: { ...view(1, 1).board, pieces: [{ square: 'e7', color: 'white', role: 'pawn' }] } }), selected: 'e7' };
  assert.deepEqual(analysisTap(promo, 'e8'), { kind: 'promote', from: 'e7', to: 'e8', letters: ['q', 'n'] });
  assert.deepEqual(analysisTap({ view: null }, 'e2'), { kind: 'none' });
});

test('the move tree reads as PGN: numbers, variations in brackets', () => {
  const moves = [
    move(1, 'e4'), move(2, 'e5'),
    move(5, 'c5', { parent: 1, ply: 2, number: 1, color: 'black', depth: 1, opens: true, main: false }),
    move(6, 'Nf3', { parent: 5, ply: 3, number: 2, color: 'white', depth: 1, main: false, closes: 1, current: true }),
    move(3, 'Nf3', { number: 2, color: 'white' }), move(4, 'Qh4', { number: 2, color: 'black', glyphs: ['??'], judgement: 'blunder', better: 'Nc6' }),
  ];
  const text = treeTokens(moves).map((tk) => (tk.kind === 'open' ? '(' : tk.kind === 'close' ? ')' : `${tk.number ?? ''}${tk.move.san}`)).join(' ');
  assert.equal(text, '1.e4 e5 ( 1…c5 2.Nf3 ) 2.Nf3 Qh4');
  assert.equal(currentMove({ moves })?.id, 6);
});

test('graph points, the bar and the score text', () => {
  const review = { graph: [{ ply: 0, node: 0, white_win: 50 }, { ply: 1, node: 1, white_win: 60 }, { ply: 2, node: 2, white_win: null }] };
  assert.deepEqual(graphPoints(review, 200), [{ x: 0, y: 50, node: 0, ply: 0 }, { x: 100, y: 40, node: 1, ply: 1 }]);
  assert.deepEqual(graphPoints(null), []);
  assert.equal(barPercent(null), 50);
  assert.equal(barPercent({ white_win: 130 }), 100);
  assert.equal(scoreText({ cp: 35, mate: null }), '+0.35');
  assert.equal(scoreText({ cp: -120, mate: null }), '−1.20');
  assert.equal(scoreText({ cp: null, mate: 3 }), '#3');
  assert.equal(scoreText({ cp: null, mate: -2 }), '#−2');
});

test('every judgement has a text in every language', () => {
  for (const language of Object.keys(CATALOGUES)) {
    for (const j of ['inaccuracy', 'mistake', 'blunder']) assert.ok(CATALOGUES[language][`analysis.judgement.${j}`], `${language} ${j}`);
  }
});

test('closing the board returns to the menu and forgets it; the menu entry opens the import page', () => {
  let state = reduce(initialState('en'), { type: 'analysis/loaded', view: view(1, 1) });
  state = reduce(state, { type: 'analysis/closed' });
  assert.equal(state.screen, 'menu');
  assert.equal(state.analysis.view, null);
  state = reduce(state, { type: 'analysis/menu' });
  assert.equal(state.screen, 'analysis');
  assert.equal(state.analysis.view, null);
});
