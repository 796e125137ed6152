// Network play's pure state: the Online screen's form, the backend's NetView, and the game
// snapshot the shared board code draws. No transport here (effects live in neteffects.js).

export const DEFAULT_SERVER_URL = 'ws://127.0.0.1:7878';
/** Variants a room can be created for. */
export const NET_VARIANTS = ['chess', 'maharajah', 'horde'];
/** Clocks offered for rooms (no custom entry: the server's limits apply). */
export const NET_TIME_CONTROLS = ['none', '3+2', '5+3', '10+5', '15+10'];
export const NET_COLORS = ['random', 'white', 'black'];

/** The Online screen's tabs, in order. */
export const ONLINE_TABS = ['lobby', 'play', 'watch', 'code'];
/** Clocks offered for quick pairing (it needs one). */
export const PAIRING_TIME_CONTROLS = ['3+2', '5+3', '10+5', '15+10'];
/** The games of the lobby and Play now: the chess variants and Chaturaji tables. */
export const LOBBY_GAMES = [...NET_VARIANTS, 'chaturaji'];
/** A Chaturaji table's time per turn, seconds ('none': no limit); the server takes these. */
export const TABLE_TURN_TIMES = ['none', '30', '60'];
/** How many people a lobby table waits for. */
export const TABLE_PEOPLE = [2, 3, 4];
/** The waits offered before CPUs take a table's empty seats, seconds (the server takes 5–300). */
export const TABLE_WAITS = [15, 30, 60, 120, 300];

export function newOnline() {
  return {
    url: '', code: '', variant: 'chess', timeControl: '5+3', color: 'random', busy: false, error: null, kept: null, linked: null,
    // The lobby: the tab shown, the backend's LobbyView, the forms of the tabs.
    tab: 'lobby', lobby: null, name: '', rated: false, watchCode: '', recovery: null, recoverCode: '',
    // The lists: the leaderboard shown ({game, speed, players}), a profile open, the games playing now.
    boardGame: 'chess', boardSpeed: 'blitz', board: null, profile: null, pgnSaved: null, live: null,
    // A Chaturaji table's form: time per turn, people wanted, the wait before CPUs fill it.
    turnTime: 'none', people: 4, cpuAfter: 60,
    // A lobby match that started while a game or a build was on screen: its game, until opened.
    pendingMatch: null,
  };
}

/** Screens a lobby match replaces at once; on the others (a game, a build, a review) it waits. */
const MATCH_OPENS_FROM = new Set(['online', 'menu', 'setup', 'learn', 'history', 'settings', 'about']);

/** Whether a lobby match that starts while `screen` is shown opens at once. */
export function matchOpensFrom(screen) {
  return MATCH_OPENS_FROM.has(screen);
}

/** {base_ms, increment_ms} of a form's '5+3', or null for 'none'. */
export function timeControlOf(text) {
  if (!text || text === 'none') return null;
  const [minutes, increment] = text.split('+').map(Number);
  return { base_ms: minutes * 60000, increment_ms: increment * 1000 };
}

/** '5+3' of a {base_ms, increment_ms} (minutes may be fractional), '∞' for none. */
export function timeControlText(tc) {
  if (!tc) return '∞';
  return `${tc.base_ms / 60000}+${tc.increment_ms / 1000}`;
}

/** The speed class of a clock, as the server rates it: base + 40 × increment (lichess's estimate). */
export function speedOf(tc) {
  if (!tc) return 'classical';
  const seconds = (tc.base_ms + 40 * tc.increment_ms) / 1000;
  if (seconds < 179) return 'bullet';
  if (seconds < 479) return 'blitz';
  if (seconds < 1499) return 'rapid';
  return 'classical';
}

/** A Chaturaji table's clock as the protocol encodes it: the time per turn is the increment on a zero base; null for no limit. */
export function turnTimeOf(seconds) {
  if (!seconds || seconds === 'none') return null;
  return { base_ms: 0, increment_ms: Number(seconds) * 1000 };
}

/** The seconds per turn of a table's clock, or null for no limit. */
export function turnSeconds(tc) {
  return tc && tc.increment_ms ? tc.increment_ms / 1000 : null;
}

/** The backend's ChallengeOptions from the form (the variant is the lobby's game). */
export function challengeArgs(online) {
  if (online.variant === 'chaturaji') {
    return {
      game: 'chaturaji', time_control: turnTimeOf(online.turnTime), rated: online.rated, color: 'random',
      table: { people: Number(online.people), cpu_after_s: Number(online.cpuAfter) },
    };
  }
  return { game: online.variant, time_control: timeControlOf(online.timeControl), rated: online.rated, color: online.color };
}

/**
 * The backend's quick-pairing arguments from the form (a clock is needed: untimed becomes 5+3;
 * a table without a turn limit is {0, 0}). Chaturaji adds the wait before CPUs take empty seats.
 */
export function playNowArgs(online) {
  if (online.variant === 'chaturaji') {
    const timeControl = turnTimeOf(online.turnTime) ?? { base_ms: 0, increment_ms: 0 };
    return { game: 'chaturaji', timeControl, rated: online.rated, cpuAfterS: Number(online.cpuAfter) };
  }
  return { game: online.variant, timeControl: timeControlOf(online.timeControl) ?? timeControlOf('5+3'), rated: online.rated, cpuAfterS: null };
}

/** The player's rating for a game and clock: {rating, provisional, games}, 1500 provisional when unplayed. */
export function ratingOf(player, game, tc) {
  const speed = speedOf(tc);
  const found = player && player.ratings ? player.ratings.find((r) => r.game === game && r.speed === speed) : null;
  return found ? { rating: found.rating, provisional: found.provisional, games: found.games } : { rating: 1500, provisional: true, games: 0 };
}

/** The open challenges worth listing: not ours first, then ours; each as the view shows it. */
export function lobbyRows(lobby) {
  if (!lobby) return [];
  const rows = lobby.challenges ?? [];
  return [...rows.filter((c) => !c.mine), ...rows.filter((c) => c.mine)];
}

/** A profile's game as one line's parts: { game, tc, opponents, result ('win'|'loss'|'draw'|'annulled'|null), diff ('+12'|null) }. */
export function profileGameRow(g) {
  const diff = g.rating ? signed(g.rating.after - g.rating.before) : null;
  const opponents = (g.opponents ?? []).map((o) => o.name ?? (o.cpu ? 'CPU' : '?')).join(', ');
  return { game: g.game, tc: timeControlText(g.time_control), opponents, result: g.result ?? null, diff };
}

function signed(delta) {
  return delta > 0 ? `+${delta}` : delta < 0 ? `−${-delta}` : '±0';
}

/** Our seat's rating change at the end of a rated game: {before, after, diff ('+12', '−8', '±0'), provisional}, or null. */
export function myRatingChange(view) {
  if (!view || !view.ratings_changed || !view.seat) return null;
  const change = view.ratings_changed[view.seat];
  if (!change) return null;
  const diff = signed(change.after - change.before);
  return { before: change.before, after: change.after, diff, provisional: change.provisional };
}

/** The server address the form shows: what was typed, else the saved setting, else the default. */
export function serverUrlOf(state) {
  return state.online.url || state.settings.serverUrl || DEFAULT_SERVER_URL;
}

/** The variant a room by code is made for: the form's game, chess when Chaturaji was picked in the lobby (its tables by code are on the Chaturaji screen). */
export function roomVariant(online) {
  return NET_VARIANTS.includes(online.variant) ? online.variant : 'chess';
}

/** The backend's arguments for creating a room from the form. */
export function createArgs(online) {
  let timeControl = null;
  if (online.timeControl !== 'none') {
    const [minutes, increment] = online.timeControl.split('+').map(Number);
    timeControl = { base_ms: minutes * 60000, increment_ms: increment * 1000 };
  }
  return {
    variant: roomVariant(online),
    timeControl,
    // A Maharajah room is always built in secret: that is how the variant is played on two devices.
    hiddenSetup: online.variant === 'maharajah',
    color: online.color === 'random' ? null : online.color,
  };
}

const other = (color) => (color === 'white' ? 'black' : 'white');

/**
 * The game snapshot the board, move and sound code read (the shape of the local GameView), from
 * a NetView: the server's clock and result, the opponent as `{kind: 'net', color}`.
 */
export function netGame(view) {
  // A spectator sees the board from White's side.
  const seat = view && (view.seat ?? (view.watching ? 'white' : null));
  if (!view || !view.game || !seat) return null;
  return {
    ...view.game,
    id: `net:${view.code}`,
    opponent: { kind: 'net', color: other(seat) },
    clock: view.clock,
    result: view.result,
  };
}

/** Which dialog a new view opens: the result when it just appeared. */
function dialogFor(previous, view, current) {
  if (view.result && !(previous && previous.result)) return 'net-result';
  return current;
}

/** Pure: the next state for a `net/*` or `online/*` action. */
export function reduceNet(state, action) {
  switch (action.type) {
    case 'online/open':
      return { ...state, screen: 'online', online: { ...state.online, busy: false, error: null }, error: null };
    case 'online/change': {
      // A room code (typed, or filled in by a join link) belongs to the Join by code tab.
      const tab = action.key === 'code' ? 'code' : state.online.tab;
      return { ...state, online: { ...state.online, [action.key]: action.value, error: null, tab } };
    }
    case 'online/linked':
      // A link named a room on another server: the form holds both, the person presses Join.
      return { ...state, online: { ...state.online, linked: { code: action.code, server: action.server } } };
    case 'online/kept':
      return { ...state, online: { ...state.online, kept: action.kept } };
    case 'online/busy':
      return { ...state, online: { ...state.online, busy: true, error: null, linked: null } };
    case 'online/error':
      return { ...state, online: { ...state.online, busy: false, error: action.error } };
    case 'online/tab':
      return { ...state, online: { ...state.online, tab: action.tab, error: null } };
    case 'online/idle':
      return { ...state, online: { ...state.online, busy: false } };
    case 'lobby/view': {
      const old = state.online.lobby;
      // An answer overtaken by a pushed view keeps the newer one.
      if (old && action.view.revision < old.revision) return { ...state, online: { ...state.online, busy: false } };
      return { ...state, online: { ...state.online, lobby: action.view, busy: false } };
    }
    case 'lobby/board':
      return { ...state, online: { ...state.online, board: action.board, busy: false } };
    case 'lobby/profile':
      return { ...state, online: { ...state.online, profile: action.profile, pgnSaved: null, busy: false } };
    case 'lobby/pgn':
      return { ...state, online: { ...state.online, pgnSaved: action.path, busy: false } };
    case 'lobby/live':
      return { ...state, online: { ...state.online, live: action.games, busy: false } };
    case 'lobby/match-waiting':
      return { ...state, online: { ...state.online, pendingMatch: action.game } };
    case 'lobby/open-match':
      return { ...state, online: { ...state.online, pendingMatch: null } };
    case 'lobby/recovery':
      // The recovery code, shown until the dialog is closed (null); never kept elsewhere.
      return { ...state, online: { ...state.online, recovery: action.code, busy: false } };
    case 'net/view': {
      const view = action.view;
      const previous = state.net;
      const sameRoom = previous && previous.code === view.code && previous.url === view.url;
      if (sameRoom && view.revision < previous.revision) {
        // A command's answer overtaken by pushed views: keep the newer view, still open the screen.
        return action.open ? { ...state, screen: 'netgame', netOrigin: action.origin ?? state.netOrigin ?? 'online', online: { ...state.online, busy: false, error: null } } : state;
      }
      const game = netGame(view);
      const moved = !state.game || !game || state.game.id !== game.id || state.game.history.length !== game.history.length;
      const ui = moved ? { ...state.ui, selected: null, promotion: null, review: null } : state.ui;
      return {
        ...state,
        net: view,
        game,
        ui: { ...ui, dialog: dialogFor(previous, view, ui.dialog) },
        screen: action.open ? 'netgame' : state.screen,
        // The screen leaving the game returns to: 'online', or 'lan' for a game handed over by it.
        netOrigin: action.open ? action.origin ?? state.netOrigin ?? 'online' : state.netOrigin,
        online: action.open ? { ...state.online, busy: false, error: null } : state.online,
      };
    }
    case 'net/build-open':
      return { ...state, screen: 'builder', build: action.build, error: null };
    case 'net/tick': {
      // Other screens do not show the clocks; the next tick after returning brings them up to date.
      if (!state.net || state.screen !== 'netgame') return state;
      const net = { ...state.net, clock: action.tick.clock, pause: action.tick.pause };
      return { ...state, net, game: state.game && state.game.opponent.kind === 'net' ? { ...state.game, clock: action.tick.clock } : state.game };
    }
    case 'net/error':
      return { ...state, ui: { ...state.ui, error: action.error, selected: null, promotion: null } };
    case 'net/closed':
      return { ...state, net: null, game: null, screen: state.netOrigin ?? 'online', netOrigin: null, online: { ...state.online, busy: false } };
    default:
      return state;
  }
}

/** What the pause control offers now: 'pause', 'resume' or null. */
export function pauseControl(view) {
  if (!view || !view.seat || view.phase !== 'playing' || view.result || !view.time_control) return null;
  if (view.pause) return view.pause.by === view.seat && view.pause.reason === 'requested' ? 'resume' : null;
  return view.seats[view.seat].pause_available ? 'pause' : null;
}

/** "0:42" for a countdown in milliseconds (whole seconds, rounded up). */
export function formatCountdown(ms) {
  const seconds = Math.ceil(Math.max(0, ms) / 1000);
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}
