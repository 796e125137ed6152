// Issue 22, the host's side: when this device's announcement is refused (on iOS, the person
// refused the local-network prompt; elsewhere Bonjour or mDNS refused to publish) the hosted view
// carries `advert_problem: { code, message }`, and the hosting screen says guests will not see the
// game in their list, in the person's language, while the fallbacks (join code, QR code, address
// and room code) stay on the card. The Chaturaji table page says the same for a hosted table.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { installFakeDom, find, text } from './fakedom.mjs';

installFakeDom();
const { initialState, reduce } = await import('../../ui/store.js');
const { renderLan } = await import('../../ui/views/lan.js');
const { renderChaturaji } = await import('../../ui/views/chaturaji.js');
const { CATALOGUES, t: translate } = await import('../../ui/i18n.js');

const QR = { size: 21, modules: '1'.repeat(21 * 21) };

function hosting(advert_problem) {
  return {
    name: 'Ana', address: '192.168.1.20:40123', room: 'ABCD2345', join_code: 'ABCDEF-GHJKLM-NPQRST',
    join_url: 'maharajah://join/ABCDEF-GHJKLM-NPQRST', qr: QR, seat: 'white', variant: 'chess', hidden: false,
    advert_problem,
  };
}

function hostCard(advert_problem, language = 'en') {
  const s = reduce(initialState(language), { type: 'lan/hosted', hosting: hosting(advert_problem) });
  return renderLan(s, { t: (k, p) => translate(language, k, p), intent: () => {} });
}

test('a refused announcement is said on the hosting screen, with the fallbacks still there', () => {
  for (const code of ['lan_permission', 'lan_discovery']) {
    for (const language of ['en', 'es']) {
      const page = hostCard({ code, message: 'backend words' }, language);
      const line = find(page, 'lan-advert-problem');
      assert.ok(line, `${language}: ${code} shown`);
      assert.equal(line.attrs.role, 'alert');
      assert.equal(text(line), CATALOGUES[language][`lan.advert.${code}`], `${language}: ${code} from the catalogue`);
      assert.equal(find(page, 'lan-advertised'), null, `${language}: not "devices see this game"`);
      for (const id of ['lan-join-code', 'lan-qr', 'lan-address', 'lan-room', 'lan-stop']) {
        assert.ok(find(page, id), `${language}: fallback ${id}`);
      }
    }
  }
  assert.ok(CATALOGUES.en['lan.advert.lan_permission'].includes('Local Network'));
  assert.ok(CATALOGUES.es['lan.advert.lan_permission'].includes('Red local'));
  for (const language of ['en', 'es']) {
    for (const code of ['lan_permission', 'lan_discovery']) {
      const words = CATALOGUES[language][`lan.advert.${code}`];
      for (const fallback of language === 'en' ? ['join code', 'QR code', 'address and room code'] : ['código de unión', 'código QR', 'dirección y el código de sala']) {
        assert.ok(words.includes(fallback), `${language} ${code} names ${fallback}`);
      }
    }
  }
});

test('an announced game reads as before, and a later push replaces the card', () => {
  const page = hostCard(null);
  assert.equal(find(page, 'lan-advert-problem'), null);
  assert.equal(text(find(page, 'lan-advertised')), CATALOGUES.en['lan.advertised']);
  // The refusal pushed later (lan-hosted) is dispatched as lan/hosted: the card says it.
  let s = reduce(initialState('en'), { type: 'lan/hosted', hosting: hosting(null) });
  s = reduce(s, { type: 'lan/hosted', hosting: hosting({ code: 'lan_permission', message: 'x' }) });
  const later = renderLan(s, { t: (k, p) => translate('en', k, p), intent: () => {} });
  assert.ok(find(later, 'lan-advert-problem'));
  assert.equal(text(find(later, 'lan-join-code')), 'ABCDEF-GHJKLM-NPQRST');
});

function table() {
  return {
    id: 1, version: 3, to_move: 'red', cpu_to_move: false, outcome: null, round: 1,
    remote: { code: 'ABCD2345', seat: 'red', started: false, connected: true, seats: null, dice_alarm: null },
    settings: {
      round_limit: 50, dice: 'random',
      players: { red: { kind: 'person' }, blue: { kind: 'person' }, yellow: { kind: 'cpu', level: 'greedy' }, green: { kind: 'cpu', level: 'greedy' } },
    },
    pieces: [], kings: { red: true, blue: true, yellow: true, green: true },
    resigned: { red: false, blue: false, yellow: false, green: false },
    frozen: { red: false, blue: false, yellow: false, green: false },
    scores: { red: 0, blue: 0, yellow: 0, green: 0 }, log: [], can_end_turn: false, time_left_ms: null,
    dice: null,
  };
}

test('the hosted Chaturaji table says when the others cannot see it, next to its codes', () => {
  for (const language of ['en', 'es']) {
    const t = (k, p) => translate(language, k, p);
    let s = reduce(initialState(language), { type: 'chaturaji/open' });
    s = reduce(s, { type: 'chaturaji/loaded', table: table() });
    const { seat, variant, hidden, ...hosted } = hosting(null);
    s = reduce(s, { type: 'chaturaji/hosted', hosted });
    let page = renderChaturaji(s, { t, intent: () => {} });
    assert.ok(find(page, 'cj-hosted'), 'the hosting line');
    assert.equal(find(page, 'cj-advert-problem'), null, 'announced: nothing to say');
    s = reduce(s, { type: 'chaturaji/hosted', hosted: { ...hosted, advert_problem: { code: 'lan_permission', message: 'x' } } });
    page = renderChaturaji(s, { t, intent: () => {} });
    const line = find(page, 'cj-advert-problem');
    assert.ok(line, language);
    assert.equal(line.attrs.role, 'alert');
    assert.equal(text(line), CATALOGUES[language]['cj.lan.advert.lan_permission']);
    assert.match(text(find(page, 'cj-hosted')), /ABCDEF-GHJKLM-NPQRST/, 'the join code stays');
  }
  for (const language of ['en', 'es']) assert.ok(CATALOGUES[language]['cj.lan.advert.lan_discovery'], language);
});
