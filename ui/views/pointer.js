// Dragging pieces on an 800×800 SVG board, shared by the chess and the Chaturaji boards. A press
// on a piece that may move becomes a drag once the pointer travels a little; a drag that ends on
// another square reports a drop, one that ends where it began reselects the piece. A press that
// never moved is a tap, left to the squares' own click handlers.

/** The board's viewBox is this many units on each side (8 squares of 100). */
const BOARD_UNITS = 800;
/** How far (in board units) the pointer travels before a press becomes a drag. */
const DRAG_THRESHOLD = 12;
/** How long (ms) after a drag ends the click it causes is swallowed, so it is not read as a tap. */
const CLICK_GRACE_MS = 400;

/**
 * Lets the pieces on `svg` be dragged with pointer events (mouse, touch, pen).
 * - `squareAt(x, y)`: the square under board coordinates (0–800 on each axis), or null off the board;
 * - `canDrag(square)`: whether a press there picks up a piece that may move now;
 * - `drop(from, to)`: the piece was dragged from `from` to another square `to`;
 * - `select(from)`: the drag ended on its own square or off the board.
 * The piece drawn on a square is the element with `data-piece-square` set to it.
 */
export function attachDrag(svg, { squareAt, canDrag, drop, select }) {
  let drag = null;
  let suppressClickUntil = 0;
  svg.addEventListener('click', (event) => {
    if (Date.now() < suppressClickUntil) event.stopPropagation();
  }, { capture: true });
  const toBoard = (event) => {
    const rect = svg.getBoundingClientRect();
    return [((event.clientX - rect.left) * BOARD_UNITS) / rect.width, ((event.clientY - rect.top) * BOARD_UNITS) / rect.height];
  };
  const release = () => {
    drag.node?.removeAttribute('style');
    drag.node?.classList.remove('dragging');
    drag = null;
  };
  svg.addEventListener('pointerdown', (event) => {
    if (event.button !== 0) return;
    const [x, y] = toBoard(event);
    const from = squareAt(x, y);
    if (!from || !canDrag(from)) return;
    const node = svg.querySelector(`[data-piece-square="${from}"]`);
    drag = { from, x, y, node, moved: false, pointer: event.pointerId };
  });
  svg.addEventListener('pointermove', (event) => {
    if (!drag || event.pointerId !== drag.pointer) return;
    const [x, y] = toBoard(event);
    if (!drag.moved && Math.hypot(x - drag.x, y - drag.y) < DRAG_THRESHOLD) return;
    if (!drag.moved) {
      drag.moved = true;
      svg.setPointerCapture?.(event.pointerId);
      drag.node?.parentNode?.append(drag.node); // on top of the other pieces
      drag.node?.classList.add('dragging');
    }
    // A CSS transform on an SVG element counts px in the SVG's own units, i.e. board units.
    drag.node?.setAttribute('style', `transform: translate(${x - drag.x}px, ${y - drag.y}px)`);
  });
  svg.addEventListener('pointerup', (event) => {
    if (!drag || event.pointerId !== drag.pointer) return;
    const { from, moved } = drag;
    release();
    if (!moved) return; // a tap: the click handler reports it
    const [x, y] = toBoard(event);
    const to = squareAt(x, y);
    suppressClickUntil = Date.now() + CLICK_GRACE_MS;
    if (to && to !== from) drop(from, to);
    else select(from);
  });
  svg.addEventListener('pointercancel', () => {
    if (drag) release();
  });
}
