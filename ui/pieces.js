// The Maharajah piece set, drawn for this app: six orthodox pieces and three compound ones. A
// compound piece is its base silhouette (queen, rook, bishop) wearing a gold medallion with a
// knight's head, so "queen + knight" reads at a glance even on a phone. Shapes live in a 45×45 box.
import { s } from './views/dom.js';

const BASE = 'M11 36.5h23a2 2 0 0 1 2 2v1.5H9v-1.5a2 2 0 0 1 2-2z';

const KNIGHT = 'M13 36C13 30 16 26.5 19 23.5C17 23.5 14.5 25 12.3 24.3C10.2 23.5 9.8 20.6 11.3 18.8C13.8 15.6 16.6 12.6 18.6 10.3L18.8 6.5L21.9 9C28 8.8 33.2 13.8 33.2 22C33.2 28 31.2 32 31.2 36Z';

/** Each base shape: filled paths, then detail strokes. */
const SHAPES = {
  pawn: {
    fill: ['M15.5 36C15.5 29.5 18.5 24.8 22.5 22.3C26.5 24.8 29.5 29.5 29.5 36Z',
      'M17.5 18.8h10a1.6 1.6 0 0 1 0 3.2h-10a1.6 1.6 0 0 1 0-3.2z'],
    circles: [[22.5, 13.5, 5.3]],
    lines: [],
  },
  rook: {
    fill: ['M12.5 36.5l1.2-3.5h17.6l1.2 3.5z', 'M14.8 33l1.4-15.5h12.6l1.4 15.5z',
      'M12 17.5V10h4.4v3h3.4v-3h5.4v3h3.4v-3H33v7.5z'],
    circles: [],
    lines: ['M16.3 20.5h12.4', 'M15.3 30h14.4'],
  },
  bishop: {
    fill: ['M22.5 9.5C17 14.5 14.2 20.5 15.5 27C16.3 30.8 28.7 30.8 29.5 27C30.8 20.5 28 14.5 22.5 9.5Z',
      'M15.5 30.3h14l1.5 6.2H14z'],
    circles: [[22.5, 7.6, 2.6]],
    lines: ['M25.8 15.2l-5 6', 'M16.5 33.2h12'],
  },
  knight: { fill: [KNIGHT], circles: [[19.8, 14.4, 1.3], [12.9, 21.2, 0.8]], lines: ['M24.5 11.2C28.8 14 30.2 20.5 29.2 26.8'], dots: true },
  queen: {
    fill: ['M11.5 33.5L9 15.5l5.2 8.5L15.5 12l4.2 11.2L22.5 10l2.8 13.2L29.5 12l1.3 12 5.2-8.5-2.5 18z',
      'M11.5 33.5h22l.8 3H10.7z'],
    circles: [[9, 14.5, 2], [15.5, 11, 2], [22.5, 9, 2], [29.5, 11, 2], [36, 14.5, 2]],
    lines: ['M12.3 29.5h20.4'],
  },
  king: {
    fill: ['M12 34.5C9 27.5 12.5 21 18 21C20 21 21.6 22.4 22.5 24C23.4 22.4 25 21 27 21C32.5 21 36 27.5 33 34.5Z',
      'M20.9 6.5h3.2v3.6h3.6v3.1h-3.6v5.6h-3.2v-5.6h-3.6v-3.1h3.6z'],
    circles: [],
    lines: ['M13.2 30.8h18.6', 'M22.5 18.8V24'],
  },
};

/** A compound piece is its base piece plus the knight medallion. */
const COMPOUND = { maharajah: 'queen', chancellor: 'rook', archbishop: 'bishop' };

const INK = {
  white: { fill: '#fbf5ea', stroke: '#1c1512', detail: '#1c1512' },
  black: { fill: '#2a211d', stroke: '#0b0807', detail: '#efe3d0' },
};

function shape(name, ink) {
  const def = SHAPES[name];
  return [
    ...def.fill.map((d) => s('path', { d, fill: ink.fill, stroke: ink.stroke, 'stroke-width': 1.5, 'stroke-linejoin': 'round' })),
    ...def.circles.map(([cx, cy, r], i) => s('circle', {
      cx, cy, r,
      fill: name === 'knight' ? (i === 0 ? ink.detail : ink.detail) : ink.fill,
      stroke: name === 'knight' ? 'none' : ink.stroke,
      'stroke-width': 1.5,
    })),
    ...def.lines.map((d) => s('path', { d, fill: 'none', stroke: ink.detail, 'stroke-width': 1.4, 'stroke-linecap': 'round' })),
  ];
}

function medallion(ink) {
  return s('g', { class: 'medallion' },
    s('circle', { cx: 22.5, cy: 27.5, r: 8.6, fill: '#e2a72e', stroke: ink.stroke, 'stroke-width': 1.5 }),
    s('g', { transform: 'translate(22.8 27.6) scale(0.4) translate(-21.5 -21.3)' },
      s('path', { d: KNIGHT, fill: ink.fill, stroke: ink.stroke, 'stroke-width': 2.6, 'stroke-linejoin': 'round' }),
      s('circle', { cx: 19.8, cy: 14.4, r: 1.8, fill: ink.detail })));
}

/** The piece sets a player can choose (Settings): drawn, high contrast, letters. */
export const PIECE_SETS = ['classic', 'contrast', 'letters'];

/** High contrast: white pieces pure white with a heavy black outline, black ones the reverse. */
const CONTRAST = {
  white: { fill: '#ffffff', stroke: '#000000', detail: '#000000' },
  black: { fill: '#000000', stroke: '#ffffff', detail: '#ffffff' },
};

/** The letter each role wears in the letters set (the FEN letter, the compounds' own). */
const LETTER = { pawn: 'P', knight: 'N', bishop: 'B', rook: 'R', queen: 'Q', king: 'K', archbishop: 'A', chancellor: 'C', maharajah: 'M' };

let pieceSet = 'classic';

/** Chooses the set every later drawing uses (an unknown name: the drawn set). */
export function setPieceSet(name) {
  pieceSet = PIECE_SETS.includes(name) ? name : 'classic';
}

/** The letters set: a disc in the side's colour with the role's letter; compounds ringed gold. */
function letterShape(color, role) {
  const ink = INK[color];
  return [
    s('circle', { cx: 22.5, cy: 23, r: 17, fill: ink.fill, stroke: COMPOUND[role] ? '#e2a72e' : ink.stroke, 'stroke-width': COMPOUND[role] ? 3.5 : 2 }),
    s('text', {
      x: 22.5, y: 23, 'text-anchor': 'middle', 'dominant-baseline': 'central', fill: ink.detail,
      'font-family': 'system-ui, sans-serif', 'font-weight': 800, 'font-size': 21,
    }, LETTER[role] ?? '?'),
  ];
}

/**
 * The SVG drawing of a piece in a 45×45 box, in the chosen set: a <g> to place with a transform.
 * @param {'white'|'black'} color
 * @param {string} role  pawn knight bishop rook queen king archbishop chancellor maharajah
 */
export function pieceShape(color, role) {
  if (pieceSet === 'letters') return s('g', { class: `piece-art ${color} ${role} set-letters` }, letterShape(color, role));
  const ink = pieceSet === 'contrast' ? CONTRAST[color] : INK[color];
  const base = COMPOUND[role] ?? role;
  return s('g', { class: `piece-art ${color} ${role}${pieceSet === 'contrast' ? ' set-contrast' : ''}` },
    s('path', { d: BASE, fill: ink.fill, stroke: ink.stroke, 'stroke-width': 1.5 }),
    shape(base, ink),
    COMPOUND[role] ? medallion(ink) : null);
}

/**
 * A base piece (pawn knight bishop rook queen king) drawn in any ink { fill, stroke, detail }:
 * Chaturaji draws its four seats' armies with the same shapes in the seats' colours.
 */
export function inkedShape(ink, role) {
  return s('g', { class: `piece-art ${role}` },
    s('path', { d: BASE, fill: ink.fill, stroke: ink.stroke, 'stroke-width': 1.5 }),
    shape(role, ink));
}

/** A standalone <svg> icon of a piece (promotion picker, captured pieces, legends). */
export function pieceIcon(color, role, size = 40, label = null) {
  return s('svg', {
    viewBox: '0 0 45 45', width: size, height: size, class: 'piece-icon',
    role: label ? 'img' : null, 'aria-label': label, 'aria-hidden': label ? null : 'true',
  }, pieceShape(color, role));
}

/** Role names by UCI/FEN letter (promotion letters in legal moves). */
export const ROLE_BY_LETTER = {
  p: 'pawn', n: 'knight', b: 'bishop', r: 'rook', q: 'queen', k: 'king', a: 'archbishop', c: 'chancellor', m: 'maharajah',
};
export const LETTER_BY_ROLE = Object.fromEntries(Object.entries(ROLE_BY_LETTER).map(([l, r]) => [r, l]));
