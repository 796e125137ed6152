// The Chaturaji screen's pure helpers: board geometry per facing, promotion marks, settings,
// taps, and the reducer's handling of table snapshots.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  SEATS, defaultSetup, destinations, dieFor, nextGameSetup, promotionMarks, reduceChaturaji, screenDirection,
  reachOf, recentMoves, settingsOf, stuckRoll, sharedPlaces, squareAtCell, tapDecision, viewCell,
} from '../../ui/chaturaji-store.js';

test('each seat sits at the bottom when the board faces it', () => {
  // Red's king d1, Blue's king a5, Yellow's king e8, Green's king h4 are all on the bottom row.
  assert.deepEqual(viewCell('d1', 'red'), [3, 7]);
  assert.equal(viewCell('a5', 'blue')[1], 7);
  assert.equal(viewCell('e8', 'yellow')[1], 7);
  assert.equal(viewCell('h4', 'green')[1], 7);
  for (const facing of SEATS) {
    for (const sq of ['a1', 'h8', 'c6', 'f2']) {
      const [c, r] = viewCell(sq, facing);
      assert.equal(squareAtCell(c, r, facing), sq, `${sq} round-trips facing ${facing}`);
    }
  }
  assert.equal(squareAtCell(8, 0, 'red'), null);
});

test('pawns point away from their own seat, whatever the facing', () => {
  assert.deepEqual(screenDirection('red', 'red'), [0, -1]);
  assert.deepEqual(screenDirection('blue', 'red'), [1, 0]);
  assert.deepEqual(screenDirection('yellow', 'red'), [0, 1]);
  assert.deepEqual(screenDirection('green', 'red'), [-1, 0]);
  for (const seat of SEATS) assert.deepEqual(screenDirection(seat, seat), [0, -1], `${seat}'s pawns go up when it faces the board`);
});

test('promotion marks follow boat, horse, elephant, king, king, elephant, horse, boat on every edge', () => {
  const marks = promotionMarks();
  assert.equal(marks.length, 32);
  const red = marks.filter((m) => m.seat === 'red').map((m) => `${m.square}:${m.role}`);
  assert.deepEqual(red, ['a8:boat', 'b8:horse', 'c8:elephant', 'd8:king', 'e8:king', 'f8:elephant', 'g8:horse', 'h8:boat']);
  assert.ok(marks.some((m) => m.seat === 'blue' && m.square === 'h4' && m.role === 'king'));
  assert.ok(marks.some((m) => m.seat === 'green' && m.square === 'a3' && m.role === 'elephant'));
});

test('settings carry every table setting; bad numbers name the field', () => {
  const settings = settingsOf(defaultSetup());
  assert.deepEqual(settings.players.red, { kind: 'person' });
  assert.deepEqual(settings.players.blue, { kind: 'cpu', level: 'strong' });
  assert.equal(settings.round_limit, 30);
  assert.equal(settings.boat_triumph, true);
  assert.equal(settings.throne_points, false);
  assert.throws(() => settingsOf({ ...defaultSetup(), round_limit: '0' }), (e) => e.field === 'round_limit');
  assert.throws(() => settingsOf({ ...defaultSetup(), no_capture_rounds: '2.5' }), (e) => e.field === 'no_capture_rounds');
  assert.equal(nextGameSetup(defaultSetup()).first_seat, 'blue');
  assert.equal(nextGameSetup({ ...defaultSetup(), first_seat: 'green' }).first_seat, 'red');
  assert.equal(nextGameSetup({ ...defaultSetup(), first_seat_rule: 'fixed' }).first_seat, 'red');
});

function table(extra = {}) {
  return {
    id: 1, version: 3, to_move: 'red', cpu_to_move: false, outcome: null,
    settings: { players: { red: { kind: 'person' }, blue: { kind: 'cpu', level: 'greedy' }, yellow: { kind: 'cpu', level: 'greedy' }, green: { kind: 'cpu', level: 'greedy' } } },
    dice: [
      { index: 0, usable: true, moves: [{ from: 'b1', to: 'c3' }, { from: 'b1', to: 'a3' }] },
      { index: 1, usable: false, reason: 'blocked', moves: [] },
    ],
    ...extra,
  };
}

test('taps select a movable piece, then move it with the die that allows it', () => {
  const cj = { table: table(), selected: null, die: null };
  assert.deepEqual(tapDecision(cj, 'a2'), { kind: 'deselect' });
  assert.deepEqual(tapDecision(cj, 'b1'), { kind: 'select', square: 'b1' });
  assert.deepEqual(destinations(cj.table, 'b1').sort(), ['a3', 'c3']);
  assert.deepEqual(tapDecision({ ...cj, selected: 'b1' }, 'c3'), { kind: 'move', from: 'b1', to: 'c3', die: 0 });
  assert.equal(dieFor(cj.table, 'b1', 'c3', 1), null, 'the unusable die cannot play it');
  const cpuTurn = { ...cj, table: table({ to_move: 'blue', cpu_to_move: true }) };
  const pieces = [{ square: 'b1', seat: 'red', role: 'horse' }];
  const watching = { ...cj, table: table({ to_move: 'blue', cpu_to_move: true, pieces }) };
  assert.deepEqual(tapDecision(watching, 'b1'), { kind: 'inspect', square: 'b1' }, 'no move for a CPU seat: a tap only shows how the piece moves');
  assert.deepEqual(tapDecision({ ...watching, inspect: 'b1' }, 'b1'), { kind: 'inspect', square: null }, 'tapped again: hidden');
  assert.deepEqual(tapDecision(cpuTurn, 'c5'), { kind: 'inspect', square: null }, 'an empty square hides it');
});

test('the reducer keeps the newest snapshot and opens the ranking when the game ends', () => {
  let state = reduceChaturaji({ screen: 'menu' }, { type: 'chaturaji/open' });
  assert.equal(state.screen, 'chaturaji');
  state = reduceChaturaji(state, { type: 'chaturaji/loaded', table: table() });
  assert.equal(state.chaturaji.page, 'table');
  state = reduceChaturaji(state, { type: 'chaturaji/select', square: 'b1' });
  const older = reduceChaturaji(state, { type: 'chaturaji/loaded', table: table({ version: 2 }) });
  assert.equal(older, state, 'an older push is ignored');
  const standings = [{ seat: 'red', place: 1 }, { seat: 'blue', place: 1 }, { seat: 'yellow', place: 3 }, { seat: 'green', place: 4 }];
  state = reduceChaturaji(state, { type: 'chaturaji/loaded', table: table({ version: 9, dice: null, outcome: { reason: { t: 'round_limit' }, standings } }) });
  assert.equal(state.chaturaji.dialog, 'ranking');
  assert.equal(state.chaturaji.selected, null);
  assert.deepEqual(sharedPlaces(standings).map((s) => s.shared), [true, true, false, false]);
});

test('a network table lets this device act only for its own seat, once everyone is seated', async () => {
  const { personToMove, serverUrl } = await import('../../ui/chaturaji-store.js');
  const remote = { code: 'ABCD1234', seat: 'blue', started: true, connected: true, seats: null };
  assert.equal(personToMove(table({ remote, to_move: 'red' })), false, 'Red is another device');
  assert.equal(personToMove(table({ remote, to_move: 'blue' })), true);
  assert.equal(personToMove(table({ remote: { ...remote, started: false }, to_move: 'blue' })), false);
  assert.equal(personToMove(table({ remote, to_move: 'blue', cpu_to_move: true })), false, 'the stand-in plays while away');
  assert.equal(serverUrl({ net_url: ' ws://10.0.0.2:7878/ ' }), 'ws://10.0.0.2:7878/');
  assert.equal(serverUrl({ net_url: '192.168.1.20:7878' }), 'ws://192.168.1.20:7878');
  assert.throws(() => serverUrl({ net_url: 'http://x' }), (e) => e.field === 'net_url');
  assert.throws(() => serverUrl({ net_url: '  ' }), (e) => e.field === 'net_url');
});

test('the LAN list keeps its Chaturaji tables, and the host line shows on the hosted table only', async () => {
  const { lanTables, hostedFor } = await import('../../ui/chaturaji-store.js');
  assert.equal(lanTables(null), null);
  assert.equal(lanTables({ browsing: false, searching: false, hosts: [] }), null, 'not browsing: no list');
  const chess = { id: 'a', name: 'Ana', chaturaji: false, compatible: true };
  const table = { id: 'b', name: 'Bea', chaturaji: true, compatible: true };
  assert.deepEqual(lanTables({ browsing: true, searching: true, hosts: [chess, table] }), { searching: true, hosts: [table] });
  let state = reduceChaturaji({ screen: 'menu' }, { type: 'chaturaji/open' });
  assert.equal(state.chaturaji.lanTables, null);
  assert.equal(state.chaturaji.setup.lan_name, '');
  state = reduceChaturaji(state, { type: 'chaturaji/lan-hosts', list: { browsing: true, searching: false, hosts: [chess] } });
  assert.deepEqual(state.chaturaji.lanTables, { searching: false, hosts: [] });
  const hosted = { name: 'Bea', address: '192.168.1.20:40123', room: 'ABCD2345', join_code: 'X' };
  state = reduceChaturaji(state, { type: 'chaturaji/hosted', hosted });
  assert.equal(hostedFor(state.chaturaji, { remote: { code: 'ABCD2345' } }), hosted);
  assert.equal(hostedFor(state.chaturaji, { remote: { code: 'ZZZZ2345' } }), null, 'another network table');
  assert.equal(hostedFor(state.chaturaji, { remote: null }), null, 'a table on this device');
  // Reopening the screen keeps the hosting (the table is still hosted), not the list.
  state = reduceChaturaji(state, { type: 'chaturaji/open' });
  assert.equal(state.chaturaji.hosted, hosted);
  assert.equal(state.chaturaji.lanTables, null);
});

test('the moves of every seat since the seat to move last had the dice', () => {
  const rolled = (seat) => ({ t: 'rolled', seat, dice: [] });
  const moved = (seat, from, to) => ({ t: 'moved', seat, role: 'pawn', mv: { from, to } });
  const log = [
    rolled('red'), moved('red', 'a2', 'a3'),
    rolled('blue'), moved('blue', 'b7', 'c7'), moved('blue', 'b6', 'c6'),
    rolled('yellow'),
    rolled('green'), moved('green', 'g4', 'f4'),
    rolled('red'), moved('red', 'b2', 'b3'),
    rolled('blue'), moved('blue', 'a8', 'b8'),
  ];
  // Red to move: since Red's last roll, Red and Blue moved (Blue's last), Yellow had no move.
  const shown = recentMoves({ log, to_move: 'red' }).map((e) => `${e.seat} ${e.mv.from}${e.mv.to}`);
  assert.deepEqual(shown, ['red b2b3', 'blue a8b8']);
  // Yellow to move: back to Yellow's previous roll, Green's and both later seats' last moves.
  const yellow = recentMoves({ log, to_move: 'yellow' }).map((e) => `${e.seat} ${e.mv.from}${e.mv.to}`);
  assert.deepEqual(yellow, ['green g4f4', 'red b2b3', 'blue a8b8']);
  assert.deepEqual(recentMoves({ log: [], to_move: 'red' }), []);
});

test('a roll no die of the person could use is kept to show, once, until tapped away', () => {
  const players = { red: { kind: 'person' }, blue: { kind: 'cpu' }, yellow: { kind: 'cpu' }, green: { kind: 'cpu' } };
  const table = (log) => ({ id: 1, settings: { players }, log });
  const rolled = (seat) => ({ t: 'rolled', seat, dice: [{ face: 4, class: 'elephant' }, { face: 2, class: 'boat' }] });
  const discard = (die, reason) => ({ t: 'die_discarded', die, face: die ? 2 : 4, reason });
  const stuck = [rolled('red'), discard(0, 'blocked'), discard(1, 'no_piece'), { t: 'turn_ended', seat: 'red' }];
  assert.deepEqual(stuckRoll(table([]), table(stuck)), {
    seat: 'red',
    dice: [{ face: 4, class: 'elephant', reason: 'blocked' }, { face: 2, class: 'boat', reason: 'no_piece' }],
  });
  // Already seen in the table before: not news.
  assert.equal(stuckRoll(table(stuck), table([...stuck, rolled('blue')])), null);
  // A CPU seat's stuck roll is not the person's to acknowledge.
  assert.equal(stuckRoll(table([]), table([rolled('blue'), discard(0, 'blocked'), discard(1, 'blocked')])), null);
  // A die used, or the turn ended on purpose: nothing to explain.
  const moved = { t: 'moved', seat: 'red', role: 'pawn', mv: { from: 'a2', to: 'a3' } };
  assert.equal(stuckRoll(table([]), table([rolled('red'), moved, discard(1, 'blocked')])), null);
  assert.equal(stuckRoll(table([]), table([rolled('red'), discard(0, 'declined'), discard(1, 'declined')])), null);
  // Through the reducer: kept across later pushes, cleared by the tap.
  let state = reduceChaturaji({ chaturaji: null }, { type: 'chaturaji/loaded', table: { ...table([]), version: 1, to_move: 'red', pieces: [], dice: null } });
  const after = { ...table(stuck), version: 2, to_move: 'blue', pieces: [], dice: null, cpu_to_move: true };
  state = reduceChaturaji(state, { type: 'chaturaji/loaded', table: after });
  assert.equal(state.chaturaji.stuck?.seat, 'red');
  state = reduceChaturaji(state, { type: 'chaturaji/loaded', table: { ...after, version: 3, log: [...stuck, rolled('blue')] } });
  assert.equal(state.chaturaji.stuck?.seat, 'red', 'still shown while the other seats play');
  state = reduceChaturaji(state, { type: 'chaturaji/stuck-seen' });
  assert.equal(state.chaturaji.stuck, null);
});

test('a tapped piece shows how it moves by the rules: blocked slides, jumps, pawn captures', () => {
  const piece = (square, seat, role) => ({ square, seat, role });
  const table = { pieces: [
    piece('c1', 'red', 'elephant'), piece('c3', 'red', 'pawn'), piece('f1', 'yellow', 'king'),
    piece('b1', 'red', 'horse'), piece('a1', 'red', 'boat'), piece('b2', 'blue', 'pawn'), piece('d4', 'green', 'pawn'),
  ] };
  const elephant = reachOf(table, 'c1');
  assert.deepEqual(elephant.moves.sort(), ['c2', 'd1', 'e1'], 'up to its own pawn, right up to the king');
  assert.deepEqual(elephant.captures, ['f1']);
  assert.deepEqual(reachOf(table, 'a1').moves, [], 'the boat\'s jump lands on its own pawn c3');
  assert.deepEqual(reachOf(table, 'b1').moves.sort(), ['a3', 'd2']);
  const pawn = reachOf(table, 'c3');
  assert.deepEqual(pawn.moves, ['c4']);
  assert.deepEqual(pawn.captures, ['d4'], 'diagonally ahead only');
  assert.deepEqual(reachOf({ pieces: [piece('b2', 'blue', 'pawn')] }, 'b2').moves, ['c2'], 'Blue\'s pawns go right');
  assert.equal(reachOf(table, 'h8'), null);
});
