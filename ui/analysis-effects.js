// The analysis board's effects: the backend calls behind analysis/* actions and the pushed
// `analysis` (review progress) and `analysis-engine` (the engine's lines) events. main.js hands
// every analysis/* action here. No call waits for the engine: it thinks in the backend.
import * as api from './api.js';
import { analysisDrop, analysisTap } from './analysis-store.js';
import { shareFrom } from './share.js';
import { t as translate } from './i18n.js';

/** Runs a call answering with a board view; errors show on the analysis screen. */
async function boardCall(store, promise) {
  try {
    store.dispatch({ type: 'analysis/loaded', view: await promise });
  } catch (error) {
    store.dispatch({ type: 'analysis/error', error });
  }
}

function decide(store, decision) {
  switch (decision.kind) {
    case 'select':
      store.dispatch({ type: 'analysis/select', square: decision.square });
      break;
    case 'deselect':
      store.dispatch({ type: 'analysis/deselect' });
      break;
    case 'move':
      boardCall(store, api.analysisPlay(decision.uci));
      break;
    case 'promote':
      store.dispatch({ type: 'analysis/promotion', from: decision.from, to: decision.to, letters: decision.letters });
      break;
    default:
      break;
  }
}

/** The effect of one analysis/* action (after the reducer ran). */
export async function analysisEffects(action, store) {
  const analysis = store.state.analysis;
  switch (action.type) {
    case 'analysis/open':
      await boardCall(store, api.analysisOpen(action.source));
      break;
    case 'analysis/armies':
      // The other side's army as built, else this one mirrored.
      try {
        const otherColor = action.side === 'white' ? 'black' : 'white';
        const other = action.other ?? (await api.armyPreset(otherColor, 'mirror', action.army)).army;
        const [white, black] = action.side === 'white' ? [action.army, other] : [other, action.army];
        store.dispatch({ type: 'analysis/loaded', view: await api.analysisOpen({ kind: 'armies', white, black }) });
      } catch (error) {
        store.dispatch({ type: 'build/error', error });
      }
      break;
    case 'analysis/square':
      decide(store, analysisTap(analysis, action.square));
      break;
    case 'analysis/drop':
      decide(store, analysisDrop(analysis, action.from, action.to));
      break;
    case 'analysis/play':
      boardCall(store, api.analysisPlay(action.uci));
      break;
    case 'analysis/step':
      boardCall(store, api.analysisStep(action.to));
      break;
    case 'analysis/go':
      boardCall(store, api.analysisGo(action.node));
      break;
    case 'analysis/promote-line':
      boardCall(store, api.analysisPromote(action.node));
      break;
    case 'analysis/delete':
      boardCall(store, api.analysisDelete(action.node));
      break;
    case 'analysis/lines':
      boardCall(store, api.analysisLines(action.lines));
      break;
    case 'analysis/review':
      boardCall(store, api.analysisReview());
      break;
    case 'analysis/stop-review':
      boardCall(store, api.analysisStopReview());
      break;
    case 'analysis/export':
      try {
        store.dispatch({ type: 'analysis/pgn', pgn: await api.analysisPgn() });
      } catch (error) {
        store.dispatch({ type: 'analysis/error', error });
      }
      break;
    case 'analysis/save':
      try {
        store.dispatch({ type: 'analysis/saved', path: await api.analysisSavePgn() });
      } catch (error) {
        store.dispatch({ type: 'analysis/error', error });
      }
      break;
    case 'analysis/import':
      try {
        store.dispatch({ type: 'analysis/loaded', view: await api.analysisOpen({ kind: 'text', text: analysis?.importText ?? '' }) });
        store.dispatch({ type: 'analysis/dialog', dialog: null });
        store.dispatch({ type: 'analysis/import-text', text: '' });
      } catch (error) {
        store.dispatch({ type: 'analysis/error', error });
      }
      break;
    case 'analysis/copy':
      await shareFrom(store, 'analysis-copy', { title: translate(store.state.language, 'analysis.export'), text: analysis?.pgn ?? '' }, {
        fallback: () => {
          document.getElementById('analysis-pgn')?.select();
          return Boolean(document.execCommand?.('copy'));
        },
      });
      break;
    case 'analysis/closed':
      api.analysisClose().catch(() => {});
      break;
    default:
      break;
  }
}

/** Listens to the board's pushed events. */
export function subscribeAnalysis(store) {
  api.subscribe('analysis-engine', (engine) => store.dispatch({ type: 'analysis/engine', engine }));
  api.subscribe('analysis', (view) => {
    if (store.state.analysis?.view) store.dispatch({ type: 'analysis/loaded', view, pushed: true });
  });
}
