// Chaturaji's effects: the backend calls behind chaturaji/* actions, and the pushed `chaturaji`
// event (CPU seats' steps, time-outs). main.js hands every chaturaji/* action here.
import * as api from './api.js';
import { buzz } from './haptics.js';
import { play as playSound } from './sound.js';
import {
  chaturajiInviteText, chaturajiSound, dropDecision, nextGameSetup, serverUrl, settingsOf, setupOfTable, tapDecision,
} from './chaturaji-store.js';
import { t as translate } from './i18n.js';
import { shareFrom } from './share.js';

/** A table snapshot shown: state first (the board is drawn), then its sound and haptic, as in chess. */
function tableLoaded(store, table) {
  const sound = chaturajiSound(store.state.chaturaji?.table, table);
  store.dispatch({ type: 'chaturaji/loaded', table });
  if (!sound) return;
  if (store.state.settings.sounds) playSound(sound);
  buzz(sound, store.state.settings);
}

/** Runs a call that answers with a table; errors show on the Chaturaji screen. */
async function tableCall(store, promise) {
  try {
    tableLoaded(store, await promise);
  } catch (error) {
    store.dispatch({ type: 'chaturaji/error', error });
  }
}

/** The local table's commands, or the network table's when the table is remote. */
function backend(store) {
  const remote = Boolean(store.state.chaturaji?.table?.remote);
  return remote
    ? { roll: api.chaturajiNetRoll, move: api.chaturajiNetMove, endTurn: api.chaturajiNetEndTurn, resign: () => api.chaturajiNetResign(), leave: api.chaturajiNetLeave }
    : { roll: api.chaturajiRoll, move: api.chaturajiMove, endTurn: api.chaturajiEndTurn, resign: api.chaturajiResign, leave: api.chaturajiLeave };
}

async function startNet(store, join) {
  const setup = store.state.chaturaji.setup;
  let url;
  let settings;
  try {
    url = serverUrl(setup);
    settings = join ? null : settingsOf(setup);
  } catch (error) {
    store.dispatch({ type: 'chaturaji/error', error });
    return;
  }
  await tableCall(store, join ? api.chaturajiNetJoin(url, setup.net_code) : api.chaturajiNetCreate(url, settings));
}

async function hostOnLan(store) {
  const setup = store.state.chaturaji.setup;
  try {
    const { hosted, table } = await api.chaturajiLanHost(setup.lan_name, settingsOf(setup));
    store.dispatch({ type: 'chaturaji/hosted', hosted });
    store.dispatch({ type: 'chaturaji/loaded', table });
  } catch (error) {
    store.dispatch({ type: 'chaturaji/error', error });
  }
}

async function browseLan(store) {
  try {
    store.dispatch({ type: 'chaturaji/lan-hosts', list: await api.lanBrowse() });
  } catch (error) {
    store.dispatch({ type: 'chaturaji/error', error });
  }
}

function decide(store, decision) {
  switch (decision.kind) {
    case 'select':
      store.dispatch({ type: 'chaturaji/select', square: decision.square });
      break;
    case 'deselect':
      store.dispatch({ type: 'chaturaji/deselect' });
      break;
    case 'inspect':
      store.dispatch({ type: 'chaturaji/inspect', square: decision.square });
      break;
    case 'move':
      tableCall(store, backend(store).move(decision.from, decision.to, decision.die));
      break;
    default:
      break;
  }
}

async function start(store, setup) {
  let settings;
  try {
    settings = settingsOf(setup);
  } catch (error) {
    store.dispatch({ type: 'chaturaji/error', error });
    return;
  }
  await tableCall(store, api.chaturajiNew(settings));
}

/** Side effects of a chaturaji/* action (after the reducer ran). */
export async function chaturajiEffects(action, store) {
  const cj = store.state.chaturaji;
  switch (action.type) {
    case 'chaturaji/open':
      try {
        const table = await api.chaturajiCurrent();
        if (table) store.dispatch({ type: 'chaturaji/loaded', table });
        else store.dispatch({ type: 'chaturaji/setup' });
      } catch (error) {
        store.dispatch({ type: 'chaturaji/setup' });
        store.dispatch({ type: 'chaturaji/error', error });
      }
      break;
    case 'chaturaji/start':
      await start(store, cj.setup);
      break;
    case 'chaturaji/again': {
      const setup = nextGameSetup(setupOfTable(cj.table));
      store.dispatch({ type: 'chaturaji/setup', setup });
      await start(store, setup);
      break;
    }
    case 'chaturaji/net-create':
      await startNet(store, false);
      break;
    case 'chaturaji/net-join':
      await startNet(store, true);
      break;
    case 'chaturaji/lan-host':
      await hostOnLan(store);
      break;
    case 'chaturaji/lan-browse':
      await browseLan(store);
      break;
    case 'chaturaji/setup-back':
      // The list of tables is not shown any more: stop browsing (and so the multicast lock).
      if (cj.lanTables) api.lanStopBrowsing().catch(() => {});
      store.dispatch({ type: 'chaturaji/lan-hosts', list: null });
      store.dispatch({ type: 'back' });
      break;
    case 'chaturaji/lan-join':
      await tableCall(store, api.chaturajiLanJoin({ kind: 'host', id: action.id }));
      break;
    case 'chaturaji/lan-join-code':
      await tableCall(store, api.chaturajiLanJoin({ kind: 'code', code: cj.setup.lan_code }));
      break;
    case 'chaturaji/share': {
      // The table's link, to the share sheet or the clipboard ("Copied" beside the button).
      const tr = (key, params) => translate(store.state.language, key, params);
      const text = chaturajiInviteText(cj, tr);
      if (text) await shareFrom(store, 'cj-share', { title: tr('cj.invite.title'), text });
      break;
    }
    case 'chaturaji/roll':
      tableCall(store, backend(store).roll());
      break;
    case 'chaturaji/end-turn':
      tableCall(store, backend(store).endTurn());
      break;
    case 'chaturaji/resign':
      store.dispatch({ type: 'chaturaji/dialog', dialog: null });
      tableCall(store, backend(store).resign(action.seat));
      break;
    case 'chaturaji/square':
      decide(store, tapDecision(cj, action.square));
      break;
    case 'chaturaji/drop':
      decide(store, dropDecision(cj, action.from, action.to));
      break;
    case 'chaturaji/show-record':
      try {
        store.dispatch({ type: 'chaturaji/record', record: await api.chaturajiRecord() });
      } catch (error) {
        store.dispatch({ type: 'chaturaji/error', error });
      }
      break;
    case 'chaturaji/leave':
      try {
        await backend(store).leave();
      } catch {
        // Leaving still returns to the menu; the table was saved with its last action.
      }
      // Leaving a network table this device hosted stopped the host too.
      if (cj.hosted && cj.table?.remote) store.dispatch({ type: 'chaturaji/hosted', hosted: null });
      store.dispatch({ type: 'back' });
      break;
    default:
      break;
  }
}

/** When the time per turn of the shown table runs out, in this page's clock (null: untimed). */
let deadline = null;
let shownVersion = null;

/** Counts the time per turn down on screen between the backend's pushes. */
function tickTurnTime(store) {
  const cj = store.state.chaturaji;
  const table = cj && store.state.screen === 'chaturaji' ? cj.table : null;
  if (!table || table.time_left_ms === null || table.time_left_ms === undefined) {
    deadline = null;
    return;
  }
  const key = `${table.id}:${table.version}`;
  if (key !== shownVersion) {
    shownVersion = key;
    deadline = Date.now() + table.time_left_ms;
  }
  const node = document.getElementById('cj-time');
  if (node) node.textContent = ` · ${Math.max(0, Math.ceil((deadline - Date.now()) / 1000))} s`;
}

/** Listens for tables the backend pushes (CPU steps, time-outs). */
export function subscribeChaturaji(store) {
  setInterval(() => tickTurnTime(store), 250);
  api.subscribe('lan-hosts', (list) => {
    if (store.state.screen === 'chaturaji' && store.state.chaturaji?.page === 'setup') {
      store.dispatch({ type: 'chaturaji/lan-hosts', list });
    }
  });
  // The hosted table's announcement refused (or back) after hosting started: only for that table.
  api.subscribe('chaturaji-hosted', (hosted) => {
    if (store.state.chaturaji?.hosted?.room === hosted.room) store.dispatch({ type: 'chaturaji/hosted', hosted });
  });
  return api.subscribe('chaturaji', (table) => {
    const cj = store.state.chaturaji;
    if (store.state.screen === 'chaturaji' && cj && cj.table && cj.table.id === table.id) tableLoaded(store, table);
  });
}
