// Issue #20 item 5 (texts): counted words agree with their number ("1 point"), and the rules
// page explains how Chaturaji's king, elephant, horse, boat and pawn move, in English and Spanish.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { installFakeDom, find, text } from './fakedom.mjs';

installFakeDom();
const { CATALOGUES, t } = await import('../../ui/i18n.js');
const { initialState, reduce } = await import('../../ui/store.js');
const { renderLearn } = await import('../../ui/views/learn.js');

test('plurals follow the number in both languages', () => {
  assert.equal(t('en', 'cj.ranking.points', { points: 1 }), '1 point');
  assert.equal(t('en', 'cj.ranking.points', { points: 0 }), '0 points');
  assert.equal(t('es', 'cj.ranking.points', { points: 1 }), '1 punto');
  assert.equal(t('es', 'cj.ranking.points', { points: 5 }), '5 puntos');
  assert.equal(t('en', 'build.palette.item', { piece: 'Pawn', cost: 1 }), 'Pawn, 1 point');
  assert.equal(t('en', 'build.palette.item', { piece: 'Rook', cost: 5 }), 'Rook, 5 points');
  assert.equal(t('en', 'cj.die.allows', { count: 1, pieces: 1 }), '1 move for 1 piece');
  assert.equal(t('es', 'cj.die.allows', { count: 3, pieces: 2 }), '3 jugadas para 2 piezas');
  assert.equal(t('en', 'game.captured', { count: 1 }), '1 piece captured');
  assert.equal(t('es', 'game.captured', { count: 2 }), '2 piezas capturadas');
  assert.equal(t('es', 'build.left', { left: 1 }), 'queda 1 por gastar');
  assert.equal(t('es', 'build.left', { left: 4 }), 'quedan 4 por gastar');
  assert.equal(t('en', 'history.plies', { count: 1 }), '1 half-move');
});

test('no counted text is left without its plural form', () => {
  // A number placeholder followed by a fixed plural noun reads "1 points"; the budget is always 39.
  const plural = /\{(\w+)\} (points|pieces|moves|squares|half-moves|puntos|piezas|jugadas|casillas|medias)\b/g;
  for (const [language, catalogue] of Object.entries(CATALOGUES)) {
    for (const [key, text] of Object.entries(catalogue)) {
      const bad = [...text.matchAll(plural)].filter((m) => m[1] !== 'budget');
      assert.deepEqual(bad.map((m) => m[0]), [], `${language}.${key} has no singular`);
    }
  }
});

test('the rules page explains how each Chaturaji piece moves, in English and Spanish', () => {
  const words = {
    en: ['King', 'Elephant', 'Horse', 'Boat', 'Pawn'],
    es: ['Rey', 'Elefante', 'Caballo', 'Barco', 'Peón'],
  };
  for (const language of ['en', 'es']) {
    const state = reduce(initialState(language), { type: 'learn/open', page: 'rules' });
    const page = renderLearn(state, { t: (key, params) => t(language, key, params), intent: () => {} });
    const article = find(page, 'rules-chaturaji');
    assert.ok(article, 'a Chaturaji article');
    const lines = article.children.slice(1).map(text);
    for (const piece of words[language]) {
      assert.ok(lines.some((line) => line.startsWith(`${piece}:`)), `${language}: a line for ${piece}`);
    }
    assert.ok(find(page, 'rules-chaturaji_dice'), 'the dice and the score');
  }
});

test('the Back label never wraps ("‹ Volver" on one line); a long title gives way', async () => {
  const { readFile } = await import('node:fs/promises');
  const css = await readFile(new URL('../../ui/styles.css', import.meta.url), 'utf8');
  const back = css.match(/\n\.back \{([^}]*)\}/);
  assert.ok(back, 'a .back rule');
  assert.match(back[1], /white-space: nowrap/);
  assert.match(back[1], /flex: none/);
  assert.match(css, /\.bar h1 \{[^}]*min-width: 0/);
});
