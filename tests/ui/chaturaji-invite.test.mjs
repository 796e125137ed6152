// Issue 20, item 7, for Chaturaji: a table waiting for people invites as a chess room does — an
// online table with a `maharajah://join/CODE?server=…&game=chaturaji` link and its QR code, a
// table hosted on the Wi-Fi with its join code's link — and a share/copy button; such a link
// opens the Chaturaji setup with the code (and server) filled in and named, for the person to join.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { installFakeDom, find, text } from './fakedom.mjs';

installFakeDom();
const { initialState, reduce } = await import('../../ui/store.js');
const { renderChaturaji } = await import('../../ui/views/chaturaji.js');
const { chaturajiInviteText } = await import('../../ui/chaturaji-store.js');
const { linkActions } = await import('../../ui/links.js');
const { CATALOGUES, t: translate } = await import('../../ui/i18n.js');

const QR = { size: 21, modules: '10'.repeat(220) + '1' };
const ONLINE_URL = 'maharajah://join/ABCD2345?server=ws%3A%2F%2F10.0.0.2%3A7878&game=chaturaji';
const LAN_URL = 'maharajah://join/ABCDEF-GHJKLM-NPQRST?game=chaturaji';

function table(remote) {
  return {
    id: 7, version: 3, to_move: 'red', cpu_to_move: false, outcome: null, round: 1,
    remote: { code: 'ABCD2345', seat: 'red', started: false, connected: true, seats: null, dice_alarm: null, invite: null, ...remote },
    settings: {
      round_limit: 50, dice: 'cubic',
      players: { red: { kind: 'person' }, blue: { kind: 'person' }, yellow: { kind: 'cpu', level: 'greedy' }, green: { kind: 'cpu', level: 'greedy' } },
    },
    pieces: [], kings: { red: true, blue: true, yellow: true, green: true },
    resigned: { red: false, blue: false, yellow: false, green: false },
    frozen: { red: false, blue: false, yellow: false, green: false },
    scores: { red: 0, blue: 0, yellow: 0, green: 0 }, log: [], can_end_turn: false, time_left_ms: null,
    dice: null,
  };
}

const page = (s, language = 'en') => renderChaturaji(s, { t: (k, p) => translate(language, k, p), intent: () => {} });

test('an online table waiting for people shows its link, its QR code and a share button; a started one does not', () => {
  for (const language of ['en', 'es']) {
    let s = reduce(initialState(language), { type: 'chaturaji/open' });
    s = reduce(s, { type: 'chaturaji/loaded', table: table({ invite: { url: ONLINE_URL, qr: QR } }) });
    const root = page(s, language);
    assert.equal(text(find(root, 'cj-invite-url')), ONLINE_URL);
    const qr = find(root, 'cj-invite-qr');
    assert.ok(qr, 'a QR code');
    assert.equal(qr.attrs['data-size'], '21');
    assert.match(qr.attrs['aria-label'], /ABCD2345/);
    assert.ok(find(root, 'cj-share'), 'a share or copy button');
    const words = chaturajiInviteText(s.chaturaji, (k, p) => translate(language, k, p));
    assert.ok(words.includes('ABCD2345') && words.includes(ONLINE_URL), words);
    // Every seat taken: the invitation goes.
    s = reduce(s, { type: 'chaturaji/loaded', table: { ...table({ started: true, invite: null }), version: 4 } });
    assert.equal(find(page(s, language), 'cj-invite'), null);
    assert.equal(chaturajiInviteText(s.chaturaji, (k) => k), null);
  }
});

test("a table hosted here invites with its join code's Chaturaji link", () => {
  let s = reduce(initialState('en'), { type: 'chaturaji/open' });
  s = reduce(s, { type: 'chaturaji/loaded', table: table({}) });
  s = reduce(s, {
    type: 'chaturaji/hosted',
    hosted: { name: 'Ana', address: '192.168.1.20:40123', room: 'ABCD2345', join_code: 'ABCDEF-GHJKLM-NPQRST', join_url: LAN_URL, qr: QR, advert_problem: null },
  });
  const root = page(s);
  assert.equal(text(find(root, 'cj-lan-invite-url')), LAN_URL);
  assert.ok(find(root, 'cj-lan-invite-qr'));
  assert.equal(find(root, 'cj-invite'), null, 'one invitation: the join code is it');
  const words = chaturajiInviteText(s.chaturaji, (k, p) => translate('en', k, p));
  assert.ok(words.includes('ABCDEF-GHJKLM-NPQRST') && words.includes(LAN_URL), words);
});

test('a Chaturaji link opens the setup with its code and server filled in and named, not joined unseen', () => {
  const state = initialState('en');
  const link = { kind: 'chaturaji_online', code: 'ABCD2345', server: 'ws://10.0.0.2:7878' };
  const actions = linkActions({ text: ONLINE_URL, link, error: null }, state);
  assert.deepEqual(actions, [{ type: 'navigate', screen: 'chaturaji' }, { type: 'chaturaji/linked', link }]);
  assert.ok(!actions.some((a) => a.type === 'chaturaji/net-join'), 'the person presses Join');
  let s = actions.reduce(reduce, state);
  s = reduce(s, { type: 'chaturaji/setup' });
  assert.equal(s.screen, 'chaturaji');
  assert.equal(s.chaturaji.setup.net_code, 'ABCD2345');
  assert.equal(s.chaturaji.setup.net_url, 'ws://10.0.0.2:7878');
  let root = page(s);
  assert.match(text(find(root, 'cj-linked')), /ABCD2345.*ws:\/\/10\.0\.0\.2:7878/);
  assert.equal(find(root, 'cj-net-code').attrs.value, 'ABCD2345');
  // A LAN table's link fills the join code; opening a table clears the notice.
  const lan = { kind: 'chaturaji_lan', code: 'ABCDEF-GHJKLM-NPQRST' };
  s = linkActions({ text: LAN_URL, link: lan, error: null }, s).reduce(reduce, s);
  s = reduce(s, { type: 'chaturaji/setup' });
  assert.equal(s.chaturaji.setup.lan_code, 'ABCDEF-GHJKLM-NPQRST');
  root = page(s, 'es');
  assert.equal(text(find(root, 'cj-linked')), translate('es', 'cj.linked.lan', { code: 'ABCDEF-GHJKLM-NPQRST' }));
  s = reduce(s, { type: 'chaturaji/loaded', table: table({}) });
  assert.equal(s.chaturaji.linked, null);
  for (const key of ['cj.invite.text', 'cj.invite.lanText', 'cj.invite.qr', 'cj.invite.caption', 'cj.invite.copy', 'cj.linked.online', 'cj.linked.server', 'cj.linked.lan']) {
    for (const language of ['en', 'es']) assert.ok(CATALOGUES[language][key], `${language}: ${key}`);
  }
});
