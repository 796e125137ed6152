// The Chaturaji setup page renders its Wi-Fi options (host, list of tables, join code) and the
// table page its hosting line, with a minimal DOM stand-in (the real web view is in
// tests/e2e/chaturaji-lan.test.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';

class FakeNode {
  constructor(tag) { this.tag = tag; this.children = []; this.attrs = {}; this.text = ''; }
  setAttribute(k, v) { this.attrs[k] = v; }
  addEventListener() {}
  append(c) { this.children.push(c); }
}
globalThis.Node = FakeNode;
globalThis.document = {
  createElement: (t) => new FakeNode(t),
  createElementNS: (_, t) => new FakeNode(t),
  createTextNode: (s) => Object.assign(new FakeNode('#text'), { text: s }),
};

const find = (node, id) => {
  if (node.attrs?.id === id) return node;
  for (const c of node.children ?? []) {
    const f = find(c, id);
    if (f) return f;
  }
  return null;
};
const text = (node) => node.text + node.children.map(text).join('');

test('the setup page offers hosting on the Wi-Fi, the Chaturaji tables found, and the join code', async () => {
  const { renderChaturaji } = await import('../../ui/views/chaturaji.js');
  const { reduceChaturaji } = await import('../../ui/chaturaji-store.js');
  const t = (k, args) => (args ? `${k} ${JSON.stringify(args)}` : k);
  let state = reduceChaturaji({ screen: 'menu' }, { type: 'chaturaji/open' });
  state = reduceChaturaji(state, { type: 'chaturaji/setup' });
  let page = renderChaturaji(state, { t, intent: () => {} });
  for (const id of ['cj-lan-name', 'cj-lan-host', 'cj-lan-browse', 'cj-lan-code', 'cj-lan-join-code']) assert.ok(find(page, id), id);
  assert.equal(find(page, 'cj-lan-tables'), null, 'no list before browsing');
  const hosts = [
    { id: 'x', name: 'Bea', chaturaji: true, compatible: true, address: '10.0.0.2:4000', reason: null },
    { id: 'y', name: 'Chess host', chaturaji: false, compatible: true, address: '10.0.0.3:4000', reason: null },
  ];
  state = reduceChaturaji(state, { type: 'chaturaji/lan-hosts', list: { browsing: true, searching: true, hosts } });
  page = renderChaturaji(state, { t, intent: () => {} });
  const list = find(page, 'cj-lan-tables');
  assert.equal(list.children.length, 1, 'only the Chaturaji table');
  assert.match(text(list), /cj.lan.joinEntry \{"name":"Bea"\}/);
});

test('a network table whose server showed a roll that does not verify shows the dice alarm', async () => {
  const { diceAlarm } = await import('../../ui/views/chaturaji.js');
  const t = (k, args) => (args ? `${k} ${JSON.stringify(args)}` : k);
  const remote = { code: 'ABCD1234', seat: 'red', started: true, connected: true, seats: null, dice_alarm: null };
  assert.equal(diceAlarm({ remote }, t), null, 'no alarm while every roll verifies');
  assert.equal(diceAlarm({ remote: null }, t), null, 'a table on this device has seeded dice');
  const alarm = diceAlarm({ remote: { ...remote, dice_alarm: { roll: 3, detail: 'faces differ' } } }, t);
  assert.equal(alarm.attrs.id, 'cj-dice-alarm');
  assert.equal(alarm.attrs.role, 'alert');
  assert.match(text(alarm), /cj\.net\.diceAlarmTitle/);
  assert.match(text(alarm), /cj\.net\.diceAlarm \{"roll":3\}/);
  const en = (await import('../../ui/i18n/chaturaji.en.js')).default;
  const es = (await import('../../ui/i18n/chaturaji.es.js')).default;
  for (const cat of [en, es]) {
    assert.ok(cat['cj.net.diceAlarm'].includes('{roll}'));
    assert.ok(cat['cj.net.diceAlarmTitle']);
  }
});
