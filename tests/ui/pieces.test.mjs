// The piece sets (issue #20 item 7): drawn, high contrast and letters, chosen in the settings.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { installFakeDom, find, text } from './fakedom.mjs';

installFakeDom();
const { PIECE_SETS, pieceShape, setPieceSet } = await import('../../ui/pieces.js');
const { renderSettings } = await import('../../ui/views/settings.js');
const { initialState } = await import('../../ui/store.js');
const { t: translate } = await import('../../ui/i18n.js');

const fills = (node) => [node.attrs?.fill, ...(node.children ?? []).flatMap(fills)].filter(Boolean);

test('three sets; the letters set names each piece by its letter, compounds ringed in gold', () => {
  assert.deepEqual(PIECE_SETS, ['classic', 'contrast', 'letters']);
  setPieceSet('letters');
  assert.equal(text(pieceShape('white', 'maharajah')), 'M');
  assert.equal(text(pieceShape('black', 'knight')), 'N');
  assert.ok(JSON.stringify(pieceShape('white', 'archbishop')).includes('#e2a72e'), 'a compound wears the gold ring');
  setPieceSet('contrast');
  assert.ok(fills(pieceShape('white', 'rook')).includes('#ffffff'));
  assert.ok(fills(pieceShape('black', 'rook')).includes('#000000'));
  setPieceSet('nonsense');
  assert.equal(text(pieceShape('white', 'maharajah')), '', 'an unknown set falls back to the drawn one');
  assert.ok(fills(pieceShape('white', 'rook')).includes('#fbf5ea'));
});

test('the settings offer each set with a preview, the chosen one checked', () => {
  const state = { ...initialState('en'), settings: { ...initialState('en').settings, pieceSet: 'letters' } };
  const seen = [];
  const page = renderSettings(state, { t: (k, p) => translate('en', k, p), intent: (a) => seen.push(a) });
  for (const set of PIECE_SETS) assert.ok(find(page, `pieces-${set}`), `${set} offered`);
  assert.equal(find(page, 'pieces-letters').attrs.checked, '');
  assert.equal(find(page, 'pieces-classic').attrs.checked, undefined);
  for (const fn of find(page, 'pieces-contrast').listeners.change) fn({});
  assert.deepEqual(seen, [{ type: 'setting', key: 'pieceSet', value: 'contrast' }]);
  setPieceSet('classic');
});
