// The game screen: players with clocks and captured pieces, the board, actions, the SAN move
// list, keyboard move entry, and the promotion, result and export dialogs.
import { h, screen } from './dom.js';
import { renderBoard } from './board.js';
import { pieceIcon, ROLE_BY_LETTER } from '../pieces.js';
import { formatClock, isFlipped, plyLabels } from '../store.js';
import { errorText } from './errors.js';

function playerName(game, color, t) {
  if (game.opponent.kind === 'computer') {
    return game.opponent.color === color ? t('game.computer', { level: game.opponent.level }) : t('game.you');
  }
  return t(`color.${color}`);
}

function clockText(game, color) {
  if (!game.clock) return null;
  return formatClock(color === 'white' ? game.clock.white_ms : game.clock.black_ms);
}

function playerStrip(state, color, t) {
  const game = state.game;
  const taken = game.captured[color];
  const lead = color === 'white' ? game.material : -game.material;
  const running = game.clock && game.clock.running === color && !game.result;
  const toMove = game.board.turn === color && !game.result;
  return h('div', { class: `player${toMove ? ' to-move' : ''}`, id: `player-${color}`, 'data-color': color },
    h('span', { class: `swatch ${color}`, 'aria-hidden': 'true' }),
    h('div', { class: 'who' },
      h('span', { class: 'name' }, playerName(game, color, t)),
      h('span', { class: 'captured', 'aria-label': t('game.captured', { count: taken.length }) },
        taken.map((role) => pieceIcon(color === 'white' ? 'black' : 'white', role, 22)),
        lead > 0 ? h('span', { class: 'lead' }, `+${lead}`) : null)),
    game.clock
      ? h('span', { class: `clock${running ? ' running' : ''}${running && (color === 'white' ? game.clock.white_ms : game.clock.black_ms) < 20000 ? ' low' : ''}`, id: `clock-${color}`, role: 'timer', 'aria-label': t('game.clockOf', { player: playerName(game, color, t) }) }, clockText(game, color))
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

function resultTitle(result, t) {
  return result.winner ? t('result.wins', { color: t(`color.${result.winner}`) }) : t('result.draw');
}

function moveList(state, { t, intent }) {
  const game = state.game;
  const reviewPly = state.ui.review ? state.ui.review.ply : null;
  const rows = [];
  const labels = plyLabels(game.fen, game.history.length);
  for (let i = 0; i < game.history.length; i += 1) {
    const ply = i + 1;
    const current = reviewPly === ply || (reviewPly === null && ply === game.history.length);
    rows.push(h('li', { class: 'ply' },
      h('button', {
        type: 'button', class: `san${current ? ' current' : ''}`, 'data-ply': ply,
        'aria-current': current ? 'step' : null,
        onclick: () => intent({ type: 'review', ply }),
      }, labels[i] ? h('span', { class: 'num' }, labels[i]) : null, game.history[i])));
  }
  return h('section', { class: 'moves-panel', 'aria-label': t('game.moves') },
    h('div', { class: 'moves-head' },
      h('h2', {}, t('game.moves')),
      state.ui.review
        ? h('button', { type: 'button', class: 'chip accent', id: 'live', onclick: () => intent({ type: 'review/live' }) }, t('game.live'))
        : null),
    game.history.length
      ? h('ol', { class: 'moves', id: 'moves' }, rows)
      : h('p', { class: 'muted' }, t('game.noMoves')));
}

function actions(state, { t, intent }) {
  const game = state.game;
  const over = Boolean(game.result);
  const btn = (id, label, action, extra = {}) =>
    h('button', { type: 'button', class: `action${extra.accent ? ' accent' : ''}`, id, disabled: extra.disabled, onclick: () => intent(action) }, label);
  return h('div', { class: 'actions', role: 'toolbar', 'aria-label': t('game.actions') },
    game.claimable ? btn('claim-draw', t('game.claim', { reason: t(`reason.${game.claimable}`) }), { type: 'claim' }, { accent: true }) : null,
    btn('flip', t('game.flip'), { type: 'flip' }),
    btn('takeback', t('game.takeback'), { type: 'takeback' }, { disabled: over || game.history.length === 0 }),
    btn('offer-draw', t('game.offerDraw'), { type: 'offer-draw' }, { disabled: over }),
    btn('resign', t('game.resign'), { type: 'dialog', dialog: 'resign' }, { disabled: over }),
    btn('export', t('game.export'), { type: 'export' }),
    over ? btn('rematch', t('game.rematch'), { type: 'rematch' }, { accent: true }) : null);
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
  return dialog('result-dialog', resultTitle(result, t),
    h('p', { id: 'result-reason' }, t(`reason.${result.reason}`)),
    h('div', { class: 'dialog-actions' },
      h('button', { type: 'button', class: 'action accent', id: 'result-rematch', onclick: () => intent({ type: 'rematch' }) }, t('game.rematch')),
      h('button', { type: 'button', class: 'action', id: 'result-export', onclick: () => intent({ type: 'export' }) }, t('game.export')),
      h('button', { type: 'button', class: 'action', id: 'result-close', onclick: () => intent({ type: 'dialog', dialog: null }) }, t('dialog.viewBoard'))));
}

function resignDialog(state, { t, intent }) {
  return dialog('resign-dialog', t('resign.title'),
    h('p', {}, t('resign.body')),
    h('div', { class: 'dialog-actions' },
      h('button', { type: 'button', class: 'action danger', id: 'resign-confirm', onclick: () => intent({ type: 'resign' }) }, t('game.resign')),
      h('button', { type: 'button', class: 'action', id: 'resign-cancel', onclick: () => intent({ type: 'dialog', dialog: null }) }, t('dialog.cancel'))));
}

function exportDialog(state, { t, intent }) {
  return dialog('export-dialog', t('export.title'),
    h('textarea', { id: 'pgn-text', readonly: true, rows: 8, 'aria-label': t('export.title') }, state.ui.pgn ?? ''),
    state.ui.savedPath ? h('p', { class: 'muted', id: 'saved-path' }, t('export.saved', { path: state.ui.savedPath })) : null,
    h('div', { class: 'dialog-actions' },
      h('button', { type: 'button', class: 'action accent', id: 'pgn-copy', onclick: () => intent({ type: 'copy-pgn' }) }, t('export.copy')),
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
  if (game.result) status = h('p', { class: 'status over', id: 'status' }, `${resultTitle(game.result, t)} — ${t(`reason.${game.result.reason}`)}`);
  else if (game.thinking) status = h('p', { class: 'status thinking', id: 'thinking', role: 'status' }, h('span', { class: 'spinner', 'aria-hidden': 'true' }), t('game.thinking'));
  else status = h('p', { class: 'status', id: 'status' }, t('game.toMove', { color: t(`color.${game.board.turn}`) }), game.board.check ? ` — ${t('game.check')}` : '');
  const offer = game.draw_offer && !game.result
    ? h('div', { class: 'banner', id: 'draw-offer' },
      h('span', {}, game.opponent.kind === 'computer'
        ? t('game.drawDeclined')
        : t('game.drawOffered', { color: t(`color.${game.draw_offer}`) })),
      game.opponent.kind === 'human' && game.draw_offer !== game.board.turn
        ? h('button', { type: 'button', class: 'action accent', id: 'accept-draw', onclick: () => intent({ type: 'accept-draw' }) }, t('game.acceptDraw'))
        : null)
    : null;
  const body = screen('game', title, t('nav.menu'), () => intent({ type: 'leave' }),
    h('div', { class: 'game-layout' },
      h('div', { class: 'board-column' },
        playerStrip(state, top, t),
        h('div', { class: 'board-frame' }, renderBoard(state, ctx)),
        playerStrip(state, bottom, t),
        status,
        game.statuses
          ? h('p', { class: 'muted sides', id: 'side-statuses' },
            t('game.statuses', { white: t(`army.status.${game.statuses.white}`), black: t(`army.status.${game.statuses.black}`) }))
          : null,
        state.ui.error ? h('p', { class: 'error', id: 'game-error', role: 'alert' }, errorText(state.ui.error, t)) : null),
      h('div', { class: 'side-column' },
        offer,
        actions(state, ctx),
        moveList(state, ctx),
        moveEntry(state, ctx))));
  body.classList.add('game-screen');
  const overlays = [];
  if (state.ui.promotion) overlays.push(promotionDialog(state, ctx));
  else if (state.ui.dialog === 'result' && game.result) overlays.push(resultDialog(state, ctx));
  else if (state.ui.dialog === 'resign') overlays.push(resignDialog(state, ctx));
  else if (state.ui.dialog === 'export') overlays.push(exportDialog(state, ctx));
  body.append(...overlays);
  return body;
}
