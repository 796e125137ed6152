// The screen is drawn afresh on each change (main.js replaces the root's children). A redraw that
// lands between a press and its release replaces the node under the finger: the click, which
// needs the press and the release on one node, is lost, and a piece being dragged is dropped.
// Pushed changes (a LAN host appearing in the list, the opponent's move, engine news) arrive at
// any moment, so a tap could be eaten at random. While a pointer is down the redraw waits; the
// latest state is drawn as the click ends (or shortly after the release when no click
// comes), and never later than `maxMs` after the press, so a resting finger freezes nothing.

/** How long (ms) after a release without a click the held redraw waits for that click. */
export const RELEASE_GRACE_MS = 80;
/** The longest (ms) a press holds the redraw back. */
export const HOLD_MAX_MS = 1500;

/**
 * Wraps `draw(state)` so it waits while a pointer is pressed on `target` (an EventTarget, the
 * document in the app). Returns the wrapped draw; `draw` runs at most once per release with the
 * last state it was given.
 */
export function holdWhilePressed(target, draw, { maxMs = HOLD_MAX_MS, graceMs = RELEASE_GRACE_MS, timers = globalThis } = {}) {
  let pressed = false;
  let pending = null;
  let limit = null;
  let grace = null;
  const flush = () => {
    pressed = false;
    timers.clearTimeout(limit);
    timers.clearTimeout(grace);
    limit = grace = null;
    if (pending) {
      const { state } = pending;
      pending = null;
      draw(state);
    }
  };
  const later = (ms) => {
    if (!pressed) return;
    timers.clearTimeout(grace);
    grace = timers.setTimeout(flush, ms);
  };
  target.addEventListener('pointerdown', () => {
    pressed = true;
    timers.clearTimeout(grace);
    grace = null;
    timers.clearTimeout(limit);
    limit = timers.setTimeout(flush, maxMs);
  }, { capture: true });
  // The click follows the release. Its handlers run on the pressed nodes first; when it bubbles
  // up to `target` the held state is drawn at once, as if nothing had been held. A click whose
  // propagation a handler stopped is drawn on the next turn of the event loop instead.
  target.addEventListener('pointerup', () => later(graceMs), { capture: true });
  target.addEventListener('click', () => later(0), { capture: true });
  target.addEventListener('click', () => { if (pressed) flush(); });
  target.addEventListener('pointercancel', () => later(0), { capture: true });
  return (state) => {
    if (pressed) pending = { state };
    else draw(state);
  };
}
