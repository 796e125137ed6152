// The board: an SVG of 8×8 squares (100 units each) with coordinates, highlights and pieces.
// Taps report {type:'square'}, drags report {type:'drop'}; the legal destinations come from the
// backend's snapshot. Every square is a labelled button for screen readers ("e4, white knight").
import { s } from './dom.js';
import { destinations, isFlipped } from '../store.js';
import { cornerLabels, pieceOn } from './boardart.js';
import { attachDrag } from './pointer.js';

const FILES = 'abcdefgh';

function squareXY(square, flipped) {
  const file = FILES.indexOf(square[0]);
  const rank = Number(square[1]) - 1;
  return flipped ? [(7 - file) * 100, rank * 100] : [file * 100, (7 - rank) * 100];
}

function squareAt(x, y, flipped) {
  const col = Math.floor(x / 100);
  const row = Math.floor(y / 100);
  if (col < 0 || col > 7 || row < 0 || row > 7) return null;
  return flipped ? `${FILES[7 - col]}${row + 1}` : `${FILES[col]}${8 - row}`;
}

/** The square the keyboard is on, kept across re-renders so focus returns to it. */
let keyboardSquare = null;
let keyboardActive = false;

/** Arrow keys walk the squares (as seen on screen); Enter or Space taps the focused one. */
function onSquareKey(event, square, flipped, intent) {
  const steps = { ArrowUp: [0, 1], ArrowDown: [0, -1], ArrowLeft: [-1, 0], ArrowRight: [1, 0] };
  if (event.key === 'Enter' || event.key === ' ') {
    event.preventDefault();
    keyboardActive = true;
    intent({ type: 'square', square });
    return;
  }
  const step = steps[event.key];
  if (!step) return;
  event.preventDefault();
  const [df, dr] = flipped ? [-step[0], -step[1]] : step;
  const file = FILES.indexOf(square[0]) + df;
  const rank = Number(square[1]) + dr;
  if (file < 0 || file > 7 || rank < 1 || rank > 8) return;
  const next = `${FILES[file]}${rank}`;
  const board = event.currentTarget.ownerSVGElement;
  board?.querySelectorAll('g.sq').forEach((g) => g.setAttribute('tabindex', g.dataset.square === next ? '0' : '-1'));
  board?.querySelector(`g.sq[data-square="${next}"]`)?.focus();
}

/** Plays the last move's slide once per new snapshot (remembered across re-renders). */
let lastAnimated = null;

/**
 * An arrow from `move`'s origin to its destination (UCI or {from, to}), drawn over the pieces;
 * `attrs` gives its class, id and data.
 */
export function moveArrow(move, flipped, attrs) {
  const from = typeof move === 'string' ? move.slice(0, 2) : move.from;
  const to = typeof move === 'string' ? move.slice(2, 4) : move.to;
  const [x1, y1] = squareXY(from, flipped).map((v) => v + 50);
  const [x2, y2] = squareXY(to, flipped).map((v) => v + 50);
  const angle = Math.atan2(y2 - y1, x2 - x1);
  const head = 34;
  const bx = x2 - Math.cos(angle) * head;
  const by = y2 - Math.sin(angle) * head;
  const side = (sign) => `${bx + Math.cos(angle + sign * Math.PI / 2) * 22},${by + Math.sin(angle + sign * Math.PI / 2) * 22}`;
  return s('g', { ...attrs, 'pointer-events': 'none' },
    s('line', { x1, y1, x2: bx, y2: by, 'stroke-width': 16, 'stroke-linecap': 'round' }),
    s('polygon', { points: `${x2},${y2} ${side(1)} ${side(-1)}` }));
}

/** A ring around `square` (the hint's piece), drawn over the pieces. */
export function squareRing(square, flipped, attrs) {
  const [x, y] = squareXY(square, flipped);
  return s('circle', { ...attrs, cx: x + 50, cy: y + 50, r: 44, 'pointer-events': 'none' });
}

export function renderBoard(state, { t, intent }) {
  const game = state.game;
  const reviewing = Boolean(state.ui.review);
  const board = state.ui.review ?? game.board;
  const flipped = isFlipped(state);
  const selected = reviewing ? null : state.ui.selected;
  const targets = new Set(reviewing ? [] : destinations(game, selected));
  const occupied = new Map(board.pieces.map((p) => [p.square, p]));
  const last = board.last_move;
  const pending = state.ui.pending ?? null;
  const premove = state.ui.premove ?? null;
  const coordinates = state.settings.coordinates !== false;

  const squares = [];
  const pieces = [];
  for (let rank = 8; rank >= 1; rank -= 1) {
    for (let f = 0; f < 8; f += 1) {
      const square = `${FILES[f]}${rank}`;
      const [x, y] = squareXY(square, flipped);
      const light = (f + rank) % 2 === 1;
      const piece = occupied.get(square);
      const label = piece
        ? t('board.square.piece', { square, piece: t(`piece.${piece.color}.${piece.role}`) })
        : square;
      const marks = [];
      if (last && (last.from === square || last.to === square)) marks.push(s('rect', { x, y, width: 100, height: 100, class: 'hl-last' }));
      if (selected === square) marks.push(s('rect', { x, y, width: 100, height: 100, class: 'hl-selected' }));
      if (pending && !reviewing && (pending.slice(0, 2) === square || pending.slice(2, 4) === square)) marks.push(s('rect', { x, y, width: 100, height: 100, class: 'hl-pending' }));
      if (premove && !reviewing && (premove.from === square || premove.to === square)) marks.push(s('rect', { x, y, width: 100, height: 100, class: 'hl-premove' }));
      if (board.check === square) marks.push(s('circle', { cx: x + 50, cy: y + 50, r: 48, class: 'hl-check' }));
      if (targets.has(square)) {
        marks.push(piece
          ? s('circle', { cx: x + 50, cy: y + 50, r: 44, class: 'hl-capture' })
          : s('circle', { cx: x + 50, cy: y + 50, r: 15, class: 'hl-dest' }));
      }
      const showRank = flipped ? f === 7 : f === 0;
      const showFile = flipped ? rank === 8 : rank === 1;
      squares.push(s('g', {
        class: `sq ${light ? 'light' : 'dark'}${targets.has(square) ? ' target' : ''}`,
        'data-square': square,
        role: 'button',
        'aria-label': label,
        'aria-pressed': selected === square ? 'true' : null,
        tabindex: square === (keyboardSquare ?? selected ?? (flipped ? 'e7' : 'e2')) ? '0' : '-1',
        onclick: () => intent({ type: 'square', square }),
        onkeydown: (event) => onSquareKey(event, square, flipped, intent),
        onfocus: () => { keyboardSquare = square; },
      },
      s('rect', { x, y, width: 100, height: 100, class: light ? 'light' : 'dark' }),
      marks,
      coordinates ? cornerLabels(x, y, light, showRank ? String(rank) : null, showFile ? FILES[f] : null) : null));
      if (piece) pieces.push(pieceOn(square, piece, x, y));
    }
  }

  const svg = s('svg', {
    viewBox: '0 0 800 800',
    class: `board theme-${state.settings.theme}${reviewing ? ' reviewing' : ''}`,
    id: 'board',
    role: 'group',
    'aria-label': t(flipped ? 'board.label.black' : 'board.label.white'),
    'data-flipped': String(flipped),
  }, s('g', { class: 'squares' }, squares), s('g', { class: 'pieces' }, pieces));

  // Slide the piece that just moved (once per move, when animation is on).
  const key = last && !reviewing ? `${game.id}:${board.ply}` : null;
  if (key && key !== lastAnimated && state.settings.animation) {
    const mover = pieces.find((p) => p.getAttribute('data-piece-square') === last.to);
    const [fx, fy] = squareXY(last.from, flipped);
    const [tx, ty] = squareXY(last.to, flipped);
    if (mover && typeof mover.animate === 'function') {
      requestAnimationFrame(() => mover.animate(
        [{ transform: `translate(${fx - tx}px, ${fy - ty}px)` }, { transform: 'translate(0px, 0px)' }],
        { duration: 180, easing: 'ease-out' }));
    }
  }
  lastAnimated = key ?? lastAnimated;

  if (!reviewing) {
    attachDrag(svg, {
      squareAt: (x, y) => squareAt(x, y, flipped),
      canDrag: (from) => {
        const piece = game.board.pieces.find((p) => p.square === from);
        return Boolean(piece) && piece.color === game.board.turn && destinations(game, from).length > 0;
      },
      drop: (from, to) => intent({ type: 'drop', from, to }),
      select: (square) => intent({ type: 'select', square }),
    });
  }
  // After a keyboard tap re-renders the board, the focus goes back to the same square.
  if (keyboardActive && keyboardSquare) {
    // A microtask runs once the new board is in the document, before any further key press.
    queueMicrotask(() => {
      if (!state.ui.promotion && !state.ui.dialog) svg.querySelector(`g.sq[data-square="${keyboardSquare}"]`)?.focus();
    });
  }
  svg.addEventListener('pointerdown', () => { keyboardActive = false; });
  return svg;
}
