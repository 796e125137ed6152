// Issue #20 item 7: sharing (the system share sheet where the web view has the Web Share API,
// else the clipboard with a visible "Copied"), the online room's QR code and join link, join links
// routed to the typed-code paths, and haptics only where the build has them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { installFakeDom, find, text } from './fakedom.mjs';

installFakeDom();
const { share, shareFrom, canShare, setNativeShare } = await import('../../ui/share.js');
const { initialState, reduce } = await import('../../ui/store.js');
const { renderNetGame } = await import('../../ui/views/netgame.js');
const { renderSettings } = await import('../../ui/views/settings.js');
const { linkActions } = await import('../../ui/links.js');
const { buzz, hapticFor, setHapticsAvailable } = await import('../../ui/haptics.js');
const { t: translate } = await import('../../ui/i18n.js');

const en = (key, params) => translate('en', key, params);

/** A navigator stand-in: `share` (or none), and a clipboard that records or refuses. */
function fakeNavigator({ share: sheet = null, clipboard = 'ok' } = {}) {
  const copied = [];
  const shared = [];
  const nav = {
    clipboard: {
      writeText: async (value) => {
        if (clipboard !== 'ok') throw new Error('denied');
        copied.push(value);
      },
    },
  };
  if (sheet) {
    nav.share = async (data) => {
      shared.push(data);
      if (sheet !== 'ok') throw Object.assign(new Error(sheet), { name: sheet });
    };
  }
  return { nav, copied, shared };
}

/** Installs `nav` as the page's navigator (what the views read to label their buttons). */
function useNavigator(nav) {
  Object.defineProperty(globalThis, 'navigator', { value: nav, configurable: true, writable: true });
}

function fakeStore(state = initialState('en')) {
  const store = { state, actions: [], dispatch(action) { store.actions.push(action); store.state = reduce(store.state, action); } };
  return store;
}

test('without a share sheet the text goes to the clipboard and the button says "Copied" for a while', async () => {
  const { nav, copied } = fakeNavigator();
  assert.equal(canShare(nav), false, "Android's WebView has no navigator.share");
  const store = fakeStore();
  const timers = [];
  const result = await shareFrom(store, 'copy-code', { title: 'T', text: 'ABCD2345' }, { nav, later: (fn, ms) => timers.push([fn, ms]) });
  assert.equal(result, 'copied');
  assert.deepEqual(copied, ['ABCD2345']);
  assert.deepEqual(store.state.flash, { target: 'copy-code', key: 'share.copied' });
  assert.equal(timers.length, 1);
  assert.ok(timers[0][1] >= 1000, 'long enough to be read');
  // Another control's clear does not take this confirmation away; its own does.
  store.dispatch({ type: 'flash/clear', target: 'pgn-copy' });
  assert.ok(store.state.flash);
  timers[0][0]();
  assert.equal(store.state.flash, null);
});

test('with a share sheet the sheet is used, a closed sheet copies nothing, a refused one falls back', async () => {
  let f = fakeNavigator({ share: 'ok' });
  assert.equal(canShare(f.nav), true);
  assert.equal(await share({ title: 'PGN', text: '1. e4 *' }, { nav: f.nav }), 'shared');
  assert.deepEqual(f.shared, [{ title: 'PGN', text: '1. e4 *' }]);
  assert.deepEqual(f.copied, [], 'the sheet shared it: nothing on the clipboard');
  const store = fakeStore();
  await shareFrom(store, 'pgn-copy', { title: 'PGN', text: 'x' }, { nav: f.nav, later: () => assert.fail('no confirmation to clear') });
  assert.equal(store.state.flash, null, 'the system sheet was the feedback');

  f = fakeNavigator({ share: 'AbortError' });
  assert.equal(await share({ title: 'PGN', text: 'x' }, { nav: f.nav }), 'cancelled');
  assert.deepEqual(f.copied, [], 'closing the sheet is not a request to copy');

  f = fakeNavigator({ share: 'NotAllowedError' });
  assert.equal(await share({ title: 'PGN', text: 'x' }, { nav: f.nav }), 'copied');
  assert.deepEqual(f.copied, ['x']);
});

test("Android's own share sheet (the shell's share_text) comes first; a refusal copies instead", async () => {
  const sent = [];
  const sheet = async (data) => { sent.push(data); };
  let f = fakeNavigator({ share: 'ok' });
  assert.equal(await share({ title: 'Room', text: 'ABCD2345' }, { nav: f.nav, native: sheet }), 'shared');
  assert.deepEqual(sent, [{ title: 'Room', text: 'ABCD2345' }]);
  assert.deepEqual(f.shared, [], 'the Web Share API is not asked as well');
  assert.deepEqual(f.copied, []);

  f = fakeNavigator();
  const refused = async () => { throw { code: 'share_failed', message: 'no app takes text' }; };
  assert.equal(await share({ title: 'Room', text: 'x' }, { nav: f.nav, native: refused }), 'copied');
  assert.deepEqual(f.copied, ['x']);

  // Installed from device_info (share_sheet: true), the buttons say "Share…" with no navigator.share.
  assert.equal(canShare(f.nav), false);
  setNativeShare(sheet);
  try {
    assert.equal(canShare(f.nav), true);
    const store = fakeStore();
    assert.equal(await shareFrom(store, 'pgn-copy', { title: 'PGN', text: '1. d4 *' }, { nav: f.nav, later: () => assert.fail('no confirmation') }), 'shared');
    assert.deepEqual(sent.at(-1), { title: 'PGN', text: '1. d4 *' });
    assert.equal(store.state.flash, null, 'the system sheet was the feedback');
  } finally {
    setNativeShare(null);
  }
  assert.equal(canShare(f.nav), false);
});

test('a refused clipboard tries the page fallback, and says so when nothing worked', async () => {
  const { nav } = fakeNavigator({ clipboard: 'denied' });
  let tried = 0;
  assert.equal(await share({ title: 'T', text: 'x' }, { nav, fallback: () => { tried += 1; return true; } }), 'copied');
  assert.equal(tried, 1);
  const store = fakeStore();
  const result = await shareFrom(store, 'analysis-copy', { title: 'T', text: 'x' }, { nav, fallback: () => false, later: () => {} });
  assert.equal(result, 'failed');
  assert.deepEqual(store.state.flash, { target: 'analysis-copy', key: 'share.failed' });
  assert.equal(await share({ title: 'T', text: 'x' }, { nav: undefined }), 'failed');
});

const seats = (blackTaken) => ({
  white: { taken: true, connected: true, pause_available: true, committed: false, revealed: false },
  black: { taken: blackTaken, connected: blackTaken, pause_available: true, committed: false, revealed: false },
});

function waitingView(over = {}) {
  const size = 25;
  const modules = Array.from({ length: size * size }, (_, i) => ((i * 7) % 3 === 0 ? '1' : '0')).join('');
  return {
    revision: 1, seq: 1, url: 'wss://play.example.org', link: { state: 'connected' }, server_version: '0.1.0', engine_version: '0.1.0',
    rtt_ms: null, code: 'ABCD2345', seat: 'white', variant: 'chess', time_control: null, hidden_setup: false,
    phase: 'waiting_for_opponent', seats: seats(false), clock: null, pause: null, draw_offer: null, result: null,
    game: null, my_turn: false, setup: 'none', notice: null,
    invite: { url: 'maharajah://join/ABCD2345?server=wss%3A%2F%2Fplay.example.org', qr: { size, modules } },
    ...over,
  };
}

test('the online room screen shows the QR code and the link of its invitation, and "Copied" beside the button', () => {
  useNavigator(fakeNavigator().nav);
  let state = reduce(initialState('en'), { type: 'net/view', view: waitingView(), open: true });
  const ctx = { t: en, intent: () => {} };
  let root = renderNetGame(state, ctx);
  assert.equal(text(find(root, 'room-code')), 'ABCD2345');
  const qr = find(root, 'net-qr');
  assert.ok(qr, 'a QR code');
  assert.equal(qr.attrs['data-size'], '25');
  assert.equal(qr.attrs.viewBox, '0 0 33 33', 'the matrix with its quiet zone');
  assert.match(qr.attrs['aria-label'], /ABCD2345/);
  const path = qr.children.find((c) => c.tag === 'path');
  const darkModules = waitingView().invite.qr.modules.split('').filter((m) => m === '1').length;
  assert.equal((path.attrs.d.match(/M/g) ?? []).length, darkModules, 'one square per dark module');
  assert.equal(text(find(root, 'net-invite-url')), 'maharajah://join/ABCD2345?server=wss%3A%2F%2Fplay.example.org');
  assert.equal(text(find(root, 'copy-code')), 'Copy code and link', 'no share sheet here: the clipboard');
  assert.equal(text(find(root, 'copy-code-flash')), '', 'the status line is there, empty, so nothing moves');
  state = reduce(state, { type: 'flash', target: 'copy-code', key: 'share.copied' });
  root = renderNetGame(state, ctx);
  assert.equal(text(find(root, 'copy-code-flash')), 'Copied');
  // Where the web view has a share sheet (iOS), the same button opens it.
  useNavigator(fakeNavigator({ share: 'ok' }).nav);
  assert.equal(text(find(renderNetGame(state, ctx), 'copy-code')), 'Share…');
  useNavigator(fakeNavigator().nav);
});

test('a LAN game and a room with its opponent seated show no invitation', () => {
  const ctx = { t: en, intent: () => {} };
  const lan = reduce(initialState('en'), { type: 'net/view', view: waitingView({ invite: null, url: 'ws://192.168.1.20:40123' }), open: true });
  let root = renderNetGame(lan, ctx);
  assert.equal(find(root, 'net-qr'), null);
  assert.equal(find(root, 'net-invite-url'), null);
  assert.equal(text(find(root, 'copy-code')), 'Copy code');
  const full = reduce(initialState('en'), { type: 'net/view', view: waitingView({ invite: null, phase: 'setup', seats: seats(true), hidden_setup: true, setup: 'build' }), open: true });
  root = renderNetGame(full, ctx);
  assert.equal(find(root, 'net-qr'), null);
});

test('sharing the room sends the code and the link through the share path', async () => {
  const { nav, copied } = fakeNavigator();
  useNavigator(nav);
  const { netEffects } = await import('../../ui/neteffects.js');
  const store = fakeStore(reduce(initialState('en'), { type: 'net/view', view: waitingView(), open: true }));
  await netEffects({ type: 'net/copy-code' }, store);
  assert.equal(copied.length, 1);
  assert.match(copied[0], /ABCD2345/);
  assert.match(copied[0], /maharajah:\/\/join\/ABCD2345\?server=/);
  assert.deepEqual(store.state.flash, { target: 'copy-code', key: 'share.copied' });
});

test('a join link becomes the typed-code intents: LAN code to the LAN join, room code to the Online join', () => {
  const state = initialState('en');
  assert.deepEqual(linkActions(null, state), []);
  const lan = linkActions({ text: 'maharajah://join/x', link: { kind: 'lan', code: 'AAAAAA-BBBBBB-CCCCCA' }, error: null }, state);
  assert.deepEqual(lan, [
    { type: 'navigate', screen: 'lan' },
    { type: 'lan/tab', tab: 'join' },
    { type: 'lan/field', key: 'code', value: 'AAAAAA-BBBBBB-CCCCCA' },
    { type: 'lan/join', target: { kind: 'code' } },
  ]);
  // The same server as the one set (or none named): joined at once, as a typed code and Join.
  const same = linkActions({ text: '', link: { kind: 'online', code: 'ABCD2345', server: 'ws://127.0.0.1:7878' }, error: null }, state);
  assert.deepEqual(same.map((a) => a.type), ['navigate', 'online/change', 'online/join']);
  assert.deepEqual(same[1], { type: 'online/change', key: 'code', value: 'ABCD2345' });
  assert.deepEqual(linkActions({ text: '', link: { kind: 'online', code: 'ABCD2345', server: null }, error: null }, state).map((a) => a.type),
    ['navigate', 'online/change', 'online/join']);
  // Another server: the form is filled and the screen names the server; the person presses Join.
  const other = linkActions({ text: '', link: { kind: 'online', code: 'ABCD2345', server: 'wss://elsewhere.example' }, error: null }, state);
  assert.ok(!other.some((a) => a.type === 'online/join'), 'not joined unseen');
  let s = other.reduce(reduce, state);
  assert.equal(s.screen, 'online');
  assert.equal(s.online.code, 'ABCD2345');
  assert.equal(s.online.tab, 'code', 'the Join by code tab shows the filled-in code');
  assert.equal(s.online.url, 'wss://elsewhere.example');
  assert.deepEqual(s.online.linked, { code: 'ABCD2345', server: 'wss://elsewhere.example' });
  s = reduce(s, { type: 'online/busy' });
  assert.equal(s.online.linked, null, 'pressing Join clears the notice');
  // A broken link is shown on the screen of its kind.
  const bad = linkActions({ text: 'maharajah://join/zz', link: null, error: { code: 'bad_link', message: 'm' } }, state);
  assert.deepEqual(bad, [{ type: 'navigate', screen: 'online' }, { type: 'online/error', error: { code: 'bad_link', message: 'm' } }]);
  const badLan = linkActions({ text: '', link: null, error: { code: 'bad_join_code', message: 'm' } }, state);
  assert.equal(badLan[0].screen, 'lan');
  assert.equal(badLan.at(-1).type, 'lan/error');
});

test('haptics: a light impact on a move, a notification on check and at the end, only where the build has them', () => {
  assert.deepEqual(hapticFor('move'), { impact: 'light' });
  assert.deepEqual(hapticFor('capture'), { impact: 'light' });
  assert.deepEqual(hapticFor('check'), { notification: 'warning' });
  assert.deepEqual(hapticFor('end'), { notification: 'success' });
  assert.equal(hapticFor(null), null);
  const asked = [];
  const calls = {
    hapticImpact: async (style) => { asked.push(['impact', style]); },
    hapticNotification: async (type) => { asked.push(['notification', type]); },
  };
  const settings = initialState('en').settings;
  assert.equal(settings.haptics, true, 'on by default');
  setHapticsAvailable(false);
  assert.equal(buzz('move', settings, calls), null, 'the desktop build: nothing asked');
  setHapticsAvailable(true);
  assert.equal(buzz('move', { ...settings, haptics: false }, calls), null, 'the setting turns it off');
  buzz('move', settings, calls);
  buzz('check', settings, calls);
  buzz('end', settings, calls);
  assert.deepEqual(asked, [['impact', 'light'], ['notification', 'warning'], ['notification', 'success']]);
  setHapticsAvailable(false);
});

test('the haptics setting is offered only where the build has haptics', () => {
  const ctx = { t: en, intent: () => {} };
  let state = initialState('en');
  assert.equal(find(renderSettings(state, ctx), 'setting-haptics'), null, 'nothing to turn off on the desktop');
  state = reduce(state, { type: 'device/loaded', device: { mobile: true, haptics: true } });
  const box = find(renderSettings(state, ctx), 'setting-haptics');
  assert.ok(box);
  assert.equal(box.attrs.checked, '');
});

test("the LAN host's card shares its join code and link the same way", async () => {
  const { nav, copied } = fakeNavigator();
  useNavigator(nav);
  const { renderLan } = await import('../../ui/views/lan.js');
  const { lanEffects } = await import('../../ui/lan.js');
  const hosting = {
    name: 'Ana', address: '192.168.1.20:40123', room: 'ABCD2345', join_code: 'AAAAAA-BBBBBB-CCCCCA',
    join_url: 'maharajah://join/AAAAAA-BBBBBB-CCCCCA', qr: { size: 21, modules: '1'.repeat(21 * 21) },
  };
  const store = fakeStore(reduce(initialState('en'), { type: 'lan/hosted', hosting }));
  const root = renderLan(store.state, { t: en, intent: () => {} });
  assert.ok(find(root, 'lan-qr'), 'the QR code moved to views/qr.js and is still drawn');
  assert.equal(text(find(root, 'lan-share')), 'Copy join code and link');
  await lanEffects({ type: 'lan/share' }, store);
  assert.equal(copied.length, 1);
  assert.match(copied[0], /AAAAAA-BBBBBB-CCCCCA/);
  assert.match(copied[0], /maharajah:\/\/join\/AAAAAA-BBBBBB-CCCCCA/);
  assert.deepEqual(store.state.flash, { target: 'lan-share', key: 'share.copied' });
  assert.equal(text(find(renderLan(store.state, { t: en, intent: () => {} }), 'lan-share-flash')), 'Copied');
});
