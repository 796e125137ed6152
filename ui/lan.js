// The Local network screen's effects: host, browse (the list arrives as `lan-hosts` events),
// join, leave, the connection state (`lan-status` events), and the hosted game's announcement
// (`lan-hosted` events, when it is refused or comes back).
import * as api from './api.js';
import { t as translate } from './i18n.js';
import { hostRequest } from './lanstate.js';
import { openNetGame } from './neteffects.js';
import { shareFrom } from './share.js';

const NAME_KEY = 'maharajah.lanName';

function savedName() {
  try {
    return localStorage.getItem(NAME_KEY) ?? '';
  } catch {
    return '';
  }
}

function saveName(name) {
  try {
    localStorage.setItem(NAME_KEY, name);
  } catch {
    // Without storage the name is asked again next time.
  }
}

async function refresh(store) {
  try {
    const [hosting, status] = await Promise.all([api.lanHosted(), api.lanStatus()]);
    store.dispatch({ type: 'lan/hosted', hosting });
    store.dispatch({ type: 'lan/status', status });
  } catch (error) {
    store.dispatch({ type: 'lan/error', error });
  }
}

async function browse(store) {
  try {
    const list = await api.lanBrowse();
    // The list pushed meanwhile (lan-hosts events, always `browsing`) is newer than this answer.
    if (!store.state.lan.list.browsing) store.dispatch({ type: 'lan/hosts', list });
  } catch (error) {
    store.dispatch({ type: 'lan/error', error });
  }
}

function stopBrowsing(store) {
  if (store.state.lan.list.browsing) api.lanStopBrowsing().catch(() => {});
}

/** Whether the join list should be live: the Join tab is open and this device is in no LAN game. */
function wantsList(state) {
  const lan = state.lan;
  return state.screen === 'lan' && lan.tab === 'join' && !lan.hosting && !lan.status;
}

/** Entering the screen (from the menu, or back from a LAN game): what is going on, and the list. */
async function entered(store) {
  if (!store.state.lan.form.name) store.dispatch({ type: 'lan/form', key: 'name', value: savedName() });
  await refresh(store);
  if (wantsList(store.state)) browse(store);
}

/** Effects of 'lan/…' actions. */
export async function lanEffects(action, store) {
  const state = store.state;
  switch (action.type) {
    case 'lan/tab':
      if (wantsList(state)) browse(store);
      else stopBrowsing(store);
      break;
    case 'lan/host': {
      const request = hostRequest(state.lan.form);
      saveName(request.name.trim());
      store.dispatch({ type: 'lan/busy', busy: 'host' });
      try {
        store.dispatch({ type: 'lan/hosted', hosting: await api.lanHost(request) });
        store.dispatch({ type: 'lan/status', status: await api.lanStatus() });
      } catch (error) {
        store.dispatch({ type: 'lan/error', error });
      }
      break;
    }
    case 'lan/join': {
      // Typed fields are read now: typing does not re-render, so the view's closure may be stale.
      const lan = state.lan;
      let target = action.target;
      if (target.kind === 'code') target = { kind: 'code', code: lan.code };
      if (target.kind === 'address') target = { kind: 'address', address: lan.address, room: lan.room };
      store.dispatch({ type: 'lan/busy', busy: 'join' });
      try {
        store.dispatch({ type: 'lan/status', status: await api.lanJoin(target) });
        await openNetGame(store, 'lan');
      } catch (error) {
        store.dispatch({ type: 'lan/error', error });
      }
      break;
    }
    case 'lan/share': {
      // The join code and its link, to the share sheet or the clipboard ("Copied" beside the button).
      const hosting = state.lan.hosting;
      if (!hosting || !hosting.join_code) break;
      const tr = (key, params) => translate(state.language, key, params);
      await shareFrom(store, 'lan-share', { title: tr('net.invite.title'), text: tr('lan.share.text', { code: hosting.join_code, url: hosting.join_url }) });
      break;
    }
    case 'lan/open-game':
      openNetGame(store, 'lan');
      break;
    case 'lan/leave':
      try {
        await api.lanLeave();
      } catch {
        // Leaving always clears this screen; the backend drops what it can.
      }
      store.dispatch({ type: 'lan/left' });
      if (wantsList(store.state)) browse(store);
      break;
    default:
      break;
  }
}

/** Listens to the backend's LAN events, and to the screen being entered or left (by any path). */
export function subscribeLan(store) {
  // A pushed list re-renders the screen; the field being typed in keeps the focus and caret.
  let typing = null;
  document.addEventListener('focusin', (event) => {
    const el = event.target;
    typing = el && el.id && el.id.startsWith('lan-') && el.tagName === 'INPUT' && el.type === 'text' ? el.id : null;
  });
  let screen = store.state.screen;
  store.subscribe((state) => {
    if (state.screen === 'lan' && typing && document.activeElement === document.body) {
      const field = document.getElementById(typing);
      if (field) {
        field.focus();
        field.setSelectionRange(field.value.length, field.value.length);
      }
    }
    if (state.screen === screen) return;
    const was = screen;
    screen = state.screen;
    // After this dispatch has finished rendering.
    if (screen === 'lan') Promise.resolve().then(() => entered(store));
    else if (was === 'lan') stopBrowsing(store);
  });
  api.subscribe('lan-hosts', (list) => store.dispatch({ type: 'lan/hosts', list }));
  // The hosted game's announcement refused (or back) after hosting started: only for that game.
  api.subscribe('lan-hosted', (hosting) => {
    if (store.state.lan.hosting && store.state.lan.hosting.room === hosting.room) store.dispatch({ type: 'lan/hosted', hosting });
  });
  api.subscribe('lan-status', (status) => {
    const state = store.state;
    if (status.phase === 'closed' && !status.detail) {
      // Left (here or from the game screen): forget it; asking the backend stops a host.
      store.dispatch({ type: 'lan/left' });
      api.lanStatus().catch(() => {});
      return;
    }
    store.dispatch({ type: 'lan/status', status });
    // The guest is seated: the host goes to the game.
    if (status.role === 'host' && status.phase === 'seated' && state.screen === 'lan') openNetGame(store, 'lan');
    // On the game screen, the host gone for good is said plainly there too.
    if (status.role === 'guest' && status.phase === 'host_left' && state.screen === 'netgame') {
      store.dispatch({ type: 'net/error', error: { code: 'lan_host_left', message: translate(state.language, 'lan.status.guest.host_left') } });
    }
  });
}
