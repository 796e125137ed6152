// The network game screen (online or LAN): the room code while waiting, the hidden lock-in,
// then the board with both players' connection state, the server's clocks, the pause countdown,
// draws, resignation and the result. The board and its taps are the local game's.
import { h, screen } from './dom.js';
import { renderBoard } from './board.js';
import { confirmBar } from './game.js';
import { pieceIcon } from '../pieces.js';
import { confirmsActions, formatClock, isFlipped, plyLabels } from '../store.js';
import { formatCountdown, myRatingChange, pauseControl } from '../net.js';
import { errorText } from './errors.js';
import { flashLine, shareLabel } from './flash.js';
import { qrCode } from './qr.js';

function clockText(clock, color) {
  return clock ? formatClock(color === 'white' ? clock.white_ms : clock.black_ms) : null;
}

function playerStrip(state, color, t) {
  const net = state.net;
  const game = state.game;
  const seat = net.seats[color];
  const mine = net.seat === color;
  const taken = game ? game.captured[color] : [];
  const running = net.clock && net.clock.running === color && !net.result;
  const online = seat.connected;
  return h('div', { class: `player${game && game.board.turn === color && !net.result ? ' to-move' : ''}`, id: `player-${color}`, 'data-color': color },
    h('span', { class: `swatch ${color}`, 'aria-hidden': 'true' }),
    h('div', { class: 'who' },
      h('span', { class: 'name' }, net.watching ? t(`color.${color}`) : mine ? t('net.you', { color: t(`color.${color}`) }) : t('net.opponent', { color: t(`color.${color}`) })),
      h('span', { class: `presence ${online ? 'on' : 'off'}`, id: `presence-${color}`, 'data-connected': String(online) },
        online ? t('net.presence.on') : seat.taken ? t('net.presence.off') : t('net.presence.empty')),
      h('span', { class: 'captured', 'aria-label': t('game.captured', { count: taken.length }) },
        taken.map((role) => pieceIcon(color === 'white' ? 'black' : 'white', role, 18)))),
    net.clock
      ? h('span', { class: `clock${running ? ' running' : ''}`, id: `clock-${color}`, role: 'timer', 'aria-label': t('game.clockOf', { player: t(`color.${color}`) }) }, clockText(net.clock, color))
      : null);
}

/** Updates clocks and the pause countdown in place (pushed several times a second). */
export function patchNetClocks(root, state) {
  const net = state.net;
  for (const color of ['white', 'black']) {
    const node = root.querySelector(`#clock-${color}`);
    if (node && net.clock) node.textContent = clockText(net.clock, color);
  }
  const countdown = root.querySelector('#pause-countdown');
  if (countdown && net.pause) countdown.textContent = formatCountdown(net.pause.remaining_ms);
}

function linkBanner(net, t) {
  const link = net.link;
  if (link.state === 'reconnecting') {
    return h('p', { class: 'banner warn', id: 'net-link', 'data-state': 'reconnecting', role: 'status' }, t('net.link.reconnecting', { reason: link.reason }));
  }
  if (link.state === 'closed') {
    return h('p', { class: 'banner error', id: 'net-link', 'data-state': 'closed', role: 'alert' }, t('net.link.closed', { reason: link.reason }));
  }
  return h('p', { class: 'muted small', id: 'net-link', 'data-state': 'connected' },
    t('net.link.connected', { server: net.server_version ?? '?' }),
    net.rtt_ms !== null && net.rtt_ms !== undefined ? h('span', { id: 'net-lag' }, ` · ${t('net.lag', { ms: net.rtt_ms })}`) : null);
}

function waiting(state, { t, intent }) {
  const net = state.net;
  const invite = net.invite;
  return h('section', { class: 'net-waiting', 'aria-labelledby': 'code-title' },
    h('h2', { id: 'code-title' }, t('net.code.title')),
    h('p', { class: 'room-code', id: 'room-code' }, net.code),
    // An online room: the link opens the app on the other device and joins (its QR code for a
    // phone's camera); the room code alone works too, typed on the Online screen.
    invite && invite.qr
      ? h('figure', { class: 'lan-qr-box net-qr-box' }, qrCode(invite.qr, { id: 'net-qr', label: t('net.invite.qr', { code: net.code }) }),
        h('figcaption', { class: 'muted' }, t('net.invite.caption')))
      : null,
    invite ? h('p', { class: 'join-link', id: 'net-invite-url' }, invite.url) : null,
    h('div', { class: 'share-row' },
      h('button', { type: 'button', class: 'action accent', id: 'copy-code', onclick: () => intent({ type: 'net/copy-code' }) }, shareLabel(t, invite ? 'net.code.copyLink' : 'net.code.copy')),
      flashLine(state, 'copy-code', t)),
    h('p', { class: 'muted', id: 'net-waiting' }, t('net.code.waiting')));
}

function setupPanel(state, { t, intent }) {
  const net = state.net;
  const other = net.seat === 'white' ? 'black' : 'white';
  const theirs = net.seats[other].committed ? t('net.setup.theirs.locked') : t('net.setup.theirs.building');
  const stage = net.setup;
  let body;
  if (stage === 'build') {
    body = h('button', { type: 'button', class: 'action accent big', id: 'net-build', onclick: () => intent({ type: 'net/build' }) }, t('net.setup.build'));
  } else if (stage === 'refused') {
    body = h('p', { class: 'error', id: 'net-refused', role: 'alert' }, net.notice ? errorText(net.notice, t) : '');
  } else {
    body = h('p', { id: 'net-setup-stage', 'data-stage': stage }, t(`net.setup.${stage}`));
  }
  return h('section', { class: 'net-setup', 'aria-labelledby': 'setup-title' },
    h('h2', { id: 'setup-title' }, t('net.setup.title')),
    h('p', { class: 'muted' }, t('net.setup.body')),
    body,
    h('p', { class: 'muted', id: 'net-setup-theirs' }, theirs));
}

function moveList(state, t) {
  const game = state.game;
  const labels = plyLabels(game.fen, game.history.length);
  return h('section', { class: 'moves-panel', 'aria-label': t('game.moves') },
    h('div', { class: 'moves-head' }, h('h2', {}, t('game.moves'))),
    game.history.length
      ? h('ol', { class: 'moves', id: 'moves' }, game.history.map((san, i) =>
        h('li', { class: 'ply' }, h('span', { class: 'san' }, labels[i] ? h('span', { class: 'num' }, labels[i]) : null, san))))
      : h('p', { class: 'muted' }, t('game.noMoves')));
}

/** "Rating +12 → 1512" at the end of a rated game, or null. */
function ratingChange(net, t, id = 'net-rating-change') {
  const change = myRatingChange(net);
  if (!change) return null;
  return h('p', { class: 'rating-change', id, 'data-diff': change.diff },
    t('net.rating.change', { diff: change.diff, after: change.after }),
    change.provisional ? ` ${t('net.rating.provisional')}` : '');
}

/** After the end: Rematch (colours swapped), or the standing offer's state. */
function rematch(net, { t, intent }, id = 'net-rematch') {
  if (!net.result || net.watching || !net.seat) return null;
  const offer = net.rematch_offer;
  if (offer === net.seat) return h('p', { class: 'muted', id: `${id}-waiting`, role: 'status' }, t('net.rematch.waiting'));
  return h('div', { class: 'rematch' },
    offer ? h('p', { id: `${id}-offered`, role: 'status' }, t('net.rematch.offered')) : null,
    h('button', { type: 'button', class: 'action accent', id, onclick: () => intent({ type: 'net/rematch' }) }, offer ? t('net.rematch.accept') : t('net.rematch.offer')));
}

function actions(state, { t, intent }) {
  const net = state.net;
  const game = state.game;
  // A spectator turns the board and opens the analysis, nothing else.
  if (net.watching) {
    return h('div', { class: 'actions', role: 'toolbar', 'aria-label': t('game.actions') },
      h('button', { type: 'button', class: 'action', id: 'flip', onclick: () => intent({ type: 'flip' }) }, t('game.flip')));
  }
  const over = Boolean(net.result);
  const btn = (id, label, action, extra = {}) =>
    h('button', { type: 'button', class: `action${extra.accent ? ' accent' : ''}`, id, disabled: extra.disabled, onclick: () => intent(action) }, label);
  const pause = pauseControl(net);
  return h('div', { class: 'actions', role: 'toolbar', 'aria-label': t('game.actions') },
    game.claimable ? btn('net-claim', t('game.claim', { reason: t(`reason.${game.claimable}`) }), { type: 'net/claim' }, { accent: true }) : null,
    pause === 'pause' ? btn('net-pause', t('net.pause'), { type: 'net/pause' }) : null,
    pause === 'resume' ? btn('net-resume', t('net.resume'), { type: 'net/resume' }, { accent: true }) : null,
    btn('flip', t('game.flip'), { type: 'flip' }),
    // An offer asks first (the setting); the same button accepts the opponent's offer at once.
    btn('net-offer-draw', t('game.offerDraw'), confirmsActions(state.settings) && !net.draw_offer ? { type: 'dialog', dialog: 'net-draw' } : { type: 'net/offer-draw' }, { disabled: over || net.draw_offer === net.seat }),
    btn('net-resign', t('game.resign'), confirmsActions(state.settings) ? { type: 'dialog', dialog: 'net-resign' } : { type: 'net/resign' }, { disabled: over }),
    btn('net-analyse', t('analysis.open'), { type: 'analysis/open', source: { kind: 'net' } }));
}

function pauseBanner(net, { t }) {
  if (!net.pause) return null;
  const key = net.pause.reason === 'disconnected' ? 'net.paused.disconnected' : net.pause.reason === 'server_restart' ? 'net.paused.restart' : 'net.paused';
  return h('div', { class: 'banner', id: 'pause-banner', role: 'status', 'data-by': net.pause.by },
    h('span', {}, t(key, { color: t(`color.${net.pause.by}`) })),
    h('strong', { id: 'pause-countdown', class: 'clock' }, formatCountdown(net.pause.remaining_ms)));
}

function drawBanner(net, { t, intent }) {
  if (!net.draw_offer || net.result) return null;
  const theirs = net.draw_offer !== net.seat;
  return h('div', { class: 'banner', id: 'draw-offer' },
    h('span', {}, t('game.drawOffered', { color: t(`color.${net.draw_offer}`) })),
    theirs ? h('button', { type: 'button', class: 'action accent', id: 'net-accept-draw', onclick: () => intent({ type: 'net/offer-draw' }) }, t('game.acceptDraw')) : null,
    theirs ? h('button', { type: 'button', class: 'action', id: 'net-decline-draw', onclick: () => intent({ type: 'net/decline-draw' }) }, t('net.declineDraw')) : null);
}

/** "White wins", "Draw" or "Game annulled". */
export function netResultTitle(result, t) {
  if (result.outcome === 'annulled') return t('net.result.annulled');
  return result.winner ? t('result.wins', { color: t(`color.${result.winner}`) }) : t('result.draw');
}

function dialog(id, title, ...body) {
  return h('div', { class: 'overlay' },
    h('div', { class: 'dialog', id, role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': `${id}-title` },
      h('h2', { id: `${id}-title` }, title), ...body));
}

function overlays(state, { t, intent }) {
  const net = state.net;
  if (state.ui.promotion) {
    const { letters, from, to } = state.ui.promotion;
    const color = state.game.board.turn;
    return dialog('promotion', t('promotion.title'),
      h('div', { class: 'promotion-choices' }, letters.map((letter) => {
        const role = { q: 'queen', r: 'rook', b: 'bishop', n: 'knight', m: 'maharajah', c: 'chancellor', a: 'archbishop' }[letter];
        return h('button', { type: 'button', class: 'promo', 'data-role': role, 'aria-label': t(`piece.${color}.${role}`), onclick: () => intent({ type: 'promote', uci: `${from}${to}${letter}` }) },
          pieceIcon(color, role, 56), h('span', {}, t(`role.${role}`)));
      })),
      h('button', { type: 'button', class: 'action', id: 'promotion-cancel', onclick: () => intent({ type: 'promotion/cancel' }) }, t('dialog.cancel')));
  }
  if (state.ui.dialog === 'net-result' && net.result) {
    return dialog('net-result', netResultTitle(net.result, t),
      h('p', { id: 'net-result-reason' }, t(`reason.${net.result.reason}`)),
      ratingChange(net, t, 'net-result-rating'),
      rematch(net, { t, intent }, 'net-result-rematch'),
      h('div', { class: 'dialog-actions' },
        h('button', { type: 'button', class: 'action', id: 'net-result-close', onclick: () => intent({ type: 'dialog', dialog: null }) }, t('dialog.viewBoard')),
        h('button', { type: 'button', class: 'action accent', id: 'net-result-leave', onclick: () => intent({ type: 'net/leave' }) }, t('net.leave'))));
  }
  if (state.ui.dialog === 'net-draw' && !net.result) {
    return dialog('net-draw-dialog', t('draw.title'),
      h('p', {}, t('draw.body')),
      h('div', { class: 'dialog-actions' },
        h('button', { type: 'button', class: 'action accent', id: 'net-draw-confirm', onclick: () => intent({ type: 'net/offer-draw' }) }, t('game.offerDraw')),
        h('button', { type: 'button', class: 'action', id: 'net-draw-cancel', onclick: () => intent({ type: 'dialog', dialog: null }) }, t('dialog.cancel'))));
  }
  if (state.ui.dialog === 'net-resign') {
    return dialog('net-resign-dialog', t('resign.title'),
      h('p', {}, t('resign.body')),
      h('div', { class: 'dialog-actions' },
        h('button', { type: 'button', class: 'action danger', id: 'net-resign-confirm', onclick: () => intent({ type: 'net/resign' }) }, t('game.resign')),
        h('button', { type: 'button', class: 'action', id: 'net-resign-cancel', onclick: () => intent({ type: 'dialog', dialog: null }) }, t('dialog.cancel'))));
  }
  return null;
}

export function renderNetGame(state, ctx) {
  const { t, intent } = ctx;
  const net = state.net;
  const title = t(net.variant ? `game.title.${net.variant}` : 'online.title');
  const leave = () => intent({ type: 'net/leave' });
  let main;
  if (net.phase === 'waiting_for_opponent' || !net.phase) {
    main = waiting(state, ctx);
  } else if (!state.game) {
    main = net.phase === 'setup' ? setupPanel(state, ctx) : h('p', { class: 'muted' }, t('online.busy'));
  } else {
    const flipped = isFlipped(state);
    const [top, bottom] = flipped ? ['white', 'black'] : ['black', 'white'];
    const game = state.game;
    let status;
    if (net.result) status = h('p', { class: 'status over', id: 'status' }, `${netResultTitle(net.result, t)} — ${t(`reason.${net.result.reason}`)}`);
    else if (net.my_turn) status = h('p', { class: 'status', id: 'status', 'data-turn': 'mine' }, t('net.yourMove'), game.board.check ? ` — ${t('game.check')}` : '');
    else status = h('p', { class: 'status', id: 'status', 'data-turn': 'theirs' }, t('game.toMove', { color: t(`color.${game.board.turn}`) }), game.board.check ? ` — ${t('game.check')}` : '');
    main = h('div', { class: 'game-layout' },
      h('div', { class: 'board-column' },
        playerStrip(state, top, t),
        h('div', { class: 'board-frame' }, renderBoard(state, ctx)),
        playerStrip(state, bottom, t),
        confirmBar(state, ctx),
        status,
        net.result ? ratingChange(net, t) : null,
        rematch(net, ctx),
        state.ui.error ? h('p', { class: 'error', id: 'game-error', role: 'alert' }, errorText(state.ui.error, t)) : null),
      h('div', { class: 'side-column' },
        pauseBanner(net, ctx),
        drawBanner(net, ctx),
        actions(state, ctx),
        moveList(state, t)));
  }
  const body = screen('netgame', title, t('net.leave'), leave,
    linkBanner(net, t),
    net.notice && net.setup !== 'refused' ? h('p', { class: 'error', id: 'net-notice', role: 'alert' }, errorText(net.notice, t)) : null,
    h('p', { class: 'muted small', id: 'net-room' }, t('net.room', { code: net.code ?? '' }), net.watching ? h('span', { id: 'net-watching' }, ` · ${t('net.watching')}`) : null),
    main);
  body.classList.add('game-screen');
  const overlay = overlays(state, ctx);
  if (overlay) body.append(overlay);
  return body;
}
