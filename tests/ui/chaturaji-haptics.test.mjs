// Issue #20 item 7 for Chaturaji: a move, a capture and the game's end give the same haptic
// feedback as in the chess game (where the build has haptics), whether the person played it or a
// CPU seat's step was pushed; a roll or an ended turn gives none.
import { test } from 'node:test';
import assert from 'node:assert/strict';

// The backend as api.js sees it inside the app: every command recorded, the table call answered.
const asked = [];
let answer = null;
const pushed = {};
globalThis.__TAURI__ = {
  core: {
    invoke: async (command, args) => {
      asked.push(command);
      return command.startsWith('plugin:haptics') ? null : answer(command, args);
    },
  },
  event: { listen: async (name, handler) => { pushed[name] = (payload) => handler({ payload }); return () => {}; } },
};

const { chaturajiSound } = await import('../../ui/chaturaji-store.js');
const { chaturajiEffects, subscribeChaturaji } = await import('../../ui/chaturaji-effects.js');
const { setHapticsAvailable } = await import('../../ui/haptics.js');
const { createStore, initialState } = await import('../../ui/store.js');

const PEOPLE = { red: { kind: 'person' }, blue: { kind: 'cpu', level: 'random' }, yellow: { kind: 'cpu', level: 'random' }, green: { kind: 'cpu', level: 'random' } };

function table(version, pieces, extra = {}) {
  return {
    id: 7, version, to_move: 'red', cpu_to_move: false, outcome: null, settings: { players: PEOPLE },
    pieces, dice: null, log: [], ...extra,
  };
}
const START = [{ square: 'b1', seat: 'red', role: 'horse' }, { square: 'c3', seat: 'blue', role: 'pawn' }, { square: 'd1', seat: 'red', role: 'king' }];
const MOVED = [{ square: 'a3', seat: 'red', role: 'horse' }, START[1], START[2]];
const TAKEN = [{ square: 'c3', seat: 'red', role: 'horse' }, START[2]];

test('a Chaturaji snapshot sounds like the chess game: move, capture, end; nothing else', () => {
  const old = table(3, START);
  assert.equal(chaturajiSound(old, table(4, MOVED)), 'move');
  assert.equal(chaturajiSound(old, table(4, TAKEN)), 'capture');
  assert.equal(chaturajiSound(old, table(4, TAKEN, { outcome: { reason: { t: 'round_limit' } } })), 'end');
  assert.equal(chaturajiSound(old, table(4, START, { dice: [] })), null, 'a roll moves nothing');
  assert.equal(chaturajiSound(old, table(3, MOVED)), null, 'not a newer snapshot');
  assert.equal(chaturajiSound(old, { ...table(4, MOVED), id: 8 }), null, 'a new table');
  assert.equal(chaturajiSound(null, table(4, MOVED)), null, 'the first table shown');
});

test('moves on the table buzz where the build has haptics: the person\'s and a CPU seat\'s', async () => {
  const store = createStore(initialState('en'));
  store.dispatch({ type: 'chaturaji/open' });
  const DICE = { dice: [{ index: 0, usable: true, moves: [{ from: 'b1', to: 'a3' }, { from: 'b1', to: 'c3' }] }] };
  store.dispatch({ type: 'chaturaji/loaded', table: table(3, START, DICE) });
  const buzzes = () => asked.filter((c) => c.startsWith('plugin:haptics'));

  // The desktop build has none: a move asks for nothing.
  answer = (command) => {
    assert.equal(command, 'chaturaji_move');
    return table(4, MOVED);
  };
  await chaturajiEffects({ type: 'chaturaji/drop', from: 'b1', to: 'a3' }, store);
  await new Promise((r) => setTimeout(r, 10));
  assert.ok(asked.includes('chaturaji_move'), 'the move was played');
  assert.deepEqual(buzzes(), []);

  setHapticsAvailable(true);
  // The person's move (a tap-tap or a drop becomes chaturaji_move).
  store.dispatch({ type: 'chaturaji/loaded', table: table(5, START, DICE) });
  answer = (command) => {
    assert.equal(command, 'chaturaji_move');
    return table(6, TAKEN);
  };
  await chaturajiEffects({ type: 'chaturaji/drop', from: 'b1', to: 'c3' }, store);
  await new Promise((r) => setTimeout(r, 10));
  assert.deepEqual(buzzes(), ['plugin:haptics|impact_feedback'], 'a capture: a light impact');

  // A CPU seat's step, pushed by the backend.
  // (Without the count-down ticker, which would keep the test process alive.)
  const { setInterval: ticker } = globalThis;
  globalThis.setInterval = () => 0;
  await subscribeChaturaji(store);
  globalThis.setInterval = ticker;
  pushed.chaturaji(table(7, [{ square: 'b1', seat: 'red', role: 'horse' }, START[2]], { to_move: 'blue', cpu_to_move: true }));
  assert.deepEqual(buzzes(), ['plugin:haptics|impact_feedback', 'plugin:haptics|impact_feedback'], 'a CPU move: a light impact');
  // A roll moves nothing: no buzz.
  pushed.chaturaji(table(8, [{ square: 'b1', seat: 'red', role: 'horse' }, START[2]], { to_move: 'blue', cpu_to_move: true, dice: [] }));
  assert.equal(buzzes().length, 2);
  // The end of the game: a notification.
  pushed.chaturaji(table(9, [START[2]], { outcome: { reason: { t: 'one_king_left' } } }));
  assert.deepEqual(buzzes().at(-1), 'plugin:haptics|notification_feedback');

  // The setting turns it off.
  store.dispatch({ type: 'setting', key: 'haptics', value: false });
  pushed.chaturaji(table(10, [{ square: 'd2', seat: 'red', role: 'king' }], { outcome: { reason: { t: 'one_king_left' } } }));
  assert.equal(buzzes().length, 3);
});
