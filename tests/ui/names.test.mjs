// Issue 20 item 1, names in pass-and-play: the setup asks for two optional names (prefilled with
// the last ones), and the player bars, the status line, the result ("Ana wins"), the announcer
// and the history list use them; without names, and against the computer, nothing changes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { installFakeDom, find, text } from './fakedom.mjs';

installFakeDom();
const { initialState, reduce, namesOf, sideName, resultHeadline, announcement } = await import('../../ui/store.js');
const { renderSetup, NAME_MAX } = await import('../../ui/views/setup.js');
const { renderGame } = await import('../../ui/views/game.js');
const { renderHistory } = await import('../../ui/views/history.js');
const { renderBuilder } = await import('../../ui/views/builder.js');
const { errorText } = await import('../../ui/views/errors.js');
const { t: translate } = await import('../../ui/i18n.js');

const en = (key, params) => translate('en', key, params);
const es = (key, params) => translate('es', key, params);
function recorder() {
  const seen = [];
  return { seen, intent: (action) => seen.push(action) };
}

const START = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';
function game(extra = {}) {
  return {
    id: 1, variant: 'chess', fen: START,
    board: { turn: 'white', pieces: [{ square: 'e1', color: 'white', role: 'king' }, { square: 'e8', color: 'black', role: 'king' }], check: null, last_move: null, ply: 0 },
    legal: ['e1e2'], history: [], captured: { white: [], black: [] }, material: 0,
    opponent: { kind: 'human' }, names: { white: null, black: null }, result: null, clock: null,
    claimable: null, draw_offer: null, statuses: null, thinking: false, aids: null, paused: false,
    ...extra,
  };
}
const ANA_BRUNO = { white: 'Ana', black: 'Bruno' };

test('the pass-and-play setup offers two name fields, prefilled with the last names used', () => {
  let s = reduce(initialState('en'), { type: 'settings/loaded', settings: { playerNames: ANA_BRUNO } });
  s = reduce(s, { type: 'setup/open', entry: 'classic' });
  assert.deepEqual(namesOf(s.setup), ANA_BRUNO, 'the last names come back');
  const { seen, intent } = recorder();
  const page = renderSetup(s, { t: en, intent });
  const white = find(page, 'name-white');
  const black = find(page, 'name-black');
  assert.equal(white.getAttribute('value'), 'Ana');
  assert.equal(black.getAttribute('value'), 'Bruno');
  assert.equal(white.getAttribute('maxlength'), String(NAME_MAX));
  assert.equal(NAME_MAX, 20);
  assert.equal(black.getAttribute('placeholder'), 'Black', 'empty, a player is the colour');
  assert.match(text(find(page, 'setup-names')), /White’s name.*Black’s name.*up to 20 characters/);
  // Typing changes the setup without drawing the screen again (the field keeps its caret).
  for (const fn of white.listeners.input) fn({ target: { value: 'Carla' } });
  assert.deepEqual(seen, [{ type: 'setup/change', key: 'whiteName', value: 'Carla', quiet: true }]);
  s = reduce(s, seen[0]);
  assert.deepEqual(namesOf(s.setup), { white: 'Carla', black: 'Bruno' });
  // Spanish labels.
  assert.match(text(renderSetup({ ...s, language: 'es' }, { t: es, intent })), /Nombre de blancas.*Nombre de negras/);
  // The custom (Maharajah) pass-and-play setup has them too; the computer's setup has none.
  s = reduce(s, { type: 'setup/open', entry: 'custom' });
  assert.ok(find(renderSetup(s, { t: en, intent }), 'setup-names'));
  s = reduce(s, { type: 'setup/open', entry: 'computer' });
  assert.equal(find(renderSetup(s, { t: en, intent }), 'setup-names'), null);
  assert.equal(namesOf(s.setup), null, 'no names go to the backend against the computer');
  // Without a setting the fields start empty.
  const fresh = reduce(initialState('en'), { type: 'setup/open', entry: 'horde' });
  assert.deepEqual(namesOf(fresh.setup), { white: '', black: '' });
});

test('a refused name shows the sentence of its code in English and Spanish', () => {
  const error = { code: 'bad_player_name', message: "White's name is longer than 20 characters" };
  assert.match(errorText(error, en), /^A player’s name has at most 20 characters.*White's name is longer/);
  assert.match(errorText(error, es), /^El nombre de un jugador tiene como mucho 20 caracteres/);
  assert.doesNotMatch(errorText(error, es), /longer/, 'Spanish reads Spanish only');
  let s = reduce(initialState('en'), { type: 'setup/open', entry: 'classic' });
  s = reduce(s, { type: 'error', error });
  assert.match(text(renderSetup(s, { t: en, intent: () => {} })), /A player’s name has at most 20 characters/);
});

test('names stand in the player bars, the status line and the result; colours without them', () => {
  const named = game({ names: ANA_BRUNO });
  assert.equal(sideName(named, 'white', en), 'Ana');
  assert.equal(sideName(named, 'black', en), 'Bruno');
  assert.equal(sideName(game({ names: { white: 'Ana', black: null } }), 'black', en), 'Black');
  assert.equal(sideName(game(), 'white', en), 'White');
  // Against the computer the person stays "You", whatever names a view carries.
  const computer = game({ opponent: { kind: 'computer', color: 'black', level: 2 }, names: ANA_BRUNO });
  assert.equal(sideName(computer, 'white', en), 'You');
  assert.equal(sideName(computer, 'black', en), 'Computer · level 2');

  let s = reduce(initialState('en'), { type: 'game/loaded', game: named });
  let page = renderGame(s, { t: en, intent: () => {} });
  assert.match(text(find(page, 'player-white')), /Ana/);
  assert.match(text(find(page, 'player-black')), /Bruno/);
  assert.equal(text(find(page, 'status')), 'Ana to move');
  assert.equal(text(find(renderGame(s, { t: es, intent: () => {} }), 'status')), 'Juega Ana');
  const offered = reduce(s, { type: 'game/loaded', game: { ...named, draw_offer: 'black', board: { ...named.board, turn: 'white' } } });
  assert.match(text(find(renderGame(offered, { t: en, intent: () => {} }), 'draw-offer')), /Bruno offers a draw\./);

  const mated = { ...named, result: { winner: 'black', reason: 'checkmate' }, history: ['f3', 'e5', 'g4', 'Qh4#'] };
  s = reduce(s, { type: 'game/loaded', game: mated });
  assert.equal(s.ui.dialog, 'result');
  page = renderGame(s, { t: en, intent: () => {} });
  assert.equal(text(find(page, 'result-dialog-title')), 'Bruno wins');
  assert.equal(text(find(page, 'result-reason')), 'by checkmate');
  assert.equal(text(find(page, 'status')), 'Bruno wins — by checkmate');
  assert.equal(text(find(renderGame({ ...s, language: 'es' }, { t: es, intent: () => {} }), 'result-dialog-title')), 'Gana Bruno');
  assert.equal(announcement(s, en), 'Bruno wins, by checkmate');

  // No names: what it always said.
  assert.equal(resultHeadline({ winner: 'black' }, null, en, { white: null, black: null }), 'Black wins');
  assert.equal(resultHeadline({ winner: 'black' }, null, en), 'Black wins');
  assert.equal(resultHeadline({ winner: 'white' }, null, es, { white: null, black: 'Bruno' }), 'Ganan Blancas');
  assert.equal(resultHeadline({ winner: null }, null, en, ANA_BRUNO), 'Draw');
  assert.equal(resultHeadline({ winner: 'white' }, 'white', en, ANA_BRUNO), 'You won', 'the person, not a name');
  let unnamed = reduce(initialState('en'), { type: 'game/loaded', game: { ...game(), result: { winner: 'black', reason: 'checkmate' } } });
  unnamed = reduce(unnamed, { type: 'dialog', dialog: 'result' });
  assert.equal(text(find(renderGame(unnamed, { t: en, intent: () => {} }), 'result-dialog-title')), 'Black wins');
});

test('the announcer names the player who moved', () => {
  const played = game({ names: ANA_BRUNO, history: ['e4'], fen: START.replace(' w ', ' b ') });
  assert.equal(announcement({ screen: 'game', game: played }, en), 'Ana: e4');
  assert.equal(announcement({ screen: 'game', game: { ...played, names: { white: null, black: null } } }, en), 'White: e4');
});

test('the history lists pass-and-play games by their players and names the winner', () => {
  const games = [
    { id: 3, variant: 'chess', opponent: { kind: 'human' }, names: ANA_BRUNO, result: { winner: 'black', reason: 'checkmate' }, plies: 4, updated_at: 0 },
    { id: 2, variant: 'horde', opponent: { kind: 'human' }, names: { white: 'Ana', black: null }, result: null, plies: 1, updated_at: 0 },
    { id: 1, variant: 'chess', opponent: { kind: 'human' }, names: { white: null, black: null }, result: { winner: 'black', reason: 'checkmate' }, plies: 4, updated_at: 0 },
    { id: 0, variant: 'chess', opponent: { kind: 'computer', color: 'black', level: 1 }, names: { white: null, black: null }, result: { winner: 'white', reason: 'resignation' }, plies: 0, updated_at: 0 },
  ];
  const s = { ...initialState('en'), history: { status: 'ready', games, error: null } };
  const rows = find(renderHistory(s, { t: en, intent: () => {} }), 'history-list').children.map(text);
  assert.match(rows[0], /^Chess · Ana vs Bruno.*Bruno wins · by checkmate/);
  assert.match(rows[1], /^Horde · Ana vs Black.*in progress/);
  assert.match(rows[2], /^Chess · pass-and-play.*Black wins · by checkmate/);
  assert.match(rows[3], /^Chess · vs computer \(level 1\).*White wins · by resignation/);
  const spanish = find(renderHistory({ ...s, language: 'es' }, { t: es, intent: () => {} }), 'history-list').children.map(text);
  assert.match(spanish[0], /Ana contra Bruno.*Gana Bruno/);
});

test('the custom setup builds by name, and the hand-over says to whom the device goes', () => {
  let s = reduce(initialState('en'), { type: 'setup/open', entry: 'custom' });
  s = reduce(s, { type: 'setup/change', key: 'hidden', value: true });
  s = reduce(s, { type: 'build/begin', names: ANA_BRUNO });
  assert.deepEqual(s.build.names, ANA_BRUNO);
  const page = renderBuilder(s, { t: en, intent: () => {} });
  assert.match(text(page), /Ana builds \(White\)/);
  s = reduce(s, { type: 'build/stage', stage: 'handover', side: 'white' });
  const over = find(renderBuilder(s, { t: en, intent: () => {} }), 'handover');
  assert.match(text(over), /Pass the device to Bruno, who plays Black\./);
  assert.equal(text(find(over, 'handover-go')), 'I am Bruno: build my army');
  assert.match(text(renderBuilder({ ...s, language: 'es' }, { t: es, intent: () => {} })), /Pasa el dispositivo a Bruno/);
  // Without names: as before.
  let plain = reduce(initialState('en'), { type: 'setup/open', entry: 'custom' });
  plain = reduce(plain, { type: 'build/begin', names: { white: null, black: null } });
  assert.match(text(renderBuilder(plain, { t: en, intent: () => {} })), /White builds/);
  plain = reduce(plain, { type: 'build/stage', stage: 'handover', side: 'white' });
  assert.equal(text(find(renderBuilder(plain, { t: en, intent: () => {} }), 'handover-go')), 'I play Black: build my army');
});
