// Issue #20 item 8, "menu and learning path": where a newcomer starts, what "Play the computer"
// offers, the learning path's steps, what Online says without a server, and About.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { installFakeDom, find, text } from './fakedom.mjs';

installFakeDom();
const { initialState, reduce } = await import('../../ui/store.js');
const { renderMenu } = await import('../../ui/views/menu.js');
const { renderSetup } = await import('../../ui/views/setup.js');
const { renderLearn } = await import('../../ui/views/learn.js');
const { renderOnline } = await import('../../ui/views/online.js');
const { renderAbout } = await import('../../ui/views/about.js');
const { CATALOGUES, t: translate } = await import('../../ui/i18n.js');

const t = (key, params) => translate('en', key, params);
function recorder() {
  const seen = [];
  return { seen, intent: (action) => seen.push(action) };
}

test('Learn and "Play the computer" come first; Online says when no server is set', () => {
  const state = initialState('en');
  const page = renderMenu(state, { t, intent: () => {} });
  const ids = [];
  const walk = (n) => { if (n.attrs?.class?.startsWith('menu-item')) ids.push(n.attrs.id); n.children.forEach(walk); };
  walk(page);
  assert.deepEqual(ids.slice(0, 2), ['menu-learn', 'menu-computer']);
  assert.match(text(find(page, 'menu-online')), /No server set yet/);
  const set = reduce(state, { type: 'settings/loaded', settings: { serverUrl: 'wss://example.org' } });
  assert.match(text(find(renderMenu(set, { t, intent: () => {} }), 'menu-online')), /Create a room/);
});

test('"Play the computer" offers Maharajah, where the computer builds its own army', () => {
  let s = reduce(initialState('en'), { type: 'setup/open', entry: 'computer' });
  const { seen, intent } = recorder();
  let page = renderSetup(s, { t, intent });
  assert.ok(find(page, 'variant-chess') && find(page, 'variant-maharajah'), 'both games offered');
  find(page, 'start-game').click();
  assert.deepEqual(seen.pop(), { type: 'start-game' }, 'classic chess starts at once');
  s = reduce(s, { type: 'setup/change', key: 'variant', value: 'maharajah' });
  page = renderSetup(s, { t, intent });
  assert.match(text(find(page, 'setup-custom-rules')), /the computer builds its own/);
  find(page, 'start-game').click();
  assert.deepEqual(seen.pop(), { type: 'build/start' }, 'Maharajah opens the builder');
  assert.equal(s.setup.opponent, 'computer');
  // The other entries keep their fixed game.
  assert.equal(reduce(initialState('en'), { type: 'setup/open', entry: 'classic' }).setup.variants, undefined);
});

test('the computer\'s level shows its rating on a human scale, in both languages', () => {
  let s = reduce(initialState('en'), { type: 'setup/open', entry: 'computer' });
  // Before the backend has answered: the hint alone.
  assert.doesNotMatch(text(find(renderSetup(s, { t, intent: () => {} }), 'setup-level-rating')), /Elo/);
  s = reduce(s, { type: 'start/loaded', continueId: null, levelRatings: [750, 1150, 1400, 1800, 2150, 2200, 2300, 2550] });
  s = reduce(s, { type: 'setup/change', key: 'level', value: 3 });
  assert.match(text(find(renderSetup(s, { t, intent: () => {} }), 'setup-level-rating')), /^Level 3 · about 1400 Elo\./);
  s = reduce(s, { type: 'setup/change', key: 'level', value: 1 });
  const es = (key, params) => translate('es', key, params);
  assert.match(text(find(renderSetup(s, { t: es, intent: () => {} }), 'setup-level-rating')), /^Nivel 1 · unos 750 Elo\./);
  // A later start/loaded without ratings (a refresh) keeps them.
  s = reduce(s, { type: 'start/loaded', continueId: 4 });
  assert.deepEqual(s.start.levelRatings.slice(0, 2), [750, 1150]);
});

test('the learning path numbers its steps once and every step, LAN and Online too, has Go', () => {
  const s = reduce(initialState('en'), { type: 'learn/open', page: 'path' });
  const { seen, intent } = recorder();
  const page = renderLearn(s, { t, intent });
  const path = find(page, 'learning-path');
  assert.equal(path.tag, 'ol');
  assert.equal(path.children.length, 5);
  for (const lang of ['en', 'es']) {
    for (const step of ['classic', 'learn', 'custom', 'lan', 'online']) {
      assert.doesNotMatch(CATALOGUES[lang][`path.${step}`], /^\d/, `${lang} path.${step} carries no number`);
    }
  }
  assert.doesNotMatch(text(path), /Not available yet/);
  find(page, 'path-lan').click();
  find(page, 'path-online').click();
  find(page, 'path-custom').click();
  assert.deepEqual(seen, [{ type: 'navigate', screen: 'lan' }, { type: 'navigate', screen: 'online' }, { type: 'setup/open', entry: 'custom' }]);
});

test('Online says plainly when no server is set, and how to get one when nobody answers', () => {
  let s = initialState('en');
  let page = renderOnline(s, { t, intent: () => {} });
  assert.match(text(find(page, 'online-no-server')), /No server is set.*maharajah-server/);
  assert.equal(find(page, 'online-howto'), null);
  s = reduce(s, { type: 'online/error', error: { code: 'connect_failed', message: 'no answer' } });
  page = renderOnline(s, { t, intent: () => {} });
  assert.match(text(find(page, 'online-howto')), /Nobody answers at ws:\/\/127\.0\.0\.1:7878/);
  const set = reduce(initialState('en'), { type: 'settings/loaded', settings: { serverUrl: 'wss://example.org' } });
  assert.equal(find(renderOnline(set, { t, intent: () => {} }), 'online-no-server'), null);
});

test('About lists the games, credits and licence, and the server version when connected', () => {
  let s = reduce(initialState('en'), { type: 'versions/loaded', app: '1.0.0', engine: '2.0.0' });
  let page = renderAbout(s, { t, intent: () => {} });
  assert.equal(find(page, 'about-games').children.length, 4);
  assert.match(text(find(page, 'about-games')), /Chaturaji/);
  assert.match(text(find(page, 'about-credits')), /Maharajah developers/);
  assert.match(text(find(page, 'about-licence')), /MIT or Apache-2\.0/);
  assert.match(text(find(page, 'server-none')), /not connected/);
  s = { ...s, net: { server_version: '0.3.1' } };
  page = renderAbout(s, { t, intent: () => {} });
  assert.equal(text(find(page, 'server-version')), '0.3.1');
});
