// The game screen: players with clocks and captured pieces, the board, actions, the SAN move
// list, keyboard move entry, and the promotion, result and export dialogs.
import { h, s, screen } from './dom.js';
import { moveArrow, renderBoard, squareRing } from './board.js';
import { pieceIcon, ROLE_BY_LETTER } from '../pieces.js';
import { confirmsActions, formatClock, isFlipped, namedSide, personColor, plyLabels, resultHeadline, sideName } from '../store.js';
import { errorText } from './errors.js';
import { flashLine, shareLabel } from './flash.js';

function clockText(game, color) {
  if (!game.clock) return null;
  return formatClock(color === 'white' ? game.clock.white_ms : game.clock.black_ms);
}

function playerStrip(state, color, t) {
  const game = state.game;
  // Under review the captures and the material follow the move shown.
  const shown = state.ui.review && state.ui.review.captured ? state.ui.review : game;
  const taken = shown.captured[color];
  const lead = color === 'white' ? shown.material : -shown.material;
  const running = game.clock && game.clock.running === color && !game.result;
  const toMove = game.board.turn === color && !game.result;
  return h('div', { class: `player${toMove ? ' to-move' : ''}`, id: `player-${color}`, 'data-color': color },
    h('span', { class: `swatch ${color}`, 'aria-hidden': 'true' }),
    h('div', { class: 'who' },
      h('span', { class: 'name' }, sideName(game, color, t)),
      h('span', { class: 'captured', 'aria-label': t('game.captured', { count: taken.length }) },
        taken.map((role) => pieceIcon(color === 'white' ? 'black' : 'white', role, 22)),
        lead > 0 ? h('span', { class: 'lead' }, `+${lead}`) : null)),
    game.clock
      ? h('span', { class: `clock${running ? ' running' : ''}${running && (color === 'white' ? game.clock.white_ms : game.clock.black_ms) < 20000 ? ' low' : ''}`, id: `clock-${color}`, role: 'timer', 'aria-label': t('game.clockOf', { player: sideName(game, color, t) }) }, clockText(game, color))
      : null);
}

/** Updates the clock texts in place (the ticker pushes several times a second). */
export function patchClocks(root, state) {
  for (const color of ['white', 'black']) {
    const node = root.querySelector(`#clock-${color}`);
    if (node) {
      node.textContent = clockText(state.game, color);
      const ms = color === 'white' ? state.game.clock.white_ms : state.game.clock.black_ms;
      node.classList.toggle('low', state.game.clock.running === color && ms < 20000);
    }
  }
}

function resultTitle(state, t) {
  return resultHeadline(state.game.result, personColor(state.game), t, state.game.names);
}

/** The moves as buttons (a tap shows that position); `id` names the list. */
function plyButtons(state, intent, id, className) {
  const game = state.game;
  const reviewPly = state.ui.review ? state.ui.review.ply : null;
  const labels = plyLabels(game.fen, game.history.length);
  const rows = game.history.map((san, i) => {
    const ply = i + 1;
    const current = reviewPly === ply || (reviewPly === null && ply === game.history.length);
    return h('li', { class: 'ply' },
      h('button', {
        type: 'button', class: `san${current ? ' current' : ''}`, 'data-ply': ply,
        'aria-current': current ? 'step' : null,
        onclick: () => intent({ type: 'review', ply }),
      }, labels[i] ? h('span', { class: 'num' }, labels[i]) : null, san));
  });
  return h('ol', { class: className, id }, rows);
}

/** The full list beside the board (wide screens). */
function moveList(state, { t, intent }) {
  const game = state.game;
  return h('section', { class: 'moves-panel full-moves', 'aria-label': t('game.moves') },
    h('div', { class: 'moves-head' }, h('h2', {}, t('game.moves'))),
    game.history.length
      ? plyButtons(state, intent, 'moves-full', 'moves')
      : h('p', { class: 'muted' }, t('game.noMoves')));
}

/** The strip of moves right above the board (phones): one line, scrolled to the move shown. */
function moveStrip(state, { t, intent }) {
  return h('nav', { class: 'move-strip', 'aria-label': t('game.moves') },
    state.game.history.length
      ? plyButtons(state, intent, 'moves', 'strip-moves')
      : h('p', { class: 'muted strip-empty' }, t('game.noMoves')));
}

/** With "Confirm moves" on: the move waiting on the board, and Confirm / Cancel. */
export function confirmBar(state, { t, intent }) {
  const uci = state.ui.pending;
  if (!uci) return null;
  return h('div', { class: 'banner move-confirm', id: 'move-confirm-bar', role: 'group', 'aria-label': t('game.confirm.label') },
    h('span', {}, t('game.confirm.ask', { from: uci.slice(0, 2), to: uci.slice(2, 4) })),
    h('button', { type: 'button', class: 'action accent', id: 'move-confirm', onclick: () => intent({ type: 'move/confirm' }) }, t('game.confirm.ok')),
    h('button', { type: 'button', class: 'action', id: 'move-cancel', onclick: () => intent({ type: 'move/cancel' }) }, t('dialog.cancel')));
}

/** The step buttons' icons, drawn (the ⏮ ⏭ glyphs are missing from many phones' fonts). */
const NAV_ICONS = {
  first: ['M5 4h3v16H5z', 'M20 4v16L9 12z'],
  prev: ['M17 4v16L6 12z'],
  next: ['M7 4v16l11-8z'],
  last: ['M16 4h3v16h-3z', 'M4 4v16l11-8z'],
};
function navIcon(to) {
  return s('svg', { viewBox: '0 0 24 24', width: 22, height: 22, 'aria-hidden': 'true', class: 'nav-icon' },
    NAV_ICONS[to].map((d) => s('path', { d, fill: 'currentColor' })));
}

/** First, back, forward, last: stepping through the moves (and back to the live game). */
function moveNav(state, { t, intent }) {
  const count = state.game.history.length;
  const at = state.ui.review ? state.ui.review.ply : count;
  const btn = (to, disabled) => h('button', {
    type: 'button', class: 'action nav-step', id: `nav-${to}`, 'aria-label': t(`game.nav.${to}`), title: t(`game.nav.${to}`),
    disabled, onclick: () => intent({ type: 'review/step', to }),
  }, navIcon(to));
  return h('div', { class: 'move-nav', role: 'toolbar', 'aria-label': t('game.nav') },
    btn('first', at === 0),
    btn('prev', at === 0),
    btn('next', at >= count),
    btn('last', at >= count),
    state.ui.review
      ? h('button', { type: 'button', class: 'chip accent', id: 'live', onclick: () => intent({ type: 'review/live' }) }, t('game.live'))
      : null);
}

function actions(state, { t, intent }) {
  const game = state.game;
  const over = Boolean(game.result);
  const btn = (id, label, action, extra = {}) =>
    h('button', { type: 'button', class: `action${extra.accent ? ' accent' : ''}`, id, disabled: extra.disabled, onclick: () => intent(action) }, label);
  return h('div', { class: 'actions', role: 'toolbar', 'aria-label': t('game.actions') },
    game.claimable ? btn('claim-draw', t('game.claim', { reason: t(`reason.${game.claimable}`) }), { type: 'claim' }, { accent: true }) : null,
    game.clock && game.clock.running && !over && !game.paused ? btn('pause', t('game.pause'), { type: 'pause' }) : null,
    btn('flip', t('game.flip'), { type: 'flip' }),
    btn('takeback', t('game.takeback'), { type: 'takeback' }, { disabled: over || game.history.length === 0 }),
    btn('offer-draw', t('game.offerDraw'), confirmsActions(state.settings) ? { type: 'dialog', dialog: 'draw' } : { type: 'offer-draw' }, { disabled: over }),
    btn('resign', t('game.resign'), confirmsActions(state.settings) ? { type: 'dialog', dialog: 'resign' } : { type: 'resign' }, { disabled: over }),
    btn('export', t('game.export'), { type: 'export' }),
    btn('analyse', t('analysis.open'), { type: 'analysis/open', source: { kind: 'current' } }),
    over ? btn('rematch', t('game.rematch'), { type: 'rematch' }, { accent: true }) : null);
}

/** The hint and threat toggles of a game against the computer (both off until tapped). */
function aidsPanel(state, { t, intent }) {
  const aids = state.game.aids;
  if (!aids || state.game.result) return null;
  const toggle = (kind, on) => h('button', {
    type: 'button', class: `chip${on ? ' accent' : ''}`, id: `aid-${kind}`, 'aria-pressed': String(on),
    onclick: () => intent({ type: 'aid', kind, on: !on }),
  }, t(`game.${kind}`));
  return h('div', { class: 'aids', id: 'aids', role: 'group', 'aria-label': t('game.aids') },
    toggle('hint', aids.hint),
    toggle('threat', aids.threat),
    aids.thinking ? h('span', { class: 'muted', id: 'aid-thinking', role: 'status' }, t('game.aidThinking')) : null);
}

/** The board with the hint's ring and the threat's arrow over it, when shown. */
function boardWithAids(state, ctx) {
  const svg = renderBoard(state, ctx);
  const aids = state.game.aids;
  if (!aids || state.ui.review) return svg;
  const flipped = isFlipped(state);
  if (aids.hint_square) svg.append(squareRing(aids.hint_square, flipped, { class: 'hint-ring', id: 'hint-ring', 'data-square': aids.hint_square }));
  if (aids.threat_move) {
    const move = aids.threat_move;
    svg.append(moveArrow(move, flipped, { class: 'threat-arrow', id: 'threat-arrow', 'data-move': `${move.from}${move.to}` }));
  }
  return svg;
}

function moveEntry(state, { t, intent }) {
  return h('form', {
    class: 'move-entry', id: 'move-entry',
    onsubmit: (event) => { event.preventDefault(); intent({ type: 'typed-move' }); },
  },
  h('label', { for: 'move-input' }, t('game.typeMove')),
  h('div', { class: 'row' },
    h('input', {
      id: 'move-input', type: 'text', autocomplete: 'off', autocapitalize: 'off', spellcheck: 'false',
      placeholder: t('game.typeMove.placeholder'), value: state.ui.moveText,
      oninput: (event) => intent({ type: 'move/text', text: event.target.value }),
      disabled: Boolean(state.game.result),
    }),
    h('button', { type: 'submit', class: 'action', id: 'move-submit', disabled: Boolean(state.game.result) }, t('game.play'))));
}

function dialog(id, title, ...body) {
  return h('div', { class: 'overlay' },
    h('div', { class: 'dialog', id, role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': `${id}-title` },
      h('h2', { id: `${id}-title` }, title), ...body));
}

function promotionDialog(state, { t, intent }) {
  const { letters, from, to } = state.ui.promotion;
  const color = state.game.board.turn;
  return dialog('promotion', t('promotion.title'),
    h('div', { class: 'promotion-choices' }, letters.map((letter) => {
      const role = ROLE_BY_LETTER[letter];
      const name = t(`piece.${color}.${role}`);
      return h('button', {
        type: 'button', class: 'promo', 'data-role': role, 'aria-label': name,
        onclick: () => intent({ type: 'promote', uci: `${from}${to}${letter}` }),
      }, pieceIcon(color, role, 56), h('span', {}, t(`role.${role}`)));
    })),
    h('button', { type: 'button', class: 'action', id: 'promotion-cancel', onclick: () => intent({ type: 'promotion/cancel' }) }, t('dialog.cancel')));
}

function resultDialog(state, { t, intent }) {
  const result = state.game.result;
  return dialog('result-dialog', resultTitle(state, t),
    h('p', { id: 'result-reason' }, t(`reason.${result.reason}`)),
    h('div', { class: 'dialog-actions' },
      h('button', { type: 'button', class: 'action accent', id: 'result-rematch', onclick: () => intent({ type: 'rematch' }) }, t('game.rematch')),
      h('button', { type: 'button', class: 'action', id: 'result-export', onclick: () => intent({ type: 'export' }) }, t('game.export')),
      h('button', { type: 'button', class: 'action', id: 'result-analyse', onclick: () => intent({ type: 'analysis/open', source: { kind: 'current' } }) }, t('analysis.open')),
      h('button', { type: 'button', class: 'action', id: 'result-close', onclick: () => intent({ type: 'dialog', dialog: null }) }, t('dialog.viewBoard'))));
}

function resignDialog(state, { t, intent }) {
  return dialog('resign-dialog', t('resign.title'),
    h('p', {}, t('resign.body')),
    h('div', { class: 'dialog-actions' },
      h('button', { type: 'button', class: 'action danger', id: 'resign-confirm', onclick: () => intent({ type: 'resign' }) }, t('game.resign')),
      h('button', { type: 'button', class: 'action', id: 'resign-cancel', onclick: () => intent({ type: 'dialog', dialog: null }) }, t('dialog.cancel'))));
}

function drawDialog(state, { t, intent }) {
  return dialog('draw-dialog', t('draw.title'),
    h('p', {}, t(state.game.opponent.kind === 'computer' ? 'draw.body.computer' : 'draw.body')),
    h('div', { class: 'dialog-actions' },
      h('button', { type: 'button', class: 'action accent', id: 'draw-confirm', onclick: () => intent({ type: 'offer-draw' }) }, t('game.offerDraw')),
      h('button', { type: 'button', class: 'action', id: 'draw-cancel', onclick: () => intent({ type: 'dialog', dialog: null }) }, t('dialog.cancel'))));
}

function exportDialog(state, { t, intent }) {
  return dialog('export-dialog', t('export.title'),
    h('textarea', { id: 'pgn-text', readonly: true, rows: 8, 'aria-label': t('export.title') }, state.ui.pgn ?? ''),
    state.ui.savedPath ? h('p', { class: 'muted', id: 'saved-path' }, t('export.saved', { path: state.ui.savedPath })) : null,
    flashLine(state, 'pgn-copy', t),
    h('div', { class: 'dialog-actions' },
      h('button', { type: 'button', class: 'action accent', id: 'pgn-copy', onclick: () => intent({ type: 'copy-pgn' }) }, shareLabel(t, 'export.copy')),
      h('button', { type: 'button', class: 'action', id: 'pgn-save', onclick: () => intent({ type: 'save-pgn' }) }, t('export.save')),
      h('button', { type: 'button', class: 'action', id: 'export-close', onclick: () => intent({ type: 'dialog', dialog: null }) }, t('dialog.close'))));
}

export function renderGame(state, ctx) {
  const { t, intent } = ctx;
  const game = state.game;
  const flipped = isFlipped(state);
  const [top, bottom] = flipped ? ['white', 'black'] : ['black', 'white'];
  const title = t(game.variant === 'horde' ? 'game.title.horde' : game.variant === 'maharajah' ? 'game.title.maharajah' : 'game.title.chess');
  let status;
  if (game.result) status = h('p', { class: 'status over', id: 'status' }, `${resultTitle(state, t)} — ${t(`reason.${game.result.reason}`)}`);
  else if (game.thinking) status = h('p', { class: 'status thinking', id: 'thinking', role: 'status' }, h('span', { class: 'spinner', 'aria-hidden': 'true' }), t('game.thinking'));
  else {
    const mover = namedSide(game.names, game.board.turn);
    status = h('p', { class: 'status', id: 'status' },
      mover ? t('game.named.toMove', { name: mover }) : t('game.toMove', { color: t(`color.${game.board.turn}`) }),
      game.board.check ? ` — ${t('game.check')}` : '');
  }
  const paused = game.paused && !game.result
    ? h('div', { class: 'banner paused', id: 'paused-banner', role: 'status' },
      h('span', {}, t('game.paused')),
      h('button', { type: 'button', class: 'action accent', id: 'resume', onclick: () => intent({ type: 'resume' }) }, t('game.resume')))
    : null;
  const offer = game.draw_offer && !game.result
    ? h('div', { class: 'banner', id: 'draw-offer' },
      h('span', {}, game.opponent.kind === 'computer'
        ? t('game.drawDeclined')
        : namedSide(game.names, game.draw_offer)
          ? t('game.named.drawOffered', { name: namedSide(game.names, game.draw_offer) })
          : t('game.drawOffered', { color: t(`color.${game.draw_offer}`) })),
      game.opponent.kind === 'human' && game.draw_offer !== game.board.turn
        ? h('button', { type: 'button', class: 'action accent', id: 'accept-draw', onclick: () => intent({ type: 'accept-draw' }) }, t('game.acceptDraw'))
        : null,
      game.opponent.kind === 'human' && game.draw_offer !== game.board.turn
        ? h('button', { type: 'button', class: 'action', id: 'decline-draw', onclick: () => intent({ type: 'decline-draw' }) }, t('game.declineDraw'))
        : null)
    : null;
  const body = screen('game', title, t('nav.menu'), () => intent({ type: 'leave' }),
    h('div', { class: 'game-layout' },
      h('div', { class: 'board-column' },
        moveStrip(state, ctx),
        playerStrip(state, top, t),
        h('div', { class: 'board-frame' }, boardWithAids(state, ctx)),
        playerStrip(state, bottom, t),
        confirmBar(state, ctx),
        paused,
        moveNav(state, ctx),
        status,
        game.statuses
          ? h('p', { class: 'muted sides', id: 'side-statuses' },
            t('game.statuses', { white: t(`army.status.${game.statuses.white}`), black: t(`army.status.${game.statuses.black}`) }))
          : null,
        state.ui.error ? h('p', { class: 'error', id: 'game-error', role: 'alert' }, errorText(state.ui.error, t)) : null),
      h('div', { class: 'side-column' },
        offer,
        aidsPanel(state, ctx),
        actions(state, ctx),
        moveList(state, ctx),
        moveEntry(state, ctx))));
  body.classList.add('game-screen');
  // Zen mode: the board, the players and the clocks; the moves and the extras step aside.
  if (state.settings.zen) body.classList.add('zen');
  const overlays = [];
  if (state.ui.promotion) overlays.push(promotionDialog(state, ctx));
  else if (state.ui.dialog === 'result' && game.result) overlays.push(resultDialog(state, ctx));
  else if (state.ui.dialog === 'resign') overlays.push(resignDialog(state, ctx));
  else if (state.ui.dialog === 'draw' && !game.result) overlays.push(drawDialog(state, ctx));
  else if (state.ui.dialog === 'export') overlays.push(exportDialog(state, ctx));
  body.append(...overlays);
  return body;
}
