// Issue 22: when discovery stops (on iOS, the person refused the local-network prompt) the host
// list carries `problem: { code, message }` and the Join tab says why, in the person's
// language, above the fallbacks (join code, typed address), which stay.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { installFakeDom, find, text } from './fakedom.mjs';

installFakeDom();
const { initialState, reduce } = await import('../../ui/store.js');
const { renderLan } = await import('../../ui/views/lan.js');
const { CATALOGUES, t: translate } = await import('../../ui/i18n.js');

function joinTab(list, language = 'en') {
  let s = initialState(language);
  s = reduce(s, { type: 'lan/tab', tab: 'join' });
  s = reduce(s, { type: 'lan/hosts', list });
  return renderLan(s, { t: (k, p) => translate(language, k, p), intent: () => {} });
}

test('a refused local-network permission is said, with the fallbacks still there', () => {
  const list = { browsing: true, searching: false, hosts: [], problem: { code: 'lan_permission', message: 'x' } };
  for (const language of ['en', 'es']) {
    const page = joinTab(list, language);
    const line = find(page, 'lan-hosts-problem');
    assert.ok(line, language);
    assert.equal(text(line), CATALOGUES[language]['error.lan_permission']);
    assert.equal(find(page, 'lan-hosts-empty'), null, 'not "looking for games…"');
    for (const id of ['lan-code-input', 'lan-join-code-go', 'lan-address-input', 'lan-join-address-go']) {
      assert.ok(find(page, id), `${language}: fallback ${id}`);
    }
  }
  assert.ok(CATALOGUES.en['error.lan_permission'].includes('Local Network'));
  assert.ok(CATALOGUES.es['error.lan_permission'].includes('Red local'));
});

test('without a problem the list reads as before', () => {
  const page = joinTab({ browsing: true, searching: true, hosts: [], problem: null });
  assert.equal(find(page, 'lan-hosts-problem'), null);
  assert.ok(find(page, 'lan-hosts-empty'));
});
