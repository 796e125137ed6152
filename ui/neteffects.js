// Network play's effects: the backend calls behind online/* and net/* actions, and the pushed
// `net` and `net-clock` events. main.js hands every such action here.
import * as api from './api.js';
import { play as playSound } from './sound.js';
import { buzz } from './haptics.js';
import { shareFrom } from './share.js';
import { t as translate } from './i18n.js';
import { newBuild, soundFor } from './store.js';
import { challengeArgs, createArgs, matchOpensFrom, netGame, playNowArgs, serverUrlOf } from './net.js';

function viewLoaded(store, view, open = false) {
  const sound = soundFor(store.state.game, netGame(view));
  if (sound && store.state.screen === 'netgame') {
    if (store.state.settings.sounds) playSound(sound);
    buzz(sound, store.state.settings);
  }
  store.dispatch({ type: 'net/view', view, open });
}

/** Runs a call answering with a NetView; errors show on the network game screen. */
async function netCall(store, promise) {
  try {
    viewLoaded(store, await promise);
  } catch (error) {
    store.dispatch({ type: 'net/error', error });
  }
}

/** Plays a move (UCI) in the network game. */
export function netMove(store, uci) {
  netCall(store, api.netMove(uci));
}

/** The builder's lock-in in a hidden-setup room: commit the army, back to the game screen. */
export async function netLockArmy(store, army) {
  try {
    const view = await api.netLockArmy(army);
    store.dispatch({ type: 'net/view', view, open: true });
  } catch (error) {
    store.dispatch({ type: 'build/error', error });
  }
}

async function enter(store, promise) {
  const url = serverUrlOf(store.state);
  store.dispatch({ type: 'online/busy' });
  try {
    const view = await promise(url);
    if (store.state.settings.serverUrl !== url) {
      store.dispatch({ type: 'setting', key: 'serverUrl', value: url });
      api.setSetting('serverUrl', url).catch(() => {});
    }
    viewLoaded(store, view, true);
  } catch (error) {
    store.dispatch({ type: 'online/error', error });
  }
}

/** Opens the lobby of the server in the form (its failure shows in the lobby's view). */
async function openLobby(store) {
  const url = serverUrlOf(store.state);
  try {
    store.dispatch({ type: 'lobby/view', view: await api.lobbyOpen(url) });
    // A server that answered is kept as the one to use.
    if (store.state.settings.serverUrl !== url) {
      store.dispatch({ type: 'setting', key: 'serverUrl', value: url });
      api.setSetting('serverUrl', url).catch(() => {});
    }
  } catch {
    // The pushed view says `unreachable` with the reason; fetch it in case the push came first.
    try {
      store.dispatch({ type: 'lobby/view', view: await api.lobbyView() });
    } catch {
      // No backend: nothing to show.
    }
  }
}

/** Asks for the games playing now (shown in the Watch tab). */
async function loadPlayingNow(store) {
  try {
    store.dispatch({ type: 'lobby/live', games: await api.lobbyPlayingNow() });
  } catch (error) {
    store.dispatch({ type: 'online/error', error });
  }
}

/** Runs a lobby call answering with a LobbyView; a refusal shows on the Online screen. */
async function lobbyCall(store, promise) {
  store.dispatch({ type: 'online/busy' });
  try {
    store.dispatch({ type: 'lobby/view', view: await promise });
  } catch (error) {
    store.dispatch({ type: 'online/error', error });
  }
}

const lobbyLinked = (state) => {
  const link = state.online.lobby && state.online.lobby.link;
  return Boolean(link && (link.state === 'connected' || link.state === 'reconnecting'));
};

/** The lobby's actions: open, name, challenges, quick pairing, watching, the recovery code. */
async function lobbyEffects(action, store) {
  const state = store.state;
  switch (action.type) {
    case 'online/tab':
      if ((action.tab === 'lobby' || action.tab === 'play') && !lobbyLinked(state)) await openLobby(store);
      if (action.tab === 'watch' && lobbyLinked(state)) await loadPlayingNow(store);
      break;
    case 'lobby/open':
      await openLobby(store);
      break;
    case 'lobby/open-match':
      openMatch(store, action.game);
      break;
    case 'lobby/name':
      await lobbyCall(store, api.lobbyRegisterName(state.online.name));
      break;
    case 'lobby/create':
      await lobbyCall(store, api.lobbyCreate(challengeArgs(state.online)));
      break;
    case 'lobby/cancel':
      await lobbyCall(store, api.lobbyCancel(action.id));
      break;
    case 'lobby/play-now': {
      const { game, timeControl, rated, cpuAfterS } = playNowArgs(state.online);
      await lobbyCall(store, api.lobbyPlayNow(game, timeControl, rated, cpuAfterS));
      break;
    }
    case 'lobby/join-table':
      await lobbyCall(store, api.lobbyJoinTable(action.id));
      break;
    case 'lobby/cancel-play-now':
      await lobbyCall(store, api.lobbyCancelPlayNow());
      break;
    case 'lobby/accept':
      await enter(store, () => api.lobbyAccept(action.id));
      break;
    case 'lobby/leaderboard': {
      const { boardGame: game, boardSpeed: speed } = state.online;
      store.dispatch({ type: 'online/busy' });
      try {
        store.dispatch({ type: 'lobby/board', board: { game, speed, players: await api.lobbyLeaderboard(game, speed) } });
      } catch (error) {
        store.dispatch({ type: 'online/error', error });
      }
      break;
    }
    case 'lobby/open-profile':
      store.dispatch({ type: 'online/busy' });
      try {
        store.dispatch({ type: 'lobby/profile', profile: await api.lobbyProfile(action.name) });
      } catch (error) {
        store.dispatch({ type: 'online/error', error });
      }
      break;
    case 'lobby/save-pgn':
      try {
        store.dispatch({ type: 'lobby/pgn', path: await api.lobbySavePgn(action.id) });
      } catch (error) {
        store.dispatch({ type: 'online/error', error });
      }
      break;
    case 'lobby/playing-now':
      await loadPlayingNow(store);
      break;
    case 'online/watch-room':
      store.dispatch({ type: 'online/change', key: 'watchCode', value: action.code });
      await enter(store, (url) => api.netWatch(url, action.code));
      break;
    case 'online/watch':
      await enter(store, (url) => api.netWatch(url, state.online.watchCode));
      break;
    case 'identity/show-code':
      store.dispatch({ type: 'dialog', dialog: null });
      try {
        store.dispatch({ type: 'lobby/recovery', code: await api.identityRecoveryCode() });
        store.dispatch({ type: 'lobby/view', view: await api.lobbyView() });
      } catch (error) {
        store.dispatch({ type: 'online/error', error });
      }
      break;
    case 'identity/recover':
      store.dispatch({ type: 'dialog', dialog: null });
      try {
        await api.identityRecover(state.online.recoverCode);
        store.dispatch({ type: 'online/change', key: 'recoverCode', value: '' });
        // The connection identified with the old key: open the lobby again with the new one.
        await api.lobbyClose();
        await openLobby(store);
      } catch (error) {
        store.dispatch({ type: 'online/error', error });
      }
      break;
    default:
      break;
  }
}

export async function netEffects(action, store) {
  const state = store.state;
  if (action.type.startsWith('lobby/') || action.type.startsWith('identity/') || ['online/tab', 'online/watch', 'online/watch-room'].includes(action.type)) {
    await lobbyEffects(action, store);
    return;
  }
  switch (action.type) {
    case 'online/create':
      await enter(store, (url) => api.netCreate(url, createArgs(state.online)));
      break;
    case 'online/join':
      await enter(store, (url) => api.netJoin(url, state.online.code));
      break;
    case 'online/rejoin':
      await enter(store, () => api.netRejoin());
      break;
    case 'navigate':
      // With a server saved, the lobby opens with the screen.
      if (state.settings.serverUrl && !state.net && !lobbyLinked(state) && (state.online.tab === 'lobby' || state.online.tab === 'play')) {
        openLobby(store);
      }
      // The Online screen offers the room this device held a seat in when the app was closed.
      if (!state.net) {
        try {
          store.dispatch({ type: 'online/kept', kept: await api.netKept() });
        } catch {
          store.dispatch({ type: 'online/kept', kept: null });
        }
      }
      break;
    case 'net/pause':
      netCall(store, api.netPause());
      break;
    case 'net/resume':
      netCall(store, api.netResume());
      break;
    case 'net/resign':
      store.dispatch({ type: 'dialog', dialog: null });
      netCall(store, api.netResign());
      break;
    case 'net/offer-draw':
      if (store.state.ui.dialog === 'net-draw') store.dispatch({ type: 'dialog', dialog: null });
      netCall(store, api.netOfferDraw());
      break;
    case 'net/rematch':
      netCall(store, api.netRematch());
      break;
    case 'net/decline-draw':
      netCall(store, api.netDeclineDraw());
      break;
    case 'net/claim':
      netCall(store, api.netClaimDraw());
      break;
    case 'net/copy-code': {
      // The share sheet (or the clipboard) gets the code and, for an online room, its link; the
      // code stays on screen to read out when both are refused.
      const net = state.net;
      if (!net || !net.code) break;
      const tr = (key, params) => translate(state.language, key, params);
      const text = net.invite ? tr('net.invite.text', { code: net.code, url: net.invite.url }) : net.code;
      await shareFrom(store, 'copy-code', { title: tr('net.invite.title'), text });
      break;
    }
    case 'net/build': {
      const seat = state.net && state.net.seat;
      if (!seat) break;
      store.dispatch({ type: 'net/build-open', build: { ...newBuild({ opponent: 'computer' }, seat), net: true } });
      try {
        store.dispatch({ type: 'build/army', view: await api.armyView(seat, null) });
        store.dispatch({ type: 'build/saved', saved: await api.savedArmies() });
      } catch (error) {
        store.dispatch({ type: 'build/error', error });
      }
      break;
    }
    case 'net/return':
      if (state.net) store.dispatch({ type: 'net/view', view: state.net, open: true });
      break;
    case 'net/leave':
      try {
        await api.netLeave();
      } catch {
        // Leaving always returns to the Online screen.
      }
      store.dispatch({ type: 'net/closed' });
      store.dispatch({ type: 'online/kept', kept: null });
      // Back on the Online screen from a game: the lobby opens again.
      if (store.state.screen === 'online' && store.state.settings.serverUrl && (store.state.online.tab === 'lobby' || store.state.online.tab === 'play')) {
        openLobby(store);
      }
      break;
    default:
      break;
  }
}

/**
 * Opens the network game screen on the backend's current game, e.g. a LAN game just handed over
 * to the network session (`origin`: the screen that leaving the game returns to).
 */
export async function openNetGame(store, origin = 'lan') {
  try {
    const view = await api.netView();
    if (view) store.dispatch({ type: 'net/view', view, open: true, origin });
  } catch (error) {
    store.dispatch({ type: 'net/error', error });
  }
}

/** Opens the Chaturaji table screen on the network table the lobby seated this device at. */
async function openLobbyTable(store) {
  try {
    store.dispatch({ type: 'chaturaji/entered', table: await api.chaturajiNetView() });
  } catch (error) {
    store.dispatch({ type: 'online/error', error });
  }
}

/** Listens to the pushed network views and clock ticks. */
export function subscribeNet(store) {
  api.subscribe('net', (view) => {
    // While a create or join is on its way, its first pushed views may come before its answer.
    if (store.state.net || store.state.online.busy || store.state.screen === 'netgame') viewLoaded(store, view);
  });
  api.subscribe('net-clock', (tick) => store.dispatch({ type: 'net/tick', tick }));
  api.subscribe('lobby', (view) => {
    const before = store.state.online.lobby;
    store.dispatch({ type: 'lobby/view', view });
    // A challenge of ours taken, or a pairing made: the game screen takes over (the Chaturaji
    // table screen for a table, seated there like a table joined by code), at once from the
    // lobby or a menu; over a game, a build or a review a banner offers it instead.
    if (view.matched && !(before && before.matched === view.matched)) {
      if (matchOpensFrom(store.state.screen)) openMatch(store, view.matched_game);
      else store.dispatch({ type: 'lobby/match-waiting', game: view.matched_game ?? 'chess' });
    }
  });
}

/** Opens the screen of a lobby match: the Chaturaji table, or the network game. */
function openMatch(store, game) {
  if (game === 'chaturaji') openLobbyTable(store);
  else openNetGame(store, 'online');
}
