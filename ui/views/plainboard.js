// A board for screens other than the game (the army builder, Learn): the same squares, classes
// and piece set as the game board, with highlights given by the caller. Every square is a
// labelled button reporting taps; the pieces come from pieces.js.
import { s } from './dom.js';
import { cornerLabels, pieceOn } from './boardart.js';

const FILES = 'abcdefgh';

/**
 * pieces: [{square, color, role}]; marks: {square: ['place'|'refused'|'slide'|'leap'|'selected']};
 * onSquare(square) reports a tap.
 */
export function renderPlainBoard({ id, pieces, marks = {}, flipped = false, theme = 'wood', label, t, onSquare }) {
  const occupied = new Map(pieces.map((p) => [p.square, p]));
  const squares = [];
  const drawn = [];
  for (let rank = 8; rank >= 1; rank -= 1) {
    for (let f = 0; f < 8; f += 1) {
      const square = `${FILES[f]}${rank}`;
      const x = flipped ? (7 - f) * 100 : f * 100;
      const y = flipped ? (rank - 1) * 100 : (8 - rank) * 100;
      const light = (f + rank) % 2 === 1;
      const piece = occupied.get(square);
      const kinds = marks[square] ?? [];
      const shapes = kinds.map((kind) => {
        if (kind === 'place') return s('circle', { cx: x + 50, cy: y + 50, r: 13, class: 'hl-place' });
        if (kind === 'slide' || kind === 'leap') {
          return piece
            ? s('circle', { cx: x + 50, cy: y + 50, r: 44, class: `hl-${kind}-ring` })
            : s('circle', { cx: x + 50, cy: y + 50, r: 22, class: `hl-${kind}` });
        }
        return s('rect', { x, y, width: 100, height: 100, class: `hl-${kind}` });
      });
      const showRank = flipped ? f === 7 : f === 0;
      const showFile = flipped ? rank === 8 : rank === 1;
      squares.push(s('g', {
        class: ['sq', light ? 'light' : 'dark', ...kinds.map((k) => `mark-${k}`)].join(' '),
        'data-square': square,
        role: 'button',
        tabindex: '0',
        'aria-label': piece ? t('board.square.piece', { square, piece: t(`piece.${piece.color}.${piece.role}`) }) : square,
        onclick: () => onSquare(square),
        onkeydown: (event) => {
          if (event.key === 'Enter' || event.key === ' ') {
            event.preventDefault();
            onSquare(square);
          }
        },
      },
      s('rect', { x, y, width: 100, height: 100, class: light ? 'light' : 'dark' }),
      shapes,
      cornerLabels(x, y, light, showRank ? String(rank) : null, showFile ? FILES[f] : null)));
      if (piece) drawn.push(pieceOn(square, piece, x, y));
    }
  }
  return s('svg', { viewBox: '0 0 800 800', class: `board theme-${theme}`, id, role: 'group', 'aria-label': label },
    s('g', { class: 'squares' }, squares), s('g', { class: 'pieces' }, drawn));
}

/** The square under a screen point (for drops from the palette), or null. */
export function squareAtPoint(x, y) {
  const node = document.elementFromPoint(x, y);
  return node?.closest?.('[data-square]')?.getAttribute('data-square') ?? null;
}
