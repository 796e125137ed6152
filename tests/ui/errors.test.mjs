// Issue #20 item 6, "Spanish complete": backend errors read in the reader's language, typed-move
// errors name the move, and every error code the backend or the UI can report has a sentence in
// every catalogue (crates/app/src/error.rs checks the backend's codes against the same files).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

import { CATALOGUES, t as translate } from '../../ui/i18n.js';
import { errorDetail, errorText, errorTitle } from '../../ui/views/errors.js';

const en = (key, params) => translate('en', key, params);
const es = (key, params) => translate('es', key, params);

test('a typed move that is not a move, or not legal, is named in the reader\'s language', () => {
  const bad = { code: 'bad_move', message: '"xyz" is not a move here', params: { move: 'xyz' } };
  assert.equal(errorText(bad, es), '«xyz» no es una jugada aquí: escríbela como e4, Nf3, O-O o e7e8q.');
  assert.equal(errorText(bad, en), '“xyz” is not a move here: type it as e4, Nf3, O-O or e7e8q.');
  const illegal = { code: 'illegal_move', message: 'e2e5 is not legal here', params: { move: 'e2e5' } };
  assert.equal(errorText(illegal, es), 'e2e5 no es legal en esta posición.');
  // From a server (no parameters), the plain sentence.
  assert.equal(errorText({ code: 'illegal_move', message: 'refused' }, es), 'Esa jugada no es legal.');
});

test('an import error reads Spanish in Spanish and keeps the backend\'s detail in English', () => {
  const error = { code: 'bad_import', message: 'could not read the game: not a FEN' };
  assert.equal(errorText(error, es), 'Eso no es ni una partida PGN ni una posición FEN que esta app pueda jugar.');
  assert.match(errorText(error, en), /^That is neither a PGN game nor a FEN position.* could not read the game: not a FEN$/);
  assert.equal(errorDetail(error, es), '');
  assert.equal(errorDetail(error, en), 'could not read the game: not a FEN');
  assert.equal(errorTitle({ code: 'room_full', message: 'x' }, es), 'Esta sala no tiene ningún asiento libre.');
});

test('every error code the UI itself reports has a sentence in every catalogue', async () => {
  const uiDir = fileURLToPath(new URL('../../ui/', import.meta.url));
  const codes = new Set();
  for (const entry of await readdir(uiDir, { withFileTypes: true, recursive: true })) {
    if (!entry.name.endsWith('.js') || entry.parentPath?.includes('i18n') || entry.path?.includes('i18n')) continue;
    const source = await readFile(path.join(entry.parentPath ?? entry.path, entry.name), 'utf8');
    for (const m of source.matchAll(/\{ code: '([a-z_]+)'/g)) codes.add(m[1]);
  }
  assert.ok(codes.has('no_backend') && codes.has('ipc'), `the scan found ${[...codes]}`);
  // The LAN's host-left notice carries its own translated sentence.
  codes.delete('lan_host_left');
  for (const language of Object.keys(CATALOGUES)) {
    const missing = [...codes].filter((code) => !(`error.${code}` in CATALOGUES[language]));
    assert.deepEqual(missing, [], `${language} lacks error sentences`);
  }
});

test('Spanish uses one word for the computer and one spelling of Maharajah', () => {
  const texts = Object.values(CATALOGUES.es).join('\n');
  assert.doesNotMatch(texts, /computadora/i, 'the computer is "el ordenador"');
  assert.doesNotMatch(texts, /Maharajá/, 'Maharajah keeps one spelling');
  assert.doesNotMatch(texts, /no es real\b/, '"not royal" is not "not real"');
});

test('a network notice and a failed history or version read are worded from the catalogue', async () => {
  const { installFakeDom, find, text } = await import('./fakedom.mjs');
  installFakeDom();
  const { initialState, reduce } = await import('../../ui/store.js');
  const { renderHistory } = await import('../../ui/views/history.js');
  const { renderAbout } = await import('../../ui/views/about.js');
  let s = reduce(initialState('es'), { type: 'history/failed', error: { code: 'storage', message: 'disk I/O error' } });
  assert.match(text(renderHistory(s, { t: es, intent: () => {} })), /Este dispositivo no pudo guardar o leer sus datos\./);
  assert.doesNotMatch(text(renderHistory(s, { t: es, intent: () => {} })), /disk I\/O/);
  s = reduce(initialState('es'), { type: 'versions/failed', error: { code: 'ipc', message: 'boom' } });
  assert.match(text(find(renderAbout(s, { t: es, intent: () => {} }), 'versions-error')), /El motor de la app no respondió\./);
});
