// Unit tests of the Local network screen's pure state (ui/lanstate.js) and its wiring in the store.
import assert from 'node:assert/strict';
import test from 'node:test';

import { hostRequest, newLan, reduceLan, shownHosts, statusKey } from '../../ui/lanstate.js';
import { CATALOGUES } from '../../ui/i18n.js';
import { MENU, initialState, reduce } from '../../ui/store.js';

test('the Local network entry has landed and its actions reach the LAN state', () => {
  assert.equal(MENU.find((m) => m.id === 'lan').ready, true);
  let s = initialState('en');
  assert.equal(s.lan.tab, 'host');
  s = reduce(s, { type: 'lan/tab', tab: 'join' });
  assert.equal(s.lan.tab, 'join');
  s = reduce(s, { type: 'lan/error', error: { code: 'bad_address', message: 'x' } });
  assert.equal(s.lan.error.code, 'bad_address');
  s = reduce(s, { type: 'lan/tab', tab: 'host' });
  assert.equal(s.lan.error, null, 'changing tab clears the error');
});

test('the host form becomes the backend request', () => {
  const form = { ...newLan('Ana').form, variant: 'maharajah', hidden: true, timeControl: '5+3', color: 'random' };
  assert.deepEqual(hostRequest(form), {
    name: 'Ana', variant: 'maharajah', time_control: { base_ms: 300000, increment_ms: 3000 }, hidden: true, color: null,
  });
  assert.deepEqual(hostRequest({ ...form, variant: 'chess', timeControl: 'none', color: 'black' }),
    { name: 'Ana', variant: 'chess', time_control: null, hidden: false, color: 'black' });
  assert.deepEqual(hostRequest({ ...form, timeControl: 'custom', customMinutes: '2', customIncrement: '1' }).time_control,
    { base_ms: 120000, increment_ms: 1000 });
  assert.equal(hostRequest({ ...form, timeControl: 'custom', customMinutes: '0' }).time_control, null);
});

test('hosting, status, list and leaving', () => {
  let lan = newLan();
  lan = reduceLan(lan, { type: 'lan/tab', tab: 'join' });
  lan = reduceLan(lan, { type: 'lan/hosted', hosting: { name: 'Ana', address: '10.0.0.2:4000' } });
  assert.equal(lan.tab, 'host', 'hosting shows the host card');
  lan = reduceLan(lan, { type: 'lan/status', status: { role: 'host', phase: 'waiting_for_guest' } });
  assert.equal(statusKey(lan.status), 'lan.status.host.waiting_for_guest');
  lan = reduceLan(lan, { type: 'lan/left' });
  assert.equal(lan.hosting, null);
  assert.equal(lan.status, null);
  assert.equal(statusKey(null), null);
});

test('joinable hosts come first, greyed ones after, each by name', () => {
  const hosts = [
    { id: 'a', name: 'Zoe', compatible: false, reason: 'old' },
    { id: 'b', name: 'Bea', compatible: true },
    { id: 'c', name: 'Ana', compatible: true },
    { id: 'd', name: 'Al', compatible: false, reason: 'new' },
  ];
  assert.deepEqual(shownHosts({ hosts }).map((h) => h.id), ['c', 'b', 'd', 'a']);
});

test('every connection state has a sentence in both languages', () => {
  for (const role of ['host', 'guest']) {
    for (const phase of ['waiting_for_guest', 'seated', 'reconnecting', 'host_left', 'closed']) {
      for (const language of ['en', 'es']) {
        assert.ok(statusKey({ role, phase }) in CATALOGUES[language], `${language} lacks ${role}.${phase}`);
      }
    }
  }
});
