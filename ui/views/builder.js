// The army builder: palette with costs, budget meter, the side's half of the board with the
// squares placeable now, presets and saved armies, the side's status, and lock-in. Every rule
// (costs aside, which are printed on the palette) comes from the backend's answers.
import { h, screen } from './dom.js';
import { pieceIcon } from '../pieces.js';
import { PALETTE, namedSide, shownSaved, visibleArmies } from '../store.js';
import { renderPlainBoard, squareAtPoint } from './plainboard.js';
import { errorText } from './errors.js';

/**
 * A refusal or start problem in the reader's language (the backend gives the rule and squares);
 * with `max`, a list of squares longer than that ends in "…" (the board marks them all).
 */
export function problemText(t, p, max = Infinity) {
  const list = (squares = []) => (squares.length > max ? `${squares.slice(0, max).join(', ')}…` : squares.join(', '));
  const params = {
    color: t(`color.${p.color}`),
    spent: p.spent ?? '',
    budget: 39,
    rank: p.rank ?? '',
    squares: list(p.squares),
    empty: list(p.empty),
    king: p.color === 'white' ? 'e1' : 'e8',
  };
  const key = `army.rule.${p.kind}`;
  const text = t(key, params);
  return text === `[${key}]` ? p.message : text;
}

/** A drag from the palette ends on a board square: that piece is placed there. */
let suppressClickUntil = 0;

/** What a drag shows: the piece above the finger, and the square it would land on outlined. */
function dragFeedback(color, role) {
  const ghost = h('div', { class: 'drag-ghost', 'aria-hidden': 'true' }, pieceIcon(color, role, 56));
  document.body.append(ghost);
  let target = null;
  return {
    move(x, y) {
      ghost.style.transform = `translate(${x - 28}px, ${y - 64}px)`;
      const square = squareAtPoint(x, y);
      const node = square ? document.querySelector(`#builder-board g.sq[data-square="${square}"]`) : null;
      if (node === target) return;
      target?.classList.remove('drop-target');
      node?.classList.add('drop-target');
      target = node;
    },
    end() {
      ghost.remove();
      target?.classList.remove('drop-target');
    },
  };
}

function paletteItem(state, build, role, cost, intent, t) {
  const selected = build.role === role;
  let dragging = null;
  let feedback = null;
  const stop = () => {
    feedback?.end();
    feedback = null;
    dragging = null;
  };
  return h('button', {
    type: 'button',
    class: `palette-item${selected ? ' on' : ''}`,
    id: `palette-${role}`,
    'data-role': role,
    'aria-pressed': String(selected),
    'aria-label': t('build.palette.item', { piece: t(`role.${role}`), cost }),
    onclick: () => {
      if (Date.now() >= suppressClickUntil) intent({ type: 'build/role', role });
    },
    onpointerdown: (event) => {
      dragging = { x: event.clientX, y: event.clientY };
      try {
        event.currentTarget.setPointerCapture(event.pointerId);
      } catch {
        // Without capture (an unknown pointer) the drop still reads the point it ends on.
      }
    },
    onpointermove: (event) => {
      if (!dragging || (!feedback && Math.hypot(event.clientX - dragging.x, event.clientY - dragging.y) <= 16)) return;
      feedback ??= dragFeedback(build.side, role);
      feedback.move(event.clientX, event.clientY);
    },
    onpointerup: (event) => {
      if (!dragging) return;
      const moved = Math.hypot(event.clientX - dragging.x, event.clientY - dragging.y) > 16;
      stop();
      if (!moved) return;
      suppressClickUntil = Date.now() + 400;
      const square = squareAtPoint(event.clientX, event.clientY);
      if (square) intent({ type: 'build/drop', role, square });
    },
    onpointercancel: stop,
  },
  pieceIcon(build.side, role, 34),
  h('span', { class: 'palette-name', 'aria-hidden': 'true' }, t(`role.${role}`)),
  h('span', { class: 'palette-cost' }, String(cost)));
}

/** Dragging a placed piece (not the king) to another square moves it there. */
function withPieceDrag(svg, view, intent) {
  let drag = null;
  let suppressUntil = 0;
  const own = new Set(view.pieces.filter((p) => p.role !== 'king').map((p) => p.square));
  const squareOf = (event) => event.target?.closest?.('[data-square]')?.getAttribute('data-square') ?? null;
  svg.addEventListener('click', (event) => {
    if (Date.now() < suppressUntil) event.stopPropagation();
  }, { capture: true });
  let feedback = null;
  const stop = () => {
    feedback?.end();
    feedback = null;
    drag = null;
  };
  svg.addEventListener('pointerdown', (event) => {
    const from = squareOf(event);
    if (from && own.has(from)) drag = { from, x: event.clientX, y: event.clientY, pointer: event.pointerId };
  });
  svg.addEventListener('pointermove', (event) => {
    if (!drag || event.pointerId !== drag.pointer) return;
    if (!feedback && Math.hypot(event.clientX - drag.x, event.clientY - drag.y) < 16) return;
    const piece = view.pieces.find((p) => p.square === drag.from);
    feedback ??= dragFeedback(piece.color, piece.role);
    feedback.move(event.clientX, event.clientY);
  });
  svg.addEventListener('pointerup', (event) => {
    if (!drag || event.pointerId !== drag.pointer) return;
    const { from, x, y } = drag;
    stop();
    if (Math.hypot(event.clientX - x, event.clientY - y) < 16) return; // a tap
    suppressUntil = Date.now() + 400;
    const to = squareAtPoint(event.clientX, event.clientY);
    if (to && to !== from) intent({ type: 'build/move', from, to });
  });
  svg.addEventListener('pointercancel', stop);
  return svg;
}

function savedList(build, intent, t) {
  const saved = shownSaved(build);
  return h('div', { class: 'saved-armies', id: 'saved-armies' },
    saved.length ? null : h('p', { class: 'muted' }, t('build.saved.none')),
    h('ul', { class: 'saved-list' }, saved.map((a) => h('li', { class: 'saved-army', 'data-army-id': a.id },
      build.renaming && build.renaming.id === a.id
        ? h('form', { class: 'rename', onsubmit: (e) => { e.preventDefault(); intent({ type: 'build/rename', id: a.id, name: e.target.elements.name.value }); } },
          h('input', {
            name: 'name', class: 'rename-input', value: build.renaming.text, maxlength: 40, 'aria-label': t('build.saved.name'),
            // Kept in the state as typed, so a re-render (a push arriving) does not undo it.
            oninput: (e) => intent({ type: 'build/renaming', renaming: { id: a.id, text: e.target.value }, quiet: true }),
          }),
          h('button', { type: 'submit', class: 'action', id: `rename-ok-${a.id}` }, t('build.saved.ok')))
        : h('button', { type: 'button', class: 'action saved-load', onclick: () => intent({ type: 'build/preset', preset: 'saved', army: a.army }) },
          h('span', { class: 'saved-name' }, a.name), h('span', { class: 'muted' }, ` · ${t(`army.status.${a.status}`)}`)),
      h('button', { type: 'button', class: 'action small saved-rename', 'aria-label': t('build.saved.rename', { name: a.name }), onclick: () => intent({ type: 'build/renaming', renaming: { id: a.id, text: a.name } }) }, '✎'),
      h('button', { type: 'button', class: 'action small saved-delete', 'aria-label': t('build.saved.delete', { name: a.name }), onclick: () => intent({ type: 'build/delete', id: a.id }) }, '✕')))),
    h('form', { class: 'save-army', onsubmit: (e) => { e.preventDefault(); intent({ type: 'build/save' }); } },
      h('input', { id: 'save-name', placeholder: t('build.saved.name'), value: build.saveName, maxlength: 40, oninput: (e) => intent({ type: 'build/name', text: e.target.value }) }),
      h('button', { type: 'submit', class: 'action', id: 'save-army' }, t('build.saved.save'))));
}

function handover(build, intent, t) {
  // With names, the hand-over says to whom: "Pass the device to Bruno (Black)".
  const black = namedSide(build.names, 'black');
  return h('div', { class: 'handover', id: 'handover' },
    h('p', { class: 'handover-big' }, t('build.handover.title')),
    h('p', {}, black ? t('build.handover.body.named', { name: black }) : t('build.handover.body')),
    h('button', { type: 'button', class: 'action accent big', id: 'handover-go', onclick: () => intent({ type: 'build/handover-done' }) },
      black ? t('build.handover.go.named', { name: black }) : t('build.handover.go')),
    build.confirm === 'discard' ? discardDialog(intent, t) : null);
}

/** Back on the hand-over would throw White's locked army away: it asks first. */
function discardDialog(intent, t) {
  return h('div', { class: 'overlay' },
    h('div', { class: 'dialog', id: 'discard-dialog', role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': 'discard-dialog-title' },
      h('h2', { id: 'discard-dialog-title' }, t('build.discard.title')),
      h('p', {}, t('build.discard.body')),
      h('div', { class: 'dialog-actions' },
        h('button', { type: 'button', class: 'action', id: 'discard-stay', onclick: () => intent({ type: 'build/confirm', confirm: null }) }, t('build.discard.stay')),
        h('button', { type: 'button', class: 'action danger', id: 'discard-leave', onclick: () => intent({ type: 'back' }) }, t('build.discard.leave')))));
}

export function renderBuilder(state, { t, intent }) {
  const build = state.build;
  const side = build.side;
  const builder = namedSide(build.names, side);
  const title = builder ? t('build.title.named', { name: builder, color: t(`color.${side}`) }) : t(`build.title.${side}`);
  // A network room's builder returns to the room, not the menu.
  const back = () => intent(build.net ? { type: 'net/return' } : { type: 'back' });
  if (build.stage === 'handover') {
    const ask = build.net ? back : () => intent({ type: 'build/confirm', confirm: 'discard' });
    return screen('builder', t('build.handover.heading'), t('nav.back'), ask, handover(build, intent, t));
  }
  const view = build[side];
  if (!view) return screen('builder', title, t('nav.back'), back, h('p', { class: 'muted' }, t('build.loading')));

  const pieces = visibleArmies(build).flatMap((c) => (build[c] ? build[c].pieces : []));
  const marks = {};
  const mark = (sq, kind) => { (marks[sq] ??= []).push(kind); };
  // The squares a piece may go to next, when the points left pay for it (a full budget shows none).
  const cost = build.role ? PALETTE.find(([role]) => role === build.role)?.[1] ?? 0 : 0;
  if (build.role && cost <= view.budget - view.spent) view.placeable.forEach((sq) => mark(sq, 'place'));
  const refusal = build.refused;
  if (refusal) [...refusal.squares, ...refusal.empty].forEach((sq) => mark(sq, 'refused'));
  build.problems.forEach((p) => [...p.squares, ...p.empty].forEach((sq) => mark(sq, 'refused')));

  const left = view.budget - view.spent;
  const ready = view.problems.length === 0;
  const lastStep = build.computer || side === 'black';
  const showMirror = !build.computer && side === 'black' && !build.hidden && build.white;

  return screen('builder', title, t('nav.back'), back,
    h('div', { class: 'builder', 'data-side': side },
      h('div', { class: 'builder-top' },
      h('div', { class: 'budget', id: 'budget', 'data-spent': view.spent },
        h('div', { class: 'budget-text' },
          h('strong', { id: 'budget-spent' }, t('build.budget', { spent: view.spent, budget: view.budget })),
          h('span', { class: left < 0 ? 'error' : 'muted' }, left > 0 ? t('build.left', { left }) : left === 0 ? t('build.exact') : t('build.over', { over: -left }))),
        h('div', { class: 'meter', role: 'meter', 'aria-valuemin': 0, 'aria-valuemax': view.budget, 'aria-valuenow': view.spent, 'aria-label': t('build.meter') },
          h('div', { class: `meter-fill${left === 0 ? ' full' : ''}`, style: `width: ${Math.min(100, (view.spent / view.budget) * 100)}%` }))),
      h('div', { class: 'palette', id: 'palette', role: 'toolbar', 'aria-label': t('build.palette') },
        PALETTE.map(([role, cost]) => paletteItem(state, build, role, cost, intent, t))),
      // One slot of fixed height, always there: the refusal of the last tap, else the hint. So
      // the board below never moves when a refusal comes or goes or the hint changes length (a
      // long list of squares is cut short: the board marks them all).
      refusal
        ? h('p', { class: 'builder-note error refusal', id: 'build-refusal', role: 'alert' }, problemText(t, refusal, 3))
        : h('p', { class: 'builder-note muted hint', id: 'build-hint' }, build.role ? t('build.hint.place', { piece: t(`role.${build.role}`) }) : t('build.hint.pick'))),
      withPieceDrag(renderPlainBoard({
        id: 'builder-board',
        pieces,
        marks,
        flipped: side === 'black',
        theme: state.settings.theme,
        label: t('build.board', { color: t(`color.${side}`) }),
        t,
        onSquare: (square) => intent({ type: 'build/square', square }),
      }), view, intent),
      h('div', { class: `status-card status-${view.status}`, id: 'army-status', 'data-status': view.status },
        h('strong', {}, t(`army.status.${view.status}`)),
        h('ul', {},
          h('li', {}, t(`army.status.${view.status}.castling`)),
          h('li', {}, t(`army.status.${view.status}.promotion`)),
          h('li', {}, t(`army.status.${view.status}.double`)))),
      h('h2', {}, t('build.presets')),
      h('div', { class: 'actions presets' },
        h('button', { type: 'button', class: 'action', id: 'preset-orthodox', onclick: () => intent({ type: 'build/preset', preset: 'orthodox' }) }, t('build.preset.orthodox')),
        h('button', { type: 'button', class: 'action', id: 'preset-random', onclick: () => intent({ type: 'build/preset', preset: 'random' }) }, t('build.preset.random')),
        h('button', { type: 'button', class: 'action', id: 'preset-empty', onclick: () => intent({ type: 'build/preset', preset: 'empty' }) }, t('build.preset.empty')),
        showMirror ? h('button', { type: 'button', class: 'action', id: 'preset-mirror', onclick: () => intent({ type: 'build/preset', preset: 'mirror' }) }, t('build.preset.mirror')) : null,
        build.undo && build.undo.color === side
          ? h('button', { type: 'button', class: 'action accent', id: 'preset-undo', onclick: () => intent({ type: 'build/undo' }) }, t('build.undo'))
          : null),
      h('h2', {}, t('build.saved')),
      savedList(build, intent, t),
      build.problems.length
        ? h('div', { class: 'error', id: 'start-problems', role: 'alert' }, build.problems.map((p) => h('p', {}, problemText(t, p))))
        : null,
      build.error ? h('p', { class: 'error', role: 'alert', id: 'build-error' }, errorText(build.error, t)) : null,
      h('button', {
        type: 'button', class: 'action accent big', id: 'lock-in', disabled: !ready,
        onclick: () => intent({ type: 'build/lock' }),
      }, build.net ? t('net.setup.lock') : lastStep ? t('build.start') : t(build.hidden ? 'build.lock.hidden' : 'build.lock')),
      ready ? null : h('p', { class: 'muted', id: 'lock-why' }, problemText(t, view.problems[0])),
      ready && !build.net
        ? h('button', {
          type: 'button', class: 'action', id: 'analyse-start',
          onclick: () => intent({ type: 'analysis/armies', side: build.side, army: view.army, other: build[build.side === 'white' ? 'black' : 'white']?.army ?? null }),
        }, t('analysis.openStart'))
        : null));
}
