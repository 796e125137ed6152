// The board: an SVG of 8×8 squares (100 units each) with coordinates, highlights and pieces.
// Taps report {type:'square'}, drags report {type:'drop'}; the legal destinations come from the
// backend's snapshot. Every square is a labelled button for screen readers ("e4, white knight").
import { s } from './dom.js';
import { pieceShape } from '../pieces.js';
import { destinations, isFlipped } from '../store.js';

const FILES = 'abcdefgh';
/** Pieces fill about 80% of a square (their art spans ~34 of its 45 units). */
const PIECE_SCALE = 2.36;

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

export function renderBoard(state, { t, intent }) {
  const game = state.game;
  const reviewing = Boolean(state.ui.review);
  const board = state.ui.review ?? game.board;
  const flipped = isFlipped(state);
  const selected = reviewing ? null : state.ui.selected;
  const targets = new Set(reviewing ? [] : destinations(game, selected));
  const occupied = new Map(board.pieces.map((p) => [p.square, p]));
  const last = board.last_move;

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
      showRank ? s('text', { x: x + 5, y: y + 20, class: `coord ${light ? 'on-light' : 'on-dark'}`, 'aria-hidden': 'true' }, String(rank)) : null,
      showFile ? s('text', { x: x + 94, y: y + 94, 'text-anchor': 'end', class: `coord ${light ? 'on-light' : 'on-dark'}`, 'aria-hidden': 'true' }, FILES[f]) : null));
      if (piece) {
        pieces.push(s('g', { class: 'piece', 'data-piece-square': square, 'data-piece': `${piece.color}-${piece.role}`, 'pointer-events': 'none' },
          s('g', { transform: `translate(${x + 50 - 22.5 * PIECE_SCALE} ${y + 50 - 23.3 * PIECE_SCALE}) scale(${PIECE_SCALE})` }, pieceShape(piece.color, piece.role))));
      }
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

  if (!reviewing) attachDrag(svg, state, flipped, intent);
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

/** Drag and drop with pointer events; a drag that ends on another square reports a drop. */
function attachDrag(svg, state, flipped, intent) {
  let drag = null;
  let suppressClickUntil = 0;
  svg.addEventListener('click', (event) => {
    if (Date.now() < suppressClickUntil) event.stopPropagation();
  }, { capture: true });
  const toBoard = (event) => {
    const rect = svg.getBoundingClientRect();
    return [((event.clientX - rect.left) * 800) / rect.width, ((event.clientY - rect.top) * 800) / rect.height];
  };
  svg.addEventListener('pointerdown', (event) => {
    if (event.button !== 0) return;
    const [x, y] = toBoard(event);
    const from = squareAt(x, y, flipped);
    const game = state.game;
    const piece = from && game.board.pieces.find((p) => p.square === from);
    if (!piece || piece.color !== game.board.turn || !destinations(game, from).length) return;
    const node = svg.querySelector(`[data-piece-square="${from}"]`);
    drag = { from, x, y, node, moved: false, pointer: event.pointerId };
  });
  svg.addEventListener('pointermove', (event) => {
    if (!drag || event.pointerId !== drag.pointer) return;
    const [x, y] = toBoard(event);
    if (!drag.moved && Math.hypot(x - drag.x, y - drag.y) < 12) return;
    if (!drag.moved) {
      drag.moved = true;
      svg.setPointerCapture?.(event.pointerId);
      drag.node?.parentNode?.append(drag.node); // on top of the other pieces
      drag.node?.classList.add('dragging');
    }
    drag.node?.setAttribute('style', `transform: translate(${x - drag.x}px, ${y - drag.y}px)`);
  });
  const end = (event) => {
    if (!drag || event.pointerId !== drag.pointer) return;
    const { from, moved } = drag;
    drag.node?.removeAttribute('style');
    drag.node?.classList.remove('dragging');
    drag = null;
    if (!moved) return; // a tap: the click handler reports it
    const [x, y] = toBoard(event);
    const to = squareAt(x, y, flipped);
    suppressClickUntil = Date.now() + 400; // the click that ends a drag is not a tap
    if (to && to !== from) intent({ type: 'drop', from, to });
    else intent({ type: 'select', square: from });
  };
  svg.addEventListener('pointerup', end);
  svg.addEventListener('pointercancel', () => {
    if (drag) drag.node?.removeAttribute('style');
    drag = null;
  });
}
