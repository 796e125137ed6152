// Issue #18, the app's Online screen: the four tabs (the old create/join flow under "Join by
// code"), the player's name form and ratings, the lobby's challenge list with accept and cancel,
// Play now's wait, the unreachable server, the recovery code behind a confirmation, the rating
// change at the end of a rated game, and a spectator's view without actions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { installFakeDom, find, text } from './fakedom.mjs';

installFakeDom();
const { initialState, reduce } = await import('../../ui/store.js');
const { matchBanner, renderOnline } = await import('../../ui/views/online.js');
const { renderNetGame } = await import('../../ui/views/netgame.js');
const net = await import('../../ui/net.js');
const { CATALOGUES, t: translate } = await import('../../ui/i18n.js');

const t = (key, params) => translate('en', key, params);
function recorder() {
  const seen = [];
  return { seen, intent: (action) => seen.push(action) };
}

const KEY = 'ab'.repeat(32);
function lobbyView(over = {}) {
  return {
    revision: 1, url: 'ws://10.0.0.2:7878/', link: { state: 'connected' },
    identity: { key: KEY, code_shown: true },
    player: { key: KEY, name: 'Alice', ratings: [{ game: 'chess', speed: 'blitz', rating: 1512, deviation: 80, provisional: false, games: 12 }] },
    identity_refused: null,
    challenges: [
      { id: 7, game: 'maharajah', time_control: { base_ms: 300000, increment_ms: 3000 }, rated: true, color: 'random', creator: 'Bob', rating: 1600, provisional: true, mine: false },
      { id: 9, game: 'chess', time_control: null, rated: false, color: 'white', creator: 'Alice', rating: 1512, mine: true },
    ],
    seeking: null, matched: null,
    ...over,
  };
}

function onlineState(view, over = {}) {
  let s = reduce(initialState('en'), { type: 'settings/loaded', settings: { serverUrl: 'ws://10.0.0.2:7878/' } });
  s = reduce(s, { type: 'online/open' });
  if (view) s = reduce(s, { type: 'lobby/view', view });
  return { ...s, online: { ...s.online, ...over } };
}

test('the Online screen has four tabs, Lobby first; the old create and join flow is under Join by code', () => {
  const { seen, intent } = recorder();
  let page = renderOnline(onlineState(lobbyView()), { t, intent });
  const tabs = find(page, 'online-tabs');
  assert.deepEqual(tabs.children.map((b) => b.attrs.id), ['online-tab-lobby', 'online-tab-play', 'online-tab-watch', 'online-tab-code']);
  assert.equal(find(page, 'online-tab-lobby').attrs['aria-selected'], 'true');
  assert.equal(find(page, 'create-room'), null);
  find(page, 'online-tab-code').click();
  assert.deepEqual(seen, [{ type: 'online/tab', tab: 'code' }]);
  page = renderOnline(reduce(onlineState(lobbyView()), seen[0]), { t, intent });
  assert.ok(find(page, 'create-room'));
  assert.ok(find(page, 'join-code'));
  assert.equal(find(page, 'lobby-list'), null);
});

test('the lobby lists others first with Play, ours with Cancel; the player shows name and ratings', () => {
  const { seen, intent } = recorder();
  const page = renderOnline(onlineState(lobbyView()), { t, intent });
  assert.equal(text(find(page, 'online-player-name')), 'Alice');
  assert.match(text(find(page, 'online-ratings')), /Chess · blitz 1512/);
  const list = find(page, 'lobby-list');
  assert.deepEqual(list.children.map((li) => li.attrs['data-id']), ['7', '9']);
  assert.match(text(list.children[0]), /Maharajah 5\+3.*Bob \(1600\?\).*rated/);
  assert.match(text(list.children[1]), /Chess ∞.*casual · White/);
  find(page, 'lobby-accept-7').click();
  find(page, 'lobby-cancel-9').click();
  assert.equal(find(page, 'lobby-accept-9'), null, 'our own challenge is not accepted by us');
  find(page, 'lobby-create').click();
  assert.deepEqual(seen, [{ type: 'lobby/accept', id: 7 }, { type: 'lobby/cancel', id: 9 }, { type: 'lobby/create' }]);
  // The form's challenge: game, clock, rated, colour.
  const s = onlineState(lobbyView(), { variant: 'horde', timeControl: '3+2', rated: true, color: 'black' });
  assert.deepEqual(net.challengeArgs(s.online), { game: 'horde', time_control: { base_ms: 180000, increment_ms: 2000 }, rated: true, color: 'black' });
});

test('a player without a name gets the name form; a refused name shows its reason', () => {
  const { seen, intent } = recorder();
  const noName = lobbyView({ player: { key: KEY, name: null, ratings: [] }, identity: { key: KEY, code_shown: false } });
  let s = onlineState(noName);
  let page = renderOnline(s, { t, intent });
  assert.ok(find(page, 'online-name'));
  find(page, 'name-form').listeners.submit[0]({ preventDefault() {} });
  assert.deepEqual(seen, [{ type: 'lobby/name' }]);
  // Not yet shown: the recovery code is offered, behind a confirmation.
  find(page, 'online-show-code').click();
  assert.deepEqual(seen[1], { type: 'dialog', dialog: 'recovery-confirm' });
  s = reduce(s, { type: 'online/error', error: { code: 'name_taken', message: 'the name is taken' } });
  page = renderOnline(s, { t, intent });
  assert.equal(find(page, 'online-error').attrs['data-code'], 'name_taken');
  assert.match(text(find(page, 'online-error')), /looks like it, is taken/);
  s = reduce(s, { type: 'online/error', error: { code: 'invalid_name', message: 'a name has 3 to 20 characters' } });
  assert.match(text(find(renderOnline(s, { t, intent }), 'online-error')), /not allowed.*3 to 20/);
});

test('the recovery code shows only after the confirmation, and goes with the dialog', () => {
  const { seen, intent } = recorder();
  let s = onlineState(lobbyView());
  s = reduce(s, { type: 'dialog', dialog: 'recovery-confirm' });
  let page = renderOnline(s, { t, intent });
  assert.ok(find(page, 'recovery-confirm'));
  assert.equal(find(page, 'recovery-code-text'), null);
  find(page, 'recovery-confirm-yes').click();
  assert.deepEqual(seen, [{ type: 'identity/show-code' }]);
  s = reduce(reduce(s, { type: 'dialog', dialog: null }), { type: 'lobby/recovery', code: 'ABCD-EFGH' });
  page = renderOnline(s, { t, intent });
  assert.equal(text(find(page, 'recovery-code-text')), 'ABCD-EFGH');
  s = reduce(s, { type: 'lobby/recovery', code: null });
  assert.equal(find(renderOnline(s, { t, intent }), 'recovery-code-text'), null);
  // Taking another identity over asks first too.
  s = reduce(s, { type: 'dialog', dialog: 'recover-confirm' });
  assert.match(text(find(renderOnline(s, { t, intent }), 'recover-confirm')), /is lost/);
});

test('Play now waits with a cancel; an unreachable server says so with a retry', () => {
  const { seen, intent } = recorder();
  const seeking = { game: 'chess', time_control: { base_ms: 180000, increment_ms: 2000 }, rated: true, rating: 1512 };
  let page = renderOnline(onlineState(lobbyView({ seeking }), { tab: 'play' }), { t, intent });
  assert.match(text(find(page, 'play-now-waiting')), /Looking for an opponent: Chess 3\+2, rating 1512/);
  find(page, 'play-now-cancel').click();
  page = renderOnline(onlineState(lobbyView(), { tab: 'play' }), { t, intent });
  assert.match(text(page), /about your rating \(1512\)/);
  find(page, 'play-now').click();
  assert.deepEqual(seen, [{ type: 'lobby/cancel-play-now' }, { type: 'lobby/play-now' }]);
  assert.deepEqual(net.playNowArgs({ ...net.newOnline(), timeControl: 'none' }).timeControl, { base_ms: 300000, increment_ms: 3000 }, 'pairing needs a clock');
  const down = lobbyView({ link: { state: 'unreachable', code: 'connect_failed', message: 'refused' } });
  page = renderOnline(onlineState(down), { t, intent });
  assert.match(text(find(page, 'lobby-unreachable')), /ws:\/\/10\.0\.0\.2:7878\/ cannot be reached/);
  find(page, 'lobby-connect').click();
  assert.deepEqual(seen.at(-1), { type: 'lobby/open' });
  assert.equal(find(page, 'lobby-list'), null);
});

test('an older lobby view never replaces a newer one', () => {
  const s = onlineState(lobbyView({ revision: 5 }));
  const stale = reduce(s, { type: 'lobby/view', view: lobbyView({ revision: 4, challenges: [] }) });
  assert.equal(stale.online.lobby.challenges.length, 2);
});

test('speed classes and ratings follow the server: base + 40 × increment', () => {
  assert.equal(net.speedOf({ base_ms: 60000, increment_ms: 0 }), 'bullet');
  assert.equal(net.speedOf({ base_ms: 180000, increment_ms: 2000 }), 'blitz');
  assert.equal(net.speedOf({ base_ms: 600000, increment_ms: 5000 }), 'rapid');
  assert.equal(net.speedOf(null), 'classical');
  assert.deepEqual(net.ratingOf(lobbyView().player, 'chess', { base_ms: 300000, increment_ms: 3000 }), { rating: 1512, provisional: false, games: 12 });
  assert.deepEqual(net.ratingOf(null, 'horde', null), { rating: 1500, provisional: true, games: 0 });
});

const seats = { white: { taken: true, connected: true, pause_available: true, committed: false, revealed: false }, black: { taken: true, connected: true, pause_available: true, committed: false, revealed: false } };
function netView(over = {}) {
  return {
    revision: 1, url: 'ws://10.0.0.2:7878/', link: { state: 'connected' }, server_version: '0.1.0', engine_version: '0.1.0',
    rtt_ms: 3, code: 'ABCDEFGH', seat: 'white', variant: 'chess', time_control: { base_ms: 300000, increment_ms: 0 },
    hidden_setup: false, phase: 'finished', seats, clock: null, pause: null, draw_offer: null,
    result: { winner: 'black', outcome: 'black_wins', reason: 'checkmate' }, my_turn: false, setup: 'none', notice: null,
    game: {
      id: 0, variant: 'chess', opponent: { kind: 'human' }, fen: 'x', history: ['f3', 'e5', 'g4', 'Qh4#'],
      board: { pieces: [], last_move: null, check: 'e1', turn: 'white', ply: 4 },
      legal: [], captured: { white: [], black: [] }, material: 0, claimable: null, draw_offer: null, result: null, clock: null, thinking: false, statuses: null,
    },
    ratings_changed: {
      white: { player: KEY, game: 'chess', speed: 'blitz', before: 1512, after: 1500, deviation: 80, provisional: false },
      black: { player: 'cd'.repeat(32), game: 'chess', speed: 'blitz', before: 1500, after: 1512, deviation: 90, provisional: true },
    },
    watching: false,
    ...over,
  };
}

test('the end of a rated game shows our rating change', () => {
  assert.deepEqual(net.myRatingChange(netView()), { before: 1512, after: 1500, diff: '−12', provisional: false });
  assert.equal(net.myRatingChange(netView({ seat: 'black' })).diff, '+12');
  assert.equal(net.myRatingChange(netView({ ratings_changed: null })), null);
  const state = reduce(initialState('en'), { type: 'net/view', view: netView(), open: true });
  const page = renderNetGame(state, { t, intent: () => {} });
  assert.equal(text(find(page, 'net-rating-change')), 'Rating −12 → 1500');
  assert.equal(text(find(page, 'net-result-rating')), 'Rating −12 → 1500');
  const black = reduce(initialState('en'), { type: 'net/view', view: netView({ seat: 'black' }), open: true });
  assert.equal(text(find(renderNetGame(black, { t, intent: () => {} }), 'net-rating-change')), 'Rating +12 → 1512 (provisional)');
});

test('a spectator sees the board without actions', () => {
  const view = netView({ seat: null, watching: true, phase: 'playing', result: null, ratings_changed: null });
  const state = reduce(initialState('en'), { type: 'net/view', view, open: true });
  assert.ok(state.game, 'the board is drawn from White\'s side');
  const page = renderNetGame(state, { t, intent: () => {} });
  assert.ok(find(page, 'net-watching'));
  assert.equal(find(page, 'net-resign'), null);
  assert.equal(find(page, 'net-offer-draw'), null);
  assert.ok(find(page, 'flip'));
});

test('every lobby string is in Spanish too', () => {
  const keys = Object.keys(CATALOGUES.en).filter((k) => /^(lobby\.|online\.tab\.|speed\.|net\.rating|net\.watching)/.test(k));
  assert.ok(keys.length > 40);
  for (const key of keys) assert.ok(key in CATALOGUES.es, key);
});

test('the leaderboard lists names that open profiles; a profile lists games with their PGN', () => {
  const { seen, intent } = recorder();
  let s = onlineState(lobbyView());
  s = reduce(s, { type: 'lobby/board', board: { game: 'chess', speed: 'blitz', players: [{ name: 'Bob', rating: 1612, deviation: 60, provisional: false, games: 30 }, { name: 'Alice', rating: 1512, deviation: 80, provisional: true, games: 2 }] } });
  let page = renderOnline(s, { t, intent });
  assert.deepEqual(find(page, 'board-list').children.map((li) => li.attrs['data-name']), ['Bob', 'Alice']);
  assert.match(text(find(page, 'board-list').children[1]), /Alice 1512\? · 2 games/);
  find(page, 'board-player-0').click();
  find(page, 'online-my-profile').click();
  assert.deepEqual(seen, [{ type: 'lobby/open-profile', name: 'Bob' }, { type: 'lobby/open-profile', name: 'Alice' }]);
  const profile = {
    name: 'Alice', ratings: lobbyView().player.ratings,
    games: [{ id: 41, code: 'ABCDEFGH', game: 'chess', time_control: { base_ms: 300000, increment_ms: 0 }, rated: true, opponents: [{ name: 'Bob', rating: 1600 }], result: 'loss', rating: { before: 1524, after: 1512 }, ended_ms: 1 }],
  };
  s = reduce(s, { type: 'lobby/profile', profile });
  page = renderOnline(s, { t, intent });
  assert.match(text(find(page, 'profile-games')), /Chess 5\+0 · against Bob · lost \(−12\)/);
  find(page, 'profile-pgn-41').click();
  assert.deepEqual(seen.at(-1), { type: 'lobby/save-pgn', id: 41 });
  s = reduce(s, { type: 'lobby/pgn', path: '/data/maharajah-online-41.pgn' });
  assert.match(text(find(renderOnline(s, { t, intent }), 'profile-pgn-saved')), /maharajah-online-41\.pgn/);
  s = reduce(s, { type: 'lobby/profile', profile: null });
  assert.equal(find(renderOnline(s, { t, intent }), 'profile'), null);
});

test('the Watch tab lists the games playing now; a full room cannot be watched', () => {
  const { seen, intent } = recorder();
  let s = onlineState(lobbyView(), { tab: 'watch' });
  s = reduce(s, { type: 'lobby/live', games: [
    { code: 'ROOMAAAA', game: 'horde', time_control: null, rated: false, players: [{ name: 'Ann', rating: 1500 }, { name: null }], ply: 12, spectators: 3, full: false },
    { code: 'ROOMBBBB', game: 'chess', time_control: { base_ms: 180000, increment_ms: 2000 }, rated: true, players: [{ name: 'Cy', rating: 1700 }, { name: 'Di', rating: 1690 }], ply: 3, spectators: 50, full: true },
  ] });
  const page = renderOnline(s, { t, intent });
  const list = find(page, 'playing-now');
  assert.match(text(list.children[0]), /Horde ∞.*Ann \(1500\) – Guest.*move 12 · 3 watching/);
  assert.ok('disabled' in find(page, 'watch-room-ROOMBBBB').attrs, 'a full room');
  assert.ok(!('disabled' in find(page, 'watch-room-ROOMAAAA').attrs));
  find(page, 'watch-room-ROOMAAAA').click();
  find(page, 'playing-now-refresh').click();
  assert.deepEqual(seen, [{ type: 'online/watch-room', code: 'ROOMAAAA' }, { type: 'lobby/playing-now' }]);
});

test('after the end: Rematch, the opponent\'s offer to accept, our own offer waiting', () => {
  const { seen, intent } = recorder();
  const open = (over) => renderNetGame(reduce(initialState('en'), { type: 'net/view', view: netView(over), open: true }), { t, intent });
  let page = open({ rematch_offer: null });
  find(page, 'net-rematch').click();
  assert.deepEqual(seen, [{ type: 'net/rematch' }]);
  assert.ok(find(page, 'net-result-rematch'), 'the result dialog offers it too');
  page = open({ rematch_offer: 'black' });
  assert.match(text(find(page, 'net-rematch-offered')), /offers a rematch/);
  assert.equal(text(find(page, 'net-rematch')), 'Accept the rematch');
  page = open({ rematch_offer: 'white' });
  assert.equal(find(page, 'net-rematch'), null);
  assert.match(text(find(page, 'net-rematch-waiting')), /waiting for your opponent/);
  assert.equal(find(open({ result: null, phase: 'playing' }), 'net-rematch'), null, 'not during the game');
});

test('Chaturaji tables in the lobby: people joined of wanted and the wait; join, ours marked, or cancel', () => {
  const { seen, intent } = recorder();
  const table = (id, joined, over = {}) => ({
    id, game: 'chaturaji', time_control: { base_ms: 0, increment_ms: 30000 }, rated: false, color: 'random',
    creator: 'Bob', rating: 1500, provisional: true, table: { people: 4, joined, cpu_after_s: 60 }, mine: false, seated: false, ...over,
  });
  const view = lobbyView({ challenges: [table(3, 2), table(4, 3, { seated: true, time_control: null }), table(5, 1, { creator: 'Alice', mine: true, seated: true })] });
  const page = renderOnline(onlineState(view), { t, intent });
  const list = find(page, 'lobby-list');
  assert.match(text(list.children[0]), /Chaturaji 30 s a turn.*Bob \(1500\?\).*casual · 2 of 4 people · computers after 60 s/);
  assert.match(text(list.children[1]), /Chaturaji no turn limit.*3 of 4 people/);
  assert.equal(find(page, 'lobby-accept-3'), null, 'a table is joined, not accepted as a chess challenge');
  find(page, 'lobby-join-3').click();
  assert.equal(text(find(page, 'lobby-seated-4')), 'You sit here');
  assert.equal(find(page, 'lobby-join-4'), null, 'no second seat at a table we sit at');
  find(page, 'lobby-leave-4').click();
  find(page, 'lobby-cancel-5').click();
  assert.equal(find(page, 'lobby-seated-5'), null, 'our own table is cancelled for all');
  assert.equal(find(page, 'lobby-leave-5'), null, 'and not left');
  assert.deepEqual(seen, [{ type: 'lobby/join-table', id: 3 }, { type: 'lobby/cancel', id: 4 }, { type: 'lobby/cancel', id: 5 }]);
  // Spanish too.
  const es = (key, params) => translate('es', key, params);
  assert.match(text(find(renderOnline(onlineState(view), { t: es, intent }), 'lobby-table-3')), /2 de 4 personas · ordenador a los 60 s/);
});

test('posting a Chaturaji table: turn time, people and the wait instead of clock and colour', () => {
  const { seen, intent } = recorder();
  let s = onlineState(lobbyView(), { variant: 'chaturaji' });
  let page = renderOnline(s, { t, intent });
  assert.equal(find(page, 'online-color'), null, 'no colour for a table');
  assert.equal(find(page, 'online-time'), null, 'a turn time, not a chess clock');
  assert.equal(find(page, 'online-variant-chaturaji').attrs.checked, '');
  assert.equal(find(page, 'online-people-4').attrs.checked, '', 'four people by default');
  assert.equal(find(page, 'online-wait-60').attrs.checked, '', 'a minute by default');
  assert.equal(find(page, 'online-wait-15').attrs.checked, undefined);
  find(page, 'online-people-3').listeners.change[0]();
  find(page, 'online-wait-15').listeners.change[0]();
  find(page, 'online-turn-30').listeners.change[0]();
  assert.deepEqual(seen, [
    { type: 'online/change', key: 'people', value: 3 },
    { type: 'online/change', key: 'cpuAfter', value: 15 },
    { type: 'online/change', key: 'turnTime', value: '30' },
  ]);
  for (const a of seen) s = reduce(s, a);
  assert.deepEqual(net.challengeArgs({ ...s.online, rated: true }), {
    game: 'chaturaji', time_control: { base_ms: 0, increment_ms: 30000 }, rated: true, color: 'random',
    table: { people: 3, cpu_after_s: 15 },
  });
  assert.deepEqual(net.challengeArgs({ ...s.online, turnTime: 'none' }).time_control, null, 'no turn limit');
  // Play now: the wait, no people count (the queue fills tables), the clock as a turn time.
  s = { ...s, online: { ...s.online, tab: 'play' } };
  page = renderOnline(s, { t, intent });
  assert.equal(find(page, 'online-people'), null);
  assert.match(text(page), /after 15 s the computer takes the empty seats/);
  assert.deepEqual(net.playNowArgs(s.online), { game: 'chaturaji', timeControl: { base_ms: 0, increment_ms: 30000 }, rated: false, cpuAfterS: 15 });
  assert.deepEqual(net.playNowArgs({ ...s.online, turnTime: 'none' }).timeControl, { base_ms: 0, increment_ms: 0 });
  const seeking = { game: 'chaturaji', time_control: { base_ms: 0, increment_ms: 60000 }, rated: false, rating: 1500 };
  page = renderOnline(onlineState(lobbyView({ seeking }), { tab: 'play' }), { t, intent });
  assert.match(text(find(page, 'play-now-waiting')), /Chaturaji table \(60 s a turn\)/);
});

test('a lobby table that starts opens the Chaturaji screen on it', () => {
  const s = reduce(onlineState(lobbyView()), { type: 'navigate', screen: 'online' });
  const table = { id: -1, version: 3, remote: { code: 'ABCD2345', seat: 'blue', started: true } };
  const next = reduce(s, { type: 'chaturaji/entered', table });
  assert.equal(next.screen, 'chaturaji');
  assert.equal(next.chaturaji.page, 'table');
  assert.equal(next.chaturaji.table.remote.code, 'ABCD2345');
  assert.equal(next.chaturaji.facing, 'blue', 'the board faces our seat');
});

test('Chaturaji picked in the lobby leaves rooms by code to the chess variants', () => {
  const online = { ...net.newOnline(), variant: 'chaturaji' };
  assert.equal(net.createArgs(online).variant, 'chess');
  const page = renderOnline(onlineState(lobbyView(), { variant: 'chaturaji', tab: 'code' }), { t, intent: () => {} });
  assert.equal(find(page, 'online-variant-chess').attrs.checked, '');
  assert.equal(find(page, 'online-variant-chaturaji'), null);
});

test('a match that starts over a game waits behind a banner; from the lobby or a menu it opens at once', () => {
  assert.ok(net.matchOpensFrom('online') && net.matchOpensFrom('menu') && net.matchOpensFrom('settings'));
  for (const screen of ['game', 'builder', 'analysis', 'chaturaji', 'lan', 'netgame']) {
    assert.equal(net.matchOpensFrom(screen), false, `not over ${screen}`);
  }
  const { seen, intent } = recorder();
  let s = { ...onlineState(lobbyView()), screen: 'game' };
  assert.equal(matchBanner(s, { t, intent }), null, 'no match, no banner');
  s = reduce(s, { type: 'lobby/match-waiting', game: 'chess' });
  let banner = matchBanner(s, { t, intent });
  assert.equal(banner.attrs.role, 'alert');
  assert.match(text(banner), /Your online game has started.*Open/);
  find(banner, 'match-open').click();
  assert.deepEqual(seen, [{ type: 'lobby/open-match', game: 'chess' }]);
  s = reduce(s, seen[0]);
  assert.equal(matchBanner(s, { t, intent }), null, 'gone once opened');
  // A Chaturaji table, in Spanish; never on the Online or network game screens themselves.
  s = reduce(s, { type: 'lobby/match-waiting', game: 'chaturaji' });
  const es = (key, params) => translate('es', key, params);
  assert.match(text(matchBanner({ ...s, screen: 'builder' }, { t: es, intent })), /Tu mesa de Chaturaji ha empezado.*Abrir/);
  assert.equal(matchBanner({ ...s, screen: 'online' }, { t, intent }), null);
  assert.equal(matchBanner({ ...s, screen: 'netgame' }, { t, intent }), null);
});
