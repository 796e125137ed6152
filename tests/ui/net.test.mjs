// Network play's pure state: the form's arguments, views ordered by revision, the board snapshot
// built from a NetView, the pause control and the error texts.
import test from 'node:test';
import assert from 'node:assert/strict';
import { createArgs, formatCountdown, netGame, newOnline, pauseControl, reduceNet, serverUrlOf } from '../../ui/net.js';
import { errorKey, errorText } from '../../ui/views/errors.js';
import { announcement, initialState, isFlipped, reduce, tapDecision } from '../../ui/store.js';
import { t as translate } from '../../ui/i18n.js';

const seats = (over = {}) => ({
  white: { taken: true, connected: true, pause_available: true, committed: false, revealed: false, ...over.white },
  black: { taken: true, connected: true, pause_available: true, committed: false, revealed: false, ...over.black },
});

function view(over = {}) {
  return {
    revision: 1, url: 'ws://127.0.0.1:7878', link: { state: 'connected' }, server_version: '0.1.0', engine_version: '0.1.0',
    rtt_ms: 3, code: 'ABCDEFGH', seat: 'black', variant: 'chess', time_control: { base_ms: 300000, increment_ms: 3000 },
    hidden_setup: false, phase: 'playing', seats: seats(), clock: { white_ms: 300000, black_ms: 300000, running: 'white', control: null },
    pause: null, draw_offer: null, result: null, my_turn: true, setup: 'none', notice: null,
    game: {
      id: 0, variant: 'chess', opponent: { kind: 'human' }, fen: 'x b', history: ['e4'],
      board: { pieces: [{ square: 'e7', color: 'black', role: 'pawn' }], last_move: null, check: null, turn: 'black', ply: 1 },
      legal: ['e7e5', 'e7e6'], captured: { white: [], black: [] }, material: 0, claimable: null, draw_offer: null, result: null, clock: null, thinking: false, statuses: null,
    },
    ...over,
  };
}

test('the form makes the backend arguments; Maharajah rooms are always hidden setup', () => {
  assert.deepEqual(createArgs({ ...newOnline(), variant: 'chess', timeControl: '5+3', color: 'random' }),
    { variant: 'chess', timeControl: { base_ms: 300000, increment_ms: 3000 }, hiddenSetup: false, color: null });
  assert.deepEqual(createArgs({ ...newOnline(), variant: 'maharajah', timeControl: 'none', color: 'white' }),
    { variant: 'maharajah', timeControl: null, hiddenSetup: true, color: 'white' });
  const state = initialState('en');
  assert.equal(serverUrlOf(state), 'ws://127.0.0.1:7878');
  assert.equal(serverUrlOf({ ...state, settings: { ...state.settings, serverUrl: 'ws://10.0.0.2:9000' } }), 'ws://10.0.0.2:9000');
});

test('a NetView becomes the board snapshot, with our side at the bottom and moves only on our turn', () => {
  const game = netGame(view());
  assert.equal(game.id, 'net:ABCDEFGH');
  assert.deepEqual(game.opponent, { kind: 'net', color: 'white' });
  assert.equal(game.clock.running, 'white');
  let state = reduce(initialState('en'), { type: 'net/view', view: view(), open: true });
  assert.equal(state.screen, 'netgame');
  assert.equal(isFlipped(state), true, 'Black sees Black at the bottom');
  assert.deepEqual(tapDecision(state, 'e7'), { kind: 'select', square: 'e7' });
  state = reduce(state, { type: 'net/view', view: view({ revision: 2, my_turn: false, game: { ...view().game, legal: [] } }) });
  assert.deepEqual(tapDecision(state, 'e7'), { kind: 'deselect' });
  assert.equal(netGame(view({ game: null })), null);
});

test('a stale view never replaces a newer one; a new result opens its dialog', () => {
  let state = reduce(initialState('en'), { type: 'net/view', view: view({ revision: 5 }), open: true });
  const stale = reduce(state, { type: 'net/view', view: view({ revision: 4, my_turn: false }) });
  assert.equal(stale, state);
  state = reduce(state, { type: 'net/view', view: view({ revision: 6, result: { winner: 'white', outcome: 'white_wins', reason: 'checkmate' } }) });
  assert.equal(state.ui.dialog, 'net-result');
  state = reduce(state, { type: 'dialog', dialog: null });
  state = reduce(state, { type: 'net/view', view: view({ revision: 7, result: { winner: 'white', outcome: 'white_wins', reason: 'checkmate' } }) });
  assert.equal(state.ui.dialog, null, 'closing the dialog sticks');
  state = reduce(state, { type: 'net/closed' });
  assert.equal(state.net, null);
  assert.equal(state.screen, 'online');
});

test('clock ticks update the net game only on its screen', () => {
  let state = reduce(initialState('en'), { type: 'net/view', view: view(), open: true });
  const tick = { clock: { white_ms: 299000, black_ms: 300000, running: 'white', control: null }, pause: null };
  state = reduce(state, { type: 'net/tick', tick });
  assert.equal(state.game.clock.white_ms, 299000);
  assert.equal(state.net.clock.white_ms, 299000);
  const menu = reduce(state, { type: 'back' });
  assert.equal(reduce(menu, { type: 'net/tick', tick }), menu);
  assert.equal(reduce(state, { type: 'clock', clock: { white_ms: 1 } }), state, 'a local clock never lands on a net game');
});

test('the pause control: pause once, resume only one\'s own pause', () => {
  assert.equal(pauseControl(view()), 'pause');
  assert.equal(pauseControl(view({ seats: seats({ black: { pause_available: false } }) })), null);
  assert.equal(pauseControl(view({ pause: { by: 'black', reason: 'requested', remaining_ms: 40000 } })), 'resume');
  assert.equal(pauseControl(view({ pause: { by: 'white', reason: 'requested', remaining_ms: 40000 } })), null);
  assert.equal(pauseControl(view({ time_control: null })), null, 'untimed games have no pause');
  assert.equal(pauseControl(view({ result: { winner: null, outcome: 'draw', reason: 'agreement' } })), null);
  assert.equal(formatCountdown(59001), '1:00');
  assert.equal(formatCountdown(42000), '0:42');
  assert.equal(formatCountdown(-5), '0:00');
});

test('join errors are named by code', () => {
  assert.equal(errorKey({ code: 'room_full', message: '' }), 'error.room_full');
  assert.equal(errorKey({ code: 'version_mismatch', message: '' }), 'error.version_mismatch');
  assert.equal(errorKey({ code: 'no_such_code', message: '' }), null);
  const state = reduceNet(initialState('en'), { type: 'online/error', error: { code: 'bad_code', message: 'x' } });
  assert.equal(state.online.error.code, 'bad_code');
  assert.equal(state.online.busy, false);
});

test('every view words an error from the one catalogue of codes, then the backend detail in English', () => {
  const es = (key, params) => translate('es', key, params);
  const en = (key, params) => translate('en', key, params);
  const refused = { code: 'connect_failed', message: 'could not connect to ws://a:1' };
  assert.equal(errorText(refused, en), 'Could not connect: nobody answers at that address. could not connect to ws://a:1');
  // Spanish reads Spanish only: the backend's (English) detail is left out (issue #20, item 6).
  assert.equal(errorText(refused, es), 'No se pudo conectar: nadie responde en esa dirección.');
  // A Chaturaji code has its sentence too, in Spanish as in English.
  assert.equal(errorText({ code: 'cpu_seat', message: 'Blue is played by the CPU' }, es), 'Ese asiento lo juega la CPU.');
  assert.equal(errorText({ code: 'no_such_code', message: 'boom' }, en), 'boom');
  assert.equal(errorText(null, en), '');
});

test('leaving returns to the screen the game came from', () => {
  let state = reduce(initialState('en'), { type: 'net/view', view: view(), open: true, origin: 'lan' });
  assert.equal(state.netOrigin, 'lan');
  state = reduce(state, { type: 'net/view', view: view({ revision: 2 }) });
  assert.equal(state.netOrigin, 'lan', 'pushed views keep the origin');
  assert.equal(reduce(state, { type: 'net/closed' }).screen, 'lan');
  const online = reduce(initialState('en'), { type: 'net/view', view: view(), open: true });
  assert.equal(reduce(online, { type: 'net/closed' }).screen, 'online');
});

test('the room kept from before the app closed is offered until left', () => {
  let state = reduce(initialState('en'), { type: 'online/kept', kept: { url: 'ws://a:1', code: 'ABCDEFGH' } });
  assert.deepEqual(state.online.kept, { url: 'ws://a:1', code: 'ABCDEFGH' });
  state = reduce(state, { type: 'online/kept', kept: null });
  assert.equal(state.online.kept, null);
});

test('a screen reader hears the opponent\'s move and an annulled result in a network game', () => {
  const t = (key, params) => translate('en', key, params);
  let state = reduce(initialState('en'), { type: 'net/view', view: view(), open: true });
  assert.equal(announcement(state, t), 'White: e4');
  const annulled = { winner: null, outcome: 'annulled', reason: 'timeout_before_first_move' };
  state = reduce(state, { type: 'net/view', view: view({ revision: 2, result: annulled }) });
  assert.equal(announcement(state, t), 'Game annulled, time ran out before the first move: no result');
});
