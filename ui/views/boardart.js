// Drawing shared by the SVG boards (100 units a square): the coordinate labels in a square's
// corners, and a chess piece standing on its square.
import { s } from './dom.js';
import { pieceShape } from '../pieces.js';

/** Pieces fill about 80% of a square (their art spans ~34 of its 45 units). */
const PIECE_SCALE = 2.36;

/**
 * The labels of the square at (x, y): `topLeft` (a rank on the chess boards) and `bottomRight`
 * (a file), each left out when null; coloured to read on a light or a dark square.
 */
export function cornerLabels(x, y, light, topLeft, bottomRight) {
  const cls = `coord ${light ? 'on-light' : 'on-dark'}`;
  return [
    topLeft === null ? null : s('text', { x: x + 5, y: y + 26, class: cls, 'aria-hidden': 'true' }, topLeft),
    bottomRight === null ? null : s('text', { x: x + 94, y: y + 94, 'text-anchor': 'end', class: cls, 'aria-hidden': 'true' }, bottomRight),
  ];
}

/** A chess piece ({color, role}) drawn on `square`, whose top-left corner is at (x, y). */
export function pieceOn(square, piece, x, y) {
  return s('g', { class: 'piece', 'data-piece-square': square, 'data-piece': `${piece.color}-${piece.role}`, 'pointer-events': 'none' },
    s('g', { transform: `translate(${x + 50 - 22.5 * PIECE_SCALE} ${y + 50 - 23.3 * PIECE_SCALE}) scale(${PIECE_SCALE})` }, pieceShape(piece.color, piece.role)));
}
