// The Online screen: the server address (saved as a setting), the player (name, ratings, the
// recovery code) and four tabs: the Lobby (open challenges, post one), Play now (quick pairing),
// Watch (a room by code) and Join by code (create a room and share its code, or join one).
import { h, screen } from './dom.js';
import { segmented } from './forms.js';
import {
  LOBBY_GAMES, NET_COLORS, NET_TIME_CONTROLS, NET_VARIANTS, ONLINE_TABS, PAIRING_TIME_CONTROLS,
  TABLE_PEOPLE, TABLE_TURN_TIMES, TABLE_WAITS,
  lobbyRows, profileGameRow, ratingOf, roomVariant, serverUrlOf, timeControlOf, timeControlText, turnSeconds,
} from '../net.js';
import { errorText } from './errors.js';

const radios = (name, ...choice) => segmented({ group: `online-${name}`, input: `online-${name}` }, ...choice);

function dialog(id, title, ...body) {
  return h('div', { class: 'overlay' },
    h('div', { class: 'dialog', id, role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': `${id}-title` },
      h('h2', { id: `${id}-title` }, title), ...body));
}

const linked = (lobby) => Boolean(lobby && lobby.link && lobby.link.state === 'connected');

/** "Chess · blitz 1512?" for each rating the player has ('?' while provisional). */
function ratingsLine(player, t) {
  const rated = (player.ratings ?? []).filter((r) => r.games > 0);
  if (!rated.length) return t('lobby.unrated');
  return rated.map((r) => `${t(`variant.${r.game}`)} · ${t(`speed.${r.speed}`)} ${r.rating}${r.provisional ? '?' : ''}`).join(' — ');
}

/** The player at the top: the name (or the form to pick one), ratings, the recovery code offer. */
function playerPanel(state, { t, intent }) {
  const online = state.online;
  const lobby = online.lobby;
  if (!lobby || !lobby.identity) return null;
  const player = lobby.player;
  const change = (key) => (e) => intent({ type: 'online/change', key, value: e.target.value });
  return h('section', { class: 'online-player', id: 'online-player', 'aria-label': t('lobby.player') },
    player && player.name
      ? h('p', { class: 'player-name' }, h('strong', { id: 'online-player-name' }, player.name), ' ',
        h('span', { class: 'muted', id: 'online-ratings' }, ratingsLine(player, t)), ' ',
        h('button', { type: 'button', class: 'link', id: 'online-my-profile', onclick: () => intent({ type: 'lobby/open-profile', name: player.name }) }, t('lobby.profile.mine')))
      : null,
    player && !player.name
      ? h('form', { class: 'row', id: 'name-form', onsubmit: (e) => { e.preventDefault(); intent({ type: 'lobby/name' }); } },
        h('input', {
          id: 'online-name', type: 'text', autocomplete: 'nickname', spellcheck: 'false', maxlength: 20,
          placeholder: t('lobby.name.placeholder'), 'aria-label': t('lobby.name.label'), value: online.name, oninput: change('name'),
        }),
        h('button', { type: 'submit', class: 'action accent', id: 'online-name-go', disabled: online.busy }, t('lobby.name.go')))
      : null,
    player && !player.name ? h('p', { class: 'muted hint' }, t('lobby.name.hint')) : null,
    lobby.identity_refused ? h('p', { class: 'error', id: 'online-identity-refused' }, t('error.bad_signature')) : null,
    !lobby.identity.code_shown
      ? h('p', { class: 'banner', id: 'online-recovery-offer' }, t('lobby.recovery.offer'), ' ',
        h('button', { type: 'button', class: 'action', id: 'online-show-code', onclick: () => intent({ type: 'dialog', dialog: 'recovery-confirm' }) }, t('lobby.recovery.show')))
      : null,
    h('details', { class: 'online-identity', id: 'online-identity' },
      h('summary', {}, t('lobby.identity')),
      h('p', { class: 'muted small' }, t('lobby.identity.key', { key: lobby.identity.key.slice(0, 16) })),
      lobby.identity.code_shown
        ? h('button', { type: 'button', class: 'action', id: 'online-show-code-again', onclick: () => intent({ type: 'dialog', dialog: 'recovery-confirm' }) }, t('lobby.recovery.show'))
        : null,
      h('form', { class: 'row', id: 'recover-form', onsubmit: (e) => { e.preventDefault(); intent({ type: 'dialog', dialog: 'recover-confirm' }); } },
        h('input', {
          id: 'online-recover-code', type: 'text', autocomplete: 'off', autocapitalize: 'characters', spellcheck: 'false',
          placeholder: t('lobby.recover.placeholder'), 'aria-label': t('lobby.recover.label'), value: online.recoverCode, oninput: change('recoverCode'),
        }),
        h('button', { type: 'submit', class: 'action', id: 'online-recover-go' }, t('lobby.recover.go')))));
}

/** Where the lobby's link stands when it is not connected: connect, or why it cannot. */
function linkPanel(state, { t, intent }) {
  const lobby = state.online.lobby;
  const link = lobby ? lobby.link : { state: 'closed' };
  if (link.state === 'connected') return null;
  if (link.state === 'reconnecting') return h('p', { class: 'muted', id: 'lobby-reconnecting', role: 'status' }, t('lobby.reconnecting'));
  return h('div', { class: 'lobby-link' },
    link.state === 'unreachable'
      ? h('p', { class: 'error', id: 'lobby-unreachable', role: 'alert', 'data-code': link.code },
        t('lobby.unreachable', { url: lobby.url ?? serverUrlOf(state) }))
      : h('p', { class: 'muted', id: 'lobby-closed' }, t('lobby.closed')),
    h('button', { type: 'button', class: 'action accent', id: 'lobby-connect', disabled: state.online.busy, onclick: () => intent({ type: 'lobby/open' }) }, t('lobby.connect')));
}

/** A clock as a list shows it: '5+3', or a Chaturaji table's time per turn. */
function clockText(game, tc, t) {
  if (game !== 'chaturaji') return timeControlText(tc);
  const seconds = turnSeconds(tc);
  return seconds ? t('lobby.table.turn', { seconds }) : t('lobby.table.untimed');
}

/** A Chaturaji table's choices: time per turn, people (posting only), the wait before CPUs. */
function tableChoices(online, t, change, { people }) {
  return [
    radios('turn', TABLE_TURN_TIMES.map((s) => [s, s === 'none' ? t('lobby.table.untimed') : t('lobby.table.turn', { seconds: s })]), online.turnTime, t('lobby.table.turnLabel'), change('turnTime')),
    people ? radios('people', TABLE_PEOPLE.map((n) => [n, String(n)]), online.people, t('lobby.table.people'), change('people')) : null,
    radios('wait', TABLE_WAITS.map((s) => [s, t('lobby.table.seconds', { seconds: s })]), online.cpuAfter, t('lobby.table.wait'), change('cpuAfter')),
  ];
}

/** The game, clock (a table's choices for Chaturaji) and rated choices both the Lobby and Play now use. */
function gameChoices(state, t, intent, times, { people = false } = {}) {
  const online = state.online;
  const change = (key) => (value) => intent({ type: 'online/change', key, value });
  return [
    radios('variant', LOBBY_GAMES.map((v) => [v, t(`variant.${v}`)]), online.variant, t('online.variant'), change('variant')),
    ...(online.variant === 'chaturaji'
      ? tableChoices(online, t, change, { people })
      : [radios('time', times.map((tc) => [tc, t(`time.${tc}`, { tc })]), times.includes(online.timeControl) ? online.timeControl : '5+3', t('setup.time'), change('timeControl'))]),
    h('label', { class: 'check', for: 'online-rated' },
      h('input', { type: 'checkbox', id: 'online-rated', checked: online.rated, onchange: (e) => change('rated')(e.target.checked) }),
      ' ', t('lobby.rated')),
  ];
}

/** A challenge's action: cancel ours, leave a table we sit at, join a table, or play. */
function challengeAction(c, t, intent, busy) {
  if (c.mine) return h('button', { type: 'button', class: 'action', id: `lobby-cancel-${c.id}`, disabled: busy, onclick: () => intent({ type: 'lobby/cancel', id: c.id }) }, t('dialog.cancel'));
  // Someone else's table we joined: marked, and left with the same cancel (the table stays).
  if (c.seated) {
    return h('span', { class: 'challenge-seated-row' },
      h('span', { class: 'challenge-seated', id: `lobby-seated-${c.id}` }, t('lobby.table.seated')),
      h('button', { type: 'button', class: 'action', id: `lobby-leave-${c.id}`, disabled: busy, onclick: () => intent({ type: 'lobby/cancel', id: c.id }) }, t('lobby.table.leave')));
  }
  if (c.table) return h('button', { type: 'button', class: 'action accent', id: `lobby-join-${c.id}`, disabled: busy, onclick: () => intent({ type: 'lobby/join-table', id: c.id }) }, t('lobby.table.join'));
  return h('button', { type: 'button', class: 'action accent', id: `lobby-accept-${c.id}`, disabled: busy, onclick: () => intent({ type: 'lobby/accept', id: c.id }) }, t('lobby.accept'));
}

function challengeRow(c, t, intent, busy) {
  const who = c.creator ?? t('lobby.guest');
  const rating = `${c.rating}${c.provisional ? '?' : ''}`;
  const kind = c.rated ? t('lobby.rated.short') : t('lobby.casual');
  return h('li', { class: `challenge${c.mine ? ' mine' : ''}${c.seated ? ' seated' : ''}`, 'data-id': String(c.id), 'data-game': c.game },
    h('span', { class: 'challenge-game' }, t(`variant.${c.game}`), ' ', clockText(c.game, c.time_control, t)),
    h('span', { class: 'challenge-who' }, `${who} (${rating})`),
    c.table
      ? h('span', { class: 'challenge-kind muted' }, kind, ' · ',
        h('span', { class: 'challenge-table', id: `lobby-table-${c.id}` },
          t('lobby.table.line', { joined: c.table.joined, people: c.table.people, seconds: c.table.cpu_after_s })))
      : h('span', { class: 'challenge-kind muted' }, kind, ' · ',
        c.color === 'random' ? t('setup.random') : t(`color.${c.color}`)),
    challengeAction(c, t, intent, busy));
}

function lobbyTab(state, { t, intent }) {
  const online = state.online;
  const lobby = online.lobby;
  const rows = lobbyRows(lobby);
  return h('div', { class: 'tab-panel', id: 'online-panel-lobby', role: 'tabpanel' },
    linkPanel(state, { t, intent }),
    linked(lobby)
      ? h('section', { 'aria-labelledby': 'lobby-list-title' },
        h('h2', { id: 'lobby-list-title' }, t('lobby.list.title')),
        rows.length
          ? h('ul', { class: 'challenges', id: 'lobby-list' }, rows.map((c) => challengeRow(c, t, intent, online.busy)))
          : h('p', { class: 'muted', id: 'lobby-empty' }, t('lobby.list.empty')))
      : null,
    linked(lobby)
      ? h('section', { class: 'online-challenge', 'aria-labelledby': 'challenge-title' },
        h('h2', { id: 'challenge-title' }, t('lobby.create.title')),
        ...gameChoices(state, t, intent, NET_TIME_CONTROLS, { people: true }),
        online.variant === 'chaturaji'
          ? null
          : radios('color', NET_COLORS.map((c) => [c, c === 'random' ? t('setup.random') : t(`color.${c}`)]), online.color, t('setup.color'), (value) => intent({ type: 'online/change', key: 'color', value })),
        h('button', { type: 'button', class: 'action accent big', id: 'lobby-create', disabled: online.busy, onclick: () => intent({ type: 'lobby/create' }) }, t('lobby.create.go')))
      : null,
    linked(lobby) ? leaderboard(state, { t, intent }) : null);
}

const SPEEDS = ['bullet', 'blitz', 'rapid', 'classical'];

/** The leaderboard of a game and speed class; a name opens the player's profile. */
function leaderboard(state, { t, intent }) {
  const online = state.online;
  const change = (key) => (value) => intent({ type: 'online/change', key, value });
  const board = online.board;
  return h('details', { class: 'online-board', id: 'lobby-leaderboard', open: Boolean(board) },
    h('summary', {}, t('lobby.board.title')),
    segmented({ group: 'board-game', input: 'board-game' }, NET_VARIANTS.map((v) => [v, t(`variant.${v}`)]), online.boardGame, t('online.variant'), change('boardGame')),
    segmented({ group: 'board-speed', input: 'board-speed' }, SPEEDS.map((sp) => [sp, t(`speed.${sp}`)]), online.boardSpeed, t('lobby.board.speed'), change('boardSpeed')),
    h('button', { type: 'button', class: 'action', id: 'board-show', disabled: online.busy, onclick: () => intent({ type: 'lobby/leaderboard' }) }, t('lobby.board.show')),
    board
      ? (board.players.length
        ? h('ol', { class: 'leaderboard', id: 'board-list' }, board.players.map((p, i) =>
          h('li', { 'data-name': p.name },
            h('button', { type: 'button', class: 'link', id: `board-player-${i}`, onclick: () => intent({ type: 'lobby/open-profile', name: p.name }) }, p.name),
            h('span', { class: 'muted' }, ` ${p.rating}${p.provisional ? '?' : ''} · ${t('lobby.board.games', { count: p.games })}`))))
        : h('p', { class: 'muted', id: 'board-empty' }, t('lobby.board.empty')))
      : null);
}

function playTab(state, { t, intent }) {
  const online = state.online;
  const lobby = online.lobby;
  const seeking = lobby && lobby.seeking;
  let body = null;
  if (linked(lobby) && seeking) {
    body = h('div', { class: 'seeking', id: 'play-now-waiting', role: 'status' },
      h('p', {}, seeking.game === 'chaturaji'
        ? t('lobby.table.seeking', { tc: clockText('chaturaji', seeking.time_control, t) })
        : t('lobby.seeking', { game: t(`variant.${seeking.game}`), tc: timeControlText(seeking.time_control), rating: seeking.rating })),
      h('button', { type: 'button', class: 'action', id: 'play-now-cancel', disabled: online.busy, onclick: () => intent({ type: 'lobby/cancel-play-now' }) }, t('dialog.cancel')));
  } else if (linked(lobby)) {
    const tc = timeControlOf(PAIRING_TIME_CONTROLS.includes(online.timeControl) ? online.timeControl : '5+3');
    const mine = ratingOf(lobby.player, online.variant, tc);
    body = h('section', { 'aria-labelledby': 'play-now-title' },
      h('h2', { id: 'play-now-title' }, t('lobby.playNow.title')),
      h('p', { class: 'muted' }, online.variant === 'chaturaji'
        ? t('lobby.table.playNowHint', { seconds: online.cpuAfter })
        : t('lobby.playNow.hint', { rating: `${mine.rating}${mine.provisional ? '?' : ''}` })),
      ...gameChoices(state, t, intent, PAIRING_TIME_CONTROLS),
      h('button', { type: 'button', class: 'action accent big', id: 'play-now', disabled: online.busy, onclick: () => intent({ type: 'lobby/play-now' }) }, t('lobby.playNow.go')));
  }
  return h('div', { class: 'tab-panel', id: 'online-panel-play', role: 'tabpanel' }, linkPanel(state, { t, intent }), body);
}

function watchTab(state, { t, intent }) {
  const online = state.online;
  return h('div', { class: 'tab-panel', id: 'online-panel-watch', role: 'tabpanel' },
    h('h2', { id: 'watch-title' }, t('lobby.watch.title')),
    h('p', { class: 'muted' }, t('lobby.watch.hint')),
    h('form', { class: 'row', id: 'watch-form', onsubmit: (e) => { e.preventDefault(); intent({ type: 'online/watch' }); } },
      h('input', {
        id: 'watch-code', type: 'text', autocomplete: 'off', autocapitalize: 'characters', spellcheck: 'false',
        maxlength: 12, placeholder: t('online.join.placeholder'), 'aria-label': t('online.join.code'),
        value: online.watchCode, oninput: (e) => intent({ type: 'online/change', key: 'watchCode', value: e.target.value }),
      }),
      h('button', { type: 'submit', class: 'action accent', id: 'watch-go', disabled: online.busy }, t('lobby.watch.go'))),
    linked(online.lobby) ? playingNow(state, { t, intent }) : null);
}

/** The games playing now, each with Watch (none when the room is full of spectators). */
function playingNow(state, { t, intent }) {
  const live = state.online.live;
  return h('section', { 'aria-labelledby': 'playing-now-title' },
    h('h2', { id: 'playing-now-title' }, t('lobby.live.title')),
    h('button', { type: 'button', class: 'action', id: 'playing-now-refresh', onclick: () => intent({ type: 'lobby/playing-now' }) }, t('lobby.live.refresh')),
    live && live.length
      ? h('ul', { class: 'challenges', id: 'playing-now' }, live.map((g) =>
        h('li', { class: 'challenge', 'data-code': g.code },
          h('span', { class: 'challenge-game' }, t(`variant.${g.game}`), ' ', timeControlText(g.time_control)),
          h('span', { class: 'challenge-who' }, g.players.map((p) => (p.name ? `${p.name}${p.rating ? ` (${p.rating})` : ''}` : t('lobby.guest'))).join(' – ')),
          h('span', { class: 'challenge-kind muted' }, t('lobby.live.line', { ply: g.ply, watchers: g.spectators }), g.rated ? ` · ${t('lobby.rated.short')}` : ''),
          h('button', { type: 'button', class: 'action accent', id: `watch-room-${g.code}`, disabled: g.full, onclick: () => intent({ type: 'online/watch-room', code: g.code }) }, t('lobby.watch.go')))))
      : live ? h('p', { class: 'muted', id: 'playing-now-empty' }, t('lobby.live.empty')) : null);
}

function codeTab(state, { t, intent }) {
  const online = state.online;
  const change = (key) => (value) => intent({ type: 'online/change', key, value });
  return h('div', { class: 'tab-panel', id: 'online-panel-code', role: 'tabpanel' },
    h('section', { class: 'online-join', 'aria-labelledby': 'join-title' },
      h('h2', { id: 'join-title' }, t('online.join.title')),
      h('form', {
        class: 'row', id: 'join-form',
        onsubmit: (e) => { e.preventDefault(); intent({ type: 'online/join' }); },
      },
      h('input', {
        id: 'join-code', type: 'text', autocomplete: 'off', autocapitalize: 'characters', spellcheck: 'false',
        maxlength: 12, placeholder: t('online.join.placeholder'), 'aria-label': t('online.join.code'),
        value: online.code, oninput: (e) => change('code')(e.target.value),
      }),
      h('button', { type: 'submit', class: 'action accent', id: 'join-room', disabled: online.busy }, t('online.join.go')))),
    h('section', { class: 'online-create', 'aria-labelledby': 'create-title' },
      h('h2', { id: 'create-title' }, t('online.create.title')),
      radios('variant', NET_VARIANTS.map((v) => [v, t(`variant.${v}`)]), roomVariant(online), t('online.variant'), change('variant')),
      online.variant === 'maharajah' ? h('p', { class: 'muted hint' }, t('online.hidden.hint')) : null,
      radios('time', NET_TIME_CONTROLS.map((tc) => [tc, t(`time.${tc}`, { tc })]), online.timeControl, t('setup.time'), change('timeControl')),
      radios('color', NET_COLORS.map((c) => [c, c === 'random' ? t('setup.random') : t(`color.${c}`)]), online.color, t('setup.color'), change('color')),
      h('button', { type: 'button', class: 'action accent big', id: 'create-room', disabled: online.busy, onclick: () => intent({ type: 'online/create' }) }, t('online.create.go'))));
}

const TABS = { lobby: lobbyTab, play: playTab, watch: watchTab, code: codeTab };

const RESULT_KEYS = { win: 'lobby.profile.win', loss: 'lobby.profile.loss', draw: 'lobby.profile.draw', annulled: 'lobby.profile.annulled' };

/** A player's profile: ratings and recent games, each with its PGN. */
function profileDialog(state, { t, intent }) {
  const { profile, pgnSaved } = state.online;
  return dialog('profile', profile.name,
    h('p', { class: 'muted', id: 'profile-ratings' }, ratingsLine(profile, t)),
    profile.games.length
      ? h('ul', { class: 'profile-games', id: 'profile-games' }, profile.games.map((g) => {
        const row = profileGameRow(g);
        return h('li', { 'data-id': String(g.id) },
          h('span', {}, `${t(`variant.${row.game}`)} ${row.tc} · ${t('lobby.profile.vs', { names: row.opponents })} · `,
            row.result ? t(RESULT_KEYS[row.result]) : '', row.diff ? ` (${row.diff})` : ''),
          h('button', { type: 'button', class: 'action', id: `profile-pgn-${g.id}`, onclick: () => intent({ type: 'lobby/save-pgn', id: g.id }) }, t('lobby.profile.pgn')));
      }))
      : h('p', { class: 'muted', id: 'profile-empty' }, t('lobby.profile.empty')),
    pgnSaved ? h('p', { class: 'banner', id: 'profile-pgn-saved', role: 'status' }, t('export.saved', { path: pgnSaved })) : null,
    h('div', { class: 'dialog-actions' },
      h('button', { type: 'button', class: 'action accent', id: 'profile-close', onclick: () => intent({ type: 'lobby/profile', profile: null }) }, t('lobby.profile.close'))));
}

/** The confirmations and the recovery code, over the screen. */
function overlays(state, { t, intent }) {
  const online = state.online;
  const close = () => intent({ type: 'dialog', dialog: null });
  if (online.profile) return profileDialog(state, { t, intent });
  if (online.recovery) {
    return dialog('recovery-code', t('lobby.recovery.title'),
      h('p', {}, t('lobby.recovery.body')),
      h('p', { class: 'recovery-code', id: 'recovery-code-text' }, online.recovery),
      h('div', { class: 'dialog-actions' },
        h('button', { type: 'button', class: 'action accent', id: 'recovery-code-close', onclick: () => intent({ type: 'lobby/recovery', code: null }) }, t('lobby.recovery.done'))));
  }
  if (state.ui.dialog === 'recovery-confirm') {
    return dialog('recovery-confirm', t('lobby.recovery.title'),
      h('p', {}, t('lobby.recovery.confirm')),
      h('div', { class: 'dialog-actions' },
        h('button', { type: 'button', class: 'action accent', id: 'recovery-confirm-yes', onclick: () => intent({ type: 'identity/show-code' }) }, t('lobby.recovery.show')),
        h('button', { type: 'button', class: 'action', id: 'recovery-confirm-no', onclick: close }, t('dialog.cancel'))));
  }
  if (state.ui.dialog === 'recover-confirm') {
    return dialog('recover-confirm', t('lobby.recover.title'),
      h('p', {}, t('lobby.recover.confirm')),
      h('div', { class: 'dialog-actions' },
        h('button', { type: 'button', class: 'action accent', id: 'recover-confirm-yes', onclick: () => intent({ type: 'identity/recover' }) }, t('lobby.recover.go')),
        h('button', { type: 'button', class: 'action', id: 'recover-confirm-no', onclick: close }, t('dialog.cancel'))));
  }
  return null;
}

/**
 * The banner of a lobby match that started while a game, a build or a review was on screen
 * (it did not take the screen away): what started, and a button to open it. Null otherwise.
 */
export function matchBanner(state, { t, intent }) {
  const game = state.online && state.online.pendingMatch;
  if (!game || state.screen === 'online' || state.screen === 'netgame') return null;
  return h('div', { class: 'match-banner', id: 'match-banner', role: 'alert' },
    h('span', {}, t(game === 'chaturaji' ? 'lobby.match.table' : 'lobby.match.game')),
    h('button', { type: 'button', class: 'action accent', id: 'match-open', onclick: () => intent({ type: 'lobby/open-match', game }) }, t('lobby.match.open')));
}

export function renderOnline(state, ctx) {
  const { t, intent } = ctx;
  const online = state.online;
  const change = (key) => (value) => intent({ type: 'online/change', key, value });
  const error = online.error;
  const tab = ONLINE_TABS.includes(online.tab) ? online.tab : 'lobby';
  const body = screen('online', t('online.title'), t('nav.back'), () => intent({ type: 'back' }),
    h('p', { class: 'muted' }, t('online.intro')),
    // No server saved: the address below is this device's own, which answers only if a server runs here.
    !state.settings.serverUrl && !online.url
      ? h('p', { class: 'banner', id: 'online-no-server' }, t('online.noServer', { url: serverUrlOf(state) }))
      : null,
    state.net
      ? h('button', { type: 'button', class: 'action accent big', id: 'net-return', onclick: () => intent({ type: 'net/return' }) }, t('online.return', { code: state.net.code ?? '' }))
      : null,
    !state.net && online.kept
      ? h('button', { type: 'button', class: 'action accent big', id: 'net-rejoin', disabled: online.busy, onclick: () => intent({ type: 'online/rejoin' }) }, t('online.rejoin', { code: online.kept.code }))
      : null,
    h('label', { class: 'field', for: 'server-url' }, t('online.server'),
      h('input', {
        id: 'server-url', type: 'text', autocomplete: 'off', autocapitalize: 'off', spellcheck: 'false',
        value: serverUrlOf(state), oninput: (e) => change('url')(e.target.value),
      })),
    online.linked
      ? h('p', { class: 'banner', id: 'online-linked', role: 'status' }, t('online.linked', { code: online.linked.code, server: online.linked.server }))
      : null,
    playerPanel(state, ctx),
    error
      ? h('p', { class: 'error', id: 'online-error', role: 'alert', 'data-code': error.code },
        errorText(error, t))
      : null,
    error && error.code === 'connect_failed'
      ? h('p', { class: 'muted', id: 'online-howto' }, t('online.howto', { url: serverUrlOf(state) }))
      : null,
    online.busy ? h('p', { class: 'muted', id: 'online-busy', role: 'status' }, t('online.busy')) : null,
    h('nav', { class: 'tabs', role: 'tablist', id: 'online-tabs', 'aria-label': t('online.title') },
      ONLINE_TABS.map((name) => h('button', {
        type: 'button', role: 'tab', class: `tab${name === tab ? ' on' : ''}`, id: `online-tab-${name}`,
        'aria-selected': String(name === tab), onclick: () => intent({ type: 'online/tab', tab: name }),
      }, t(`online.tab.${name}`)))),
    TABS[tab](state, ctx));
  const overlay = overlays(state, ctx);
  if (overlay) body.append(overlay);
  return body;
}
