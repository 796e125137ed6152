// ui/views/pointer.js, the drag handling both SVG boards share, driven by hand-made pointer
// events on a stand-in SVG shown 400 px wide (2 board units a pixel). The real web view drags on
// both boards in tests/e2e/game.test.mjs and tests/e2e/chaturaji.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { attachDrag } from '../../ui/views/pointer.js';

class FakePiece {
  constructor() { this.attrs = {}; this.classes = new Set(); this.parentNode = { append: () => {} }; }
  setAttribute(k, v) { this.attrs[k] = v; }
  removeAttribute(k) { delete this.attrs[k]; }
  get classList() {
    return { add: (c) => this.classes.add(c), remove: (c) => this.classes.delete(c) };
  }
}

/** A board whose squares are named by column and row ("c3"), with a piece on every square. */
function setup({ canDrag = () => true } = {}) {
  const listeners = {};
  const pieces = new Map();
  const svg = {
    captured: null,
    addEventListener: (type, fn) => { listeners[type] = fn; },
    getBoundingClientRect: () => ({ left: 0, top: 0, width: 400, height: 400 }),
    querySelector: (css) => {
      const square = /data-piece-square="(\w+)"/.exec(css)[1];
      if (!pieces.has(square)) pieces.set(square, new FakePiece());
      return pieces.get(square);
    },
    setPointerCapture(id) { this.captured = id; },
  };
  const reports = [];
  attachDrag(svg, {
    squareAt: (x, y) => (x < 0 || y < 0 || x >= 800 || y >= 800 ? null : `c${Math.floor(x / 100)}${Math.floor(y / 100)}`),
    canDrag,
    drop: (from, to) => reports.push(['drop', from, to]),
    select: (from) => reports.push(['select', from]),
  });
  const fire = (type, clientX, clientY, extra = {}) => listeners[type]({ button: 0, pointerId: 1, clientX, clientY, ...extra });
  /** A click as the browser sends it after a press; true if it reaches the squares. */
  const click = () => {
    let stopped = false;
    listeners.click({ stopPropagation: () => { stopped = true; } });
    return !stopped;
  };
  return { svg, pieces, reports, fire, click };
}

test('a drag onto another square reports a drop, moving the piece with the pointer on the way', () => {
  const { svg, pieces, reports, fire, click } = setup();
  fire('pointerdown', 25, 25); // square c00
  fire('pointermove', 75, 30);
  const piece = pieces.get('c00');
  assert.ok(piece.classes.has('dragging'));
  assert.equal(piece.attrs.style, 'transform: translate(100px, 10px)', 'board units: 2 a pixel');
  assert.equal(svg.captured, 1);
  fire('pointerup', 125, 75); // square c21
  assert.deepEqual(reports, [['drop', 'c00', 'c21']]);
  assert.equal(piece.attrs.style, undefined, 'put back for the next render');
  assert.equal(piece.classes.has('dragging'), false);
  assert.equal(click(), false, 'the click that ends a drag is not a tap');
});

test('a press without moving is a tap left to the click handlers; a tiny wobble is still a tap', () => {
  const { reports, fire, click, pieces } = setup();
  fire('pointerdown', 25, 25);
  fire('pointermove', 27, 27); // under 12 board units
  assert.equal(pieces.get('c00').classes.has('dragging'), false);
  fire('pointerup', 27, 27);
  assert.deepEqual(reports, []);
  assert.equal(click(), true);
});

test('a drag back to its own square or off the board reselects the piece', () => {
  const { reports, fire } = setup();
  fire('pointerdown', 25, 25);
  fire('pointermove', 80, 80);
  fire('pointerup', 30, 30);
  fire('pointerdown', 25, 25);
  fire('pointermove', 80, 80);
  fire('pointerup', 500, 30);
  assert.deepEqual(reports, [['select', 'c00'], ['select', 'c00']]);
});

test('no drag from a square that may not move, with another button, another pointer, or after a cancel', () => {
  const { reports, fire, pieces } = setup({ canDrag: (square) => square !== 'c11' });
  fire('pointerdown', 75, 75); // c11: refused
  fire('pointermove', 150, 150);
  fire('pointerup', 150, 150);
  fire('pointerdown', 25, 25, { button: 2 });
  fire('pointermove', 150, 150);
  fire('pointerup', 150, 150);
  fire('pointerdown', 25, 25);
  fire('pointermove', 150, 150, { pointerId: 2 });
  fire('pointerup', 150, 150, { pointerId: 2 });
  assert.equal(pieces.get('c00').classes.has('dragging'), false, 'another finger moves nothing');
  fire('pointermove', 150, 150);
  fire('pointercancel', 150, 150);
  assert.equal(pieces.get('c00').attrs.style, undefined);
  assert.equal(pieces.get('c00').classes.has('dragging'), false);
  fire('pointerup', 150, 150);
  assert.deepEqual(reports, []);
});
