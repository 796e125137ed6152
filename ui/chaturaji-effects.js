// Chaturaji's effects: the backend calls behind chaturaji/* actions, and the pushed `chaturaji`
// event (CPU seats' steps, time-outs). main.js hands every chaturaji/* action here.
import * as api from './api.js';
import { dropDecision, nextGameSetup, settingsOf, setupOfTable, tapDecision } from './chaturaji-store.js';

/** Runs a call that answers with a table; errors show on the Chaturaji screen. */
async function tableCall(store, promise) {
  try {
    store.dispatch({ type: 'chaturaji/loaded', table: await promise });
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
    case 'move':
      tableCall(store, api.chaturajiMove(decision.from, decision.to, decision.die));
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
    case 'chaturaji/roll':
      tableCall(store, api.chaturajiRoll());
      break;
    case 'chaturaji/end-turn':
      tableCall(store, api.chaturajiEndTurn());
      break;
    case 'chaturaji/resign':
      store.dispatch({ type: 'chaturaji/dialog', dialog: null });
      tableCall(store, api.chaturajiResign(action.seat));
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
        await api.chaturajiLeave();
      } catch {
        // Leaving still returns to the menu; the table was saved with its last action.
      }
      store.dispatch({ type: 'back' });
      break;
    default:
      break;
  }
}

/** Listens for tables the backend pushes (CPU steps, time-outs). */
export function subscribeChaturaji(store) {
  return api.subscribe('chaturaji', (table) => {
    const cj = store.state.chaturaji;
    if (store.state.screen === 'chaturaji' && cj && cj.table && cj.table.id === table.id) {
      store.dispatch({ type: 'chaturaji/loaded', table });
    }
  });
}
