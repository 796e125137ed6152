// Network play's pure state: the Online screen's form, the backend's NetView, and the game
// snapshot the shared board code draws. No transport here (effects live in neteffects.js).

export const DEFAULT_SERVER_URL = 'ws://127.0.0.1:7878';
/** Variants a room can be created for. */
export const NET_VARIANTS = ['chess', 'maharajah', 'horde'];
/** Clocks offered for rooms (no custom entry: the server's limits apply). */
export const NET_TIME_CONTROLS = ['none', '3+2', '5+3', '10+5', '15+10'];
export const NET_COLORS = ['random', 'white', 'black'];

export function newOnline() {
  return { url: '', code: '', variant: 'chess', timeControl: '5+3', color: 'random', busy: false, error: null, kept: null, linked: null };
}

/** The server address the form shows: what was typed, else the saved setting, else the default. */
export function serverUrlOf(state) {
  return state.online.url || state.settings.serverUrl || DEFAULT_SERVER_URL;
}

/** The backend's arguments for creating a room from the form. */
export function createArgs(online) {
  let timeControl = null;
  if (online.timeControl !== 'none') {
    const [minutes, increment] = online.timeControl.split('+').map(Number);
    timeControl = { base_ms: minutes * 60000, increment_ms: increment * 1000 };
  }
  return {
    variant: online.variant,
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
  if (!view || !view.game || !view.seat) return null;
  return {
    ...view.game,
    id: `net:${view.code}`,
    opponent: { kind: 'net', color: other(view.seat) },
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
    case 'online/change':
      return { ...state, online: { ...state.online, [action.key]: action.value, error: null } };
    case 'online/linked':
      // A link named a room on another server: the form holds both, the person presses Join.
      return { ...state, online: { ...state.online, linked: { code: action.code, server: action.server } } };
    case 'online/kept':
      return { ...state, online: { ...state.online, kept: action.kept } };
    case 'online/busy':
      return { ...state, online: { ...state.online, busy: true, error: null, linked: null } };
    case 'online/error':
      return { ...state, online: { ...state.online, busy: false, error: action.error } };
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
