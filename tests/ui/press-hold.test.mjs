// A redraw never replaces the node under a press: it waits for the click (ui/press-hold.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { holdWhilePressed, HOLD_MAX_MS, RELEASE_GRACE_MS } from '../../ui/press-hold.js';

/** Timers that run only when told to, in time order. */
function fakeTimers() {
  let now = 0;
  let next = 1;
  const due = new Map();
  return {
    setTimeout: (fn, ms) => { const id = next++; due.set(id, { at: now + ms, fn }); return id; },
    clearTimeout: (id) => { due.delete(id); },
    advance(ms) {
      const end = now + ms;
      for (;;) {
        const [id, t] = [...due.entries()].sort((a, b) => a[1].at - b[1].at)[0] ?? [];
        if (!t || t.at > end) break;
        due.delete(id);
        now = t.at;
        t.fn();
      }
      now = end;
    },
  };
}

const setup = () => {
  const target = new EventTarget();
  const timers = fakeTimers();
  const drawn = [];
  const render = holdWhilePressed(target, (s) => drawn.push(s), { timers });
  const fire = (type) => target.dispatchEvent(new Event(type));
  return { render, drawn, timers, fire };
};

test('with nothing pressed, a state is drawn at once', () => {
  const { render, drawn } = setup();
  render(1);
  render(2);
  assert.deepEqual(drawn, [1, 2]);
});

test('a state that comes during a press is drawn after the click, once, the latest', () => {
  const { render, drawn, timers, fire } = setup();
  fire('pointerdown');
  render('pushed list');
  render('newer list');
  assert.deepEqual(drawn, [], 'the node under the finger stays');
  fire('pointerup');
  assert.deepEqual(drawn, [], 'the click still finds the nodes that were pressed');
  // In the DOM the click's own handlers run before it bubbles to the document; then it is drawn.
  fire('click');
  assert.deepEqual(drawn, ['newer list']);
  timers.advance(HOLD_MAX_MS);
  assert.deepEqual(drawn, ['newer list'], 'drawn once');
  render('after');
  assert.deepEqual(drawn, ['newer list', 'after']);
});

test('a release without a click draws after the grace; a cancelled press at once', () => {
  const { render, drawn, timers, fire } = setup();
  fire('pointerdown');
  render('a');
  fire('pointerup');
  timers.advance(RELEASE_GRACE_MS - 1);
  assert.deepEqual(drawn, []);
  timers.advance(1);
  assert.deepEqual(drawn, ['a']);
  fire('pointerdown');
  render('b');
  fire('pointercancel');
  timers.advance(0);
  assert.deepEqual(drawn, ['a', 'b']);
});

test('a finger resting on the screen holds the redraw back at most HOLD_MAX_MS', () => {
  const { render, drawn, timers, fire } = setup();
  fire('pointerdown');
  render('clock');
  timers.advance(HOLD_MAX_MS - 1);
  assert.deepEqual(drawn, []);
  timers.advance(1);
  assert.deepEqual(drawn, ['clock']);
  render('later');
  assert.deepEqual(drawn, ['clock', 'later'], 'no longer held after the limit');
});
