// Issue #20 item 3, "no tap loses work without a way back": the builder's presets can be undone,
// Back on the hand-over asks before White's locked army is lost, and resigning, offering a draw
// and ending a Chaturaji turn with a usable die ask first (a setting, on by default).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { installFakeDom, find, text } from './fakedom.mjs';

installFakeDom();
const { initialState, reduce, DEFAULT_SETTINGS, confirmsActions } = await import('../../ui/store.js');
const { renderBuilder } = await import('../../ui/views/builder.js');
const { renderGame } = await import('../../ui/views/game.js');
const { renderSettings } = await import('../../ui/views/settings.js');
const { t: translate } = await import('../../ui/i18n.js');

const t = (key, params) => translate('en', key, params);
function recorder() {
  const seen = [];
  return { seen, intent: (action) => seen.push(action) };
}

function armyView(color, squares) {
  const pieces = [{ square: color === 'white' ? 'e1' : 'e8', color, role: 'king' },
    ...squares.map((square) => ({ square, color, role: 'queen' }))];
  return { color, army: `army-${squares.join('')}`, pieces, spent: squares.length * 9, budget: 39, status: 'classic', placeable: [], problems: [], refused: null };
}

function builderState(setup = {}) {
  let s = initialState('en');
  s = reduce(s, { type: 'setup/open', entry: 'custom' });
  for (const [key, value] of Object.entries(setup)) s = reduce(s, { type: 'setup/change', key, value });
  return reduce(s, { type: 'build/begin' });
}

test('a preset can be undone: the army before it comes back, and a later change drops the undo', () => {
  let s = builderState();
  const mine = armyView('white', ['d1', 'c1']);
  s = reduce(s, { type: 'build/army', view: mine });
  assert.equal(s.build.undo, null, 'a placement is not a preset');
  s = reduce(s, { type: 'build/army', view: armyView('white', []), undoable: true });
  assert.deepEqual(s.build.undo, { color: 'white', view: mine });
  const { seen, intent } = recorder();
  const page = renderBuilder(s, { t, intent });
  const undo = find(page, 'preset-undo');
  assert.ok(undo, 'the builder offers Undo after Clear');
  undo.click();
  assert.deepEqual(seen, [{ type: 'build/undo' }]);
  s = reduce(s, { type: 'build/undo' });
  assert.equal(s.build.white.army, mine.army, 'the army before the preset is back');
  assert.equal(s.build.undo, null);
  assert.equal(find(renderBuilder(s, { t, intent }), 'preset-undo'), null, 'nothing left to undo');
  // Random, then a tap: the tap builds on the random army, so Undo goes.
  s = reduce(s, { type: 'build/army', view: armyView('white', ['a1']), undoable: true });
  assert.ok(s.build.undo);
  s = reduce(s, { type: 'build/army', view: armyView('white', ['a1', 'b1']) });
  assert.equal(s.build.undo, null);
  // Black's builder does not offer to undo White's preset.
  s = reduce(s, { type: 'build/army', view: armyView('white', []), undoable: true });
  s = reduce(s, { type: 'build/stage', stage: 'build', side: 'black' });
  assert.equal(s.build.undo, null);
});

test('Back on the hand-over asks before White\'s locked army is thrown away', () => {
  let s = builderState({ hidden: true });
  s = reduce(s, { type: 'build/army', view: armyView('white', ['d1']) });
  s = reduce(s, { type: 'build/stage', stage: 'handover', side: 'white' });
  const { seen, intent } = recorder();
  let page = renderBuilder(s, { t, intent });
  find(page, 'back').click();
  assert.deepEqual(seen, [{ type: 'build/confirm', confirm: 'discard' }], 'Back asks, it does not leave');
  assert.equal(find(page, 'discard-dialog'), null);
  s = reduce(s, seen.pop());
  page = renderBuilder(s, { t, intent });
  assert.match(text(find(page, 'discard-dialog')), /Throw White's army away\?/);
  find(page, 'discard-stay').click();
  find(page, 'discard-leave').click();
  assert.deepEqual(seen, [{ type: 'build/confirm', confirm: null }, { type: 'back' }]);
  assert.equal(reduce(s, { type: 'build/confirm', confirm: null }).build.confirm, null);
});

function gameState(settings = {}) {
  const game = {
    id: 1, variant: 'chess', fen: 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1',
    board: { turn: 'white', pieces: [{ square: 'e1', color: 'white', role: 'king' }], check: false },
    legal: ['e2e4'], history: [], captured: { white: [], black: [] }, material: 0,
    opponent: { kind: 'computer', color: 'black', level: 8 }, result: null, clock: null,
    claimable: null, draw_offer: null, statuses: null, thinking: false,
  };
  let s = reduce(initialState('en'), { type: 'game/loaded', game });
  for (const [key, value] of Object.entries(settings)) s = reduce(s, { type: 'setting', key, value });
  return s;
}

test('resign and draw offers ask first by default; the setting turns the question off', () => {
  assert.equal(DEFAULT_SETTINGS.confirmResign, true);
  assert.equal(confirmsActions({}), true, 'a backend without the setting yet: ask');
  let { seen, intent } = recorder();
  let s = gameState();
  let page = renderGame(s, { t, intent });
  find(page, 'offer-draw').click();
  find(page, 'resign').click();
  assert.deepEqual(seen, [{ type: 'dialog', dialog: 'draw' }, { type: 'dialog', dialog: 'resign' }]);
  s = reduce(s, { type: 'dialog', dialog: 'draw' });
  page = renderGame(s, { t, intent });
  assert.match(text(find(page, 'draw-dialog')), /Offer a draw\?/);
  assert.match(text(find(page, 'draw-dialog')), /never in the opening/, 'against the computer it says when it accepts');
  find(page, 'draw-confirm').click();
  assert.deepEqual(seen.at(-1), { type: 'offer-draw' });
  ({ seen, intent } = recorder());
  page = renderGame(gameState({ confirmResign: false }), { t, intent });
  find(page, 'offer-draw').click();
  find(page, 'resign').click();
  assert.deepEqual(seen, [{ type: 'offer-draw' }, { type: 'resign' }], 'no question with the setting off');
});

test('the setting is on the settings screen and is sent to the backend', () => {
  const { seen, intent } = recorder();
  const page = renderSettings(initialState('en'), { t, intent });
  const box = find(page, 'setting-confirmResign');
  assert.ok(box, 'a checkbox');
  assert.equal(box.attrs.checked, '', 'on by default');
  for (const fn of box.listeners.change) fn({ target: { checked: false } });
  assert.deepEqual(seen, [{ type: 'setting', key: 'confirmResign', value: false }]);
  assert.match(t('settings.confirmResign'), /Confirm resign and draw offers/);
});

test('ending a Chaturaji turn with a usable die asks; with no usable die it just ends', async () => {
  const { renderChaturaji } = await import('../../ui/views/chaturaji.js');
  const table = (dice) => ({
    id: 1, version: 3, to_move: 'red', cpu_to_move: false, outcome: null, round: 1, remote: null,
    settings: {
      round_limit: 50, dice: 'random',
      players: { red: { kind: 'person' }, blue: { kind: 'cpu', level: 'greedy' }, yellow: { kind: 'cpu', level: 'greedy' }, green: { kind: 'cpu', level: 'greedy' } },
    },
    pieces: [], kings: { red: true, blue: true, yellow: true, green: true },
    resigned: { red: false, blue: false, yellow: false, green: false },
    frozen: { red: false, blue: false, yellow: false, green: false },
    scores: { red: 0, blue: 0, yellow: 0, green: 0 }, log: [], can_end_turn: true, time_left_ms: null,
    dice,
  });
  const usable = [{ index: 0, face: 2, class: 'boat', state: { state: 'unused' }, usable: true, moves: [{ from: 'a1', to: 'c3' }] }];
  const stuck = [{ index: 0, face: 2, class: 'boat', state: { state: 'unused' }, usable: false, reason: 'blocked', moves: [] }];
  let s = reduce(initialState('en'), { type: 'chaturaji/open' });
  s = reduce(s, { type: 'chaturaji/loaded', table: table(usable) });
  const { seen, intent } = recorder();
  let page = renderChaturaji(s, { t, intent });
  find(page, 'cj-end-turn').click();
  assert.deepEqual(seen.pop(), { type: 'chaturaji/dialog', dialog: 'end-turn' });
  s = reduce(s, { type: 'chaturaji/dialog', dialog: 'end-turn' });
  page = renderChaturaji(s, { t, intent });
  assert.match(text(find(page, 'cj-end-turn-dialog')), /End the turn with a usable die\?/);
  find(page, 'cj-end-turn-yes').click();
  assert.deepEqual(seen.pop(), { type: 'chaturaji/end-turn' });
  assert.equal(reduce(s, { type: 'chaturaji/end-turn' }).chaturaji.dialog, null, 'the question goes once answered');
  const plain = reduce(reduce(initialState('en'), { type: 'chaturaji/open' }), { type: 'chaturaji/loaded', table: table(stuck) });
  find(renderChaturaji(plain, { t, intent }), 'cj-end-turn').click();
  assert.deepEqual(seen.pop(), { type: 'chaturaji/end-turn' });
  const off = reduce(s, { type: 'setting', key: 'confirmResign', value: false });
  find(renderChaturaji({ ...off, chaturaji: { ...off.chaturaji, dialog: null } }, { t, intent }), 'cj-end-turn').click();
  assert.deepEqual(seen.pop(), { type: 'chaturaji/end-turn' });
});
