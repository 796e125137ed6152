// Unit tests of the UI's pure modules (no DOM): catalogues, language choice, reducer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

import { CATALOGUES, pickLanguage, t } from '../../ui/i18n.js';
import { MENU, initialState, reduce } from '../../ui/store.js';

const uiDir = fileURLToPath(new URL('../../ui/', import.meta.url));

test('every catalogue has exactly the keys of every other', () => {
  const languages = Object.keys(CATALOGUES);
  assert.deepEqual(languages.sort(), ['en', 'es']);
  const all = new Set(languages.flatMap((l) => Object.keys(CATALOGUES[l])));
  for (const language of languages) {
    const missing = [...all].filter((key) => !(key in CATALOGUES[language]));
    assert.deepEqual(missing, [], `${language} lacks keys`);
    for (const [key, text] of Object.entries(CATALOGUES[language])) {
      assert.ok(typeof text === 'string' && text.trim() !== '', `${language}.${key} is empty`);
    }
  }
});

test('every key the UI source uses exists in the catalogues', async () => {
  const files = [];
  async function walk(dir) {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory() && entry.name !== 'i18n') await walk(full);
      else if (entry.name.endsWith('.js')) files.push(full);
    }
  }
  await walk(uiDir);
  const used = new Set();
  for (const file of files) {
    const source = await readFile(file, 'utf8');
    for (const match of source.matchAll(/\bt\('([a-zA-Z0-9_.]+)'/g)) used.add(match[1]);
  }
  // Keys built from data: the menu entries and language names.
  for (const item of MENU) {
    used.add(`menu.${item.id}`);
    used.add(`menu.${item.id}.hint`);
  }
  for (const language of Object.keys(CATALOGUES)) used.add(`settings.language.${language}`);
  assert.ok(used.size > 20, `found only ${used.size} keys: the scan is broken`);
  for (const language of Object.keys(CATALOGUES)) {
    const missing = [...used].filter((key) => !(key in CATALOGUES[language]));
    assert.deepEqual(missing, [], `${language} lacks keys used by the UI`);
  }
});

test('language follows the saved choice, then the system, then English', () => {
  assert.equal(pickLanguage('es', ['en-US']), 'es');
  assert.equal(pickLanguage(null, ['es-MX', 'en']), 'es');
  assert.equal(pickLanguage(null, ['fr-FR', 'en-GB']), 'en');
  assert.equal(pickLanguage('xx', ['de']), 'en');
});

test('t fills placeholders and flags unknown keys', () => {
  assert.equal(t('en', 'about.error', { message: 'boom' }), 'Could not read the versions: boom');
  assert.equal(t('es', 'nav.back'), 'Volver');
  assert.equal(t('en', 'no.such.key'), '[no.such.key]');
});

test('the menu lists the ten entries people use, in order', () => {
  assert.deepEqual(MENU.map((m) => m.id), [
    'classic', 'custom', 'computer', 'lan', 'online', 'horde', 'chaturaji', 'learn', 'settings', 'about',
  ]);
});

test('reducer navigates, goes back and records versions', () => {
  let s = initialState('en');
  assert.equal(s.screen, 'menu');
  s = reduce(s, { type: 'navigate', screen: 'about' });
  assert.equal(s.screen, 'about');
  s = reduce(s, { type: 'versions/loading' });
  assert.equal(s.versions.status, 'loading');
  s = reduce(s, { type: 'versions/loaded', app: '1.2.3', engine: '4.5.6' });
  assert.deepEqual(s.versions, { status: 'ready', app: '1.2.3', engine: '4.5.6', error: null });
  s = reduce(s, { type: 'back' });
  assert.equal(s.screen, 'menu');
  const same = reduce(s, { type: 'unknown' });
  assert.equal(same, s, 'unknown actions keep the same state object');
});
