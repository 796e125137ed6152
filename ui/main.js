// Boots the UI: one store, one render function, and the effects that talk to the backend.
import * as api from './api.js';
import { play as playSound } from './sound.js';
import { buzz, setHapticsAvailable } from './haptics.js';
import { setNativeShare } from './share.js';
import { shareFrom } from './share.js';
import { followLink } from './links.js';
import { setPieceSet } from './pieces.js';
import {
  announcement, buildTap, createStore, dropDecision, initialState, namesOf, opponentOf, personColor, placeOf, premoveToPlay, soundFor, stepPly, tapDecision, timeControlOf,
} from './store.js';
import { pickLanguage, t as translate } from './i18n.js';
import { renderMenu } from './views/menu.js';
import { renderAbout } from './views/about.js';
import { renderSettings } from './views/settings.js';
import { renderSoon } from './views/soon.js';
import { renderSetup } from './views/setup.js';
import { renderGame, patchClocks } from './views/game.js';
import { renderHistory } from './views/history.js';
import { renderBuilder } from './views/builder.js';
import { renderLearn } from './views/learn.js';
import { renderChaturaji } from './views/chaturaji.js';
import { chaturajiEffects, subscribeChaturaji } from './chaturaji-effects.js';
import { renderLan } from './views/lan.js';
import { lanEffects, subscribeLan } from './lan.js';
import { holdWhilePressed } from './press-hold.js';
import { matchBanner, renderOnline } from './views/online.js';
import { renderNetGame, patchNetClocks } from './views/netgame.js';
import { netEffects, netLockArmy, netMove, subscribeNet } from './neteffects.js';
import { warmUpGameScreen } from './warmup.js';
import { patchAnalysisEngine, patchAnalysisReview, renderAnalysis } from './views/analysis.js';
import { analysisEffects, subscribeAnalysis } from './analysis-effects.js';

const LANGUAGE_KEY = 'maharajah.language';

function savedLanguage() {
  try {
    return localStorage.getItem(LANGUAGE_KEY);
  } catch {
    return null;
  }
}

const store = createStore(initialState(pickLanguage(savedLanguage(), navigator.languages || [navigator.language])));
const root = document.getElementById('app');

/** A fresh snapshot from the backend: state (the board is drawn), then its sound. */
function gameLoaded(game) {
  const sound = soundFor(store.state.game, game);
  store.dispatch({ type: 'game/loaded', game });
  // The board is drawn first: the audio system's first start can take a few hundred ms.
  if (sound && store.state.settings.sounds) requestAnimationFrame(() => setTimeout(() => playSound(sound)));
  if (sound) buzz(sound, store.state.settings);
}

/** Plays a move (UCI or SAN); a refusal carries the move, which its sentence names. */
async function playMove(mv) {
  try {
    return await api.playMove(mv);
  } catch (error) {
    throw error && typeof error === 'object' ? { ...error, params: { move: mv } } : error;
  }
}

/** Runs a backend call that answers with a game snapshot; errors show on the game screen. */
async function gameCall(promise) {
  try {
    gameLoaded(await promise);
  } catch (error) {
    store.dispatch({ type: 'game/error', error });
  }
}

async function refreshStart() {
  try {
    const info = await api.startInfo();
    store.dispatch({ type: 'start/loaded', continueId: info.continue_id, levelRatings: info.level_ratings });
  } catch {
    store.dispatch({ type: 'start/loaded', continueId: null });
  }
}

async function loadHistory() {
  store.dispatch({ type: 'history/loading' });
  try {
    store.dispatch({ type: 'history/loaded', games: await api.history() });
  } catch (error) {
    store.dispatch({ type: 'history/failed', error });
  }
}

/** Plays `uci` now, or, with "Confirm moves" on, leaves it waiting for Confirm. */
function sendMove(uci, confirmed = false) {
  if (store.state.settings.confirmMove && !confirmed) {
    store.dispatch({ type: 'move/pending', uci });
    return;
  }
  if (store.state.screen === 'netgame') netMove(store, uci);
  else gameCall(playMove(uci));
}

function decide(decision) {
  switch (decision.kind) {
    case 'select':
      store.dispatch({ type: 'select', square: decision.square });
      break;
    case 'deselect':
      store.dispatch({ type: 'deselect' });
      break;
    case 'move':
      sendMove(decision.uci);
      break;
    case 'promote':
      store.dispatch({ type: 'promotion/open', from: decision.from, to: decision.to, letters: decision.letters });
      break;
    case 'premove':
      store.dispatch({ type: 'premove', premove: decision.premove });
      break;
    default:
      break;
  }
}

/** Keeps the names a pass-and-play game started with, to prefill the next setup. */
function rememberNames(game) {
  if (!game || game.opponent.kind !== 'human') return;
  const value = { white: game.names?.white ?? '', black: game.names?.black ?? '' };
  const kept = store.state.settings.playerNames;
  if (kept && kept.white === value.white && kept.black === value.black) return;
  intent({ type: 'setting', key: 'playerNames', value });
}

/** Runs a builder call answering with an army view; a failure shows on the builder. */
async function armyCall(promise, undoable = false) {
  try {
    store.dispatch({ type: 'build/army', view: await promise, undoable });
  } catch (error) {
    store.dispatch({ type: 'build/error', error });
  }
}

/** Runs a call answering with the saved armies; `saving` when it saved one just now. */
async function savedCall(promise, saving = false) {
  try {
    store.dispatch({ type: 'build/saved', saved: await promise, saving });
  } catch (error) {
    store.dispatch({ type: 'build/error', error });
  }
}

async function refreshReach() {
  const { role, square, blockers } = store.state.learn;
  try {
    store.dispatch({ type: 'learn/reach', reach: await api.learnReach(role, square, blockers) });
  } catch (error) {
    store.dispatch({ type: 'error', error });
  }
}

/** The builder's effects: placements, presets, saved armies, lock-in and the start. */
async function buildEffects(action, state) {
  if (action.type === 'build/start') {
    const setup = state.setup;
    // The names are checked before the armies are built, not refused after.
    let names = namesOf(setup);
    if (names) {
      try {
        names = await api.checkNames(names);
      } catch (error) {
        store.dispatch({ type: 'error', error });
        return;
      }
    }
    const person = setup.color === 'random' ? (Math.random() < 0.5 ? 'white' : 'black') : setup.color;
    store.dispatch({ type: 'build/begin', person, names });
    armyCall(api.armyView(store.state.build.side, null));
    savedCall(api.savedArmies());
    return;
  }
  const build = state.build;
  if (!build) return;
  const side = build.side;
  const view = build[side];
  switch (action.type) {
    case 'build/square': {
      if (!view) break;
      const change = buildTap(view, build.role, action.square);
      if (change) armyCall(api.armyPlace(side, view.army, change.square, change.role));
      break;
    }
    case 'build/move':
      if (view) armyCall(api.armyMove(side, view.army, action.from, action.to));
      break;
    case 'build/drop':
      if (view) armyCall(api.armyPlace(side, view.army, action.square, action.role));
      break;
    case 'build/preset':
      // A preset replaces the army at once; the builder offers Undo to get the old one back.
      if (action.preset === 'saved') armyCall(api.armyPreset(side, 'mirror', action.army), true);
      else if (action.preset === 'mirror') armyCall(api.armyPreset(side, 'mirror', build.white?.army ?? null), true);
      else armyCall(api.armyPreset(side, action.preset), true);
      break;
    case 'build/save':
      if (view) {
        await savedCall(api.saveArmy(build.saveName.trim() || translate(state.language, 'build.saved.default', { n: build.saved.length + 1 }), view.army), true);
        store.dispatch({ type: 'build/name', text: '' });
      }
      break;
    case 'build/rename':
      savedCall(api.renameArmy(action.id, action.name));
      break;
    case 'build/delete':
      savedCall(api.deleteArmy(action.id));
      break;
    case 'build/handover-done':
      store.dispatch({ type: 'build/stage', stage: 'build', side: 'black' });
      if (!store.state.build.black) armyCall(api.armyView('black', null));
      break;
    case 'build/lock':
      if (!view) break;
      if (build.net) {
        netLockArmy(store, view.army);
        break;
      }
      try {
        if (build.computer) {
          const mine = view.army;
          const opponent = opponentOf({ ...state.setup, color: build.person });
          gameLoaded(await api.newCustomGame(side === 'white' ? mine : null, side === 'black' ? mine : null, opponent, timeControlOf(state.setup)));
        } else if (side === 'white') {
          store.dispatch({ type: 'build/stage', stage: build.hidden ? 'handover' : 'build', side: build.hidden ? 'white' : 'black' });
          if (!build.hidden && !store.state.build.black) armyCall(api.armyView('black', null));
        } else {
          const problems = await api.startCheck(build.white.army, view.army);
          if (problems.length) store.dispatch({ type: 'build/problems', problems });
          else {
            const game = await api.newCustomGame(build.white.army, view.army, { kind: 'human' }, timeControlOf(state.setup), namesOf(state.setup));
            gameLoaded(game);
            rememberNames(game);
          }
        }
      } catch (error) {
        store.dispatch({ type: 'build/error', error });
      }
      break;
    default:
      break;
  }
}

/** Side effects of an action, after the reducer ran. */
async function effects(action) {
  const state = store.state;
  if (action.type.startsWith('chaturaji/')) {
    chaturajiEffects(action, store);
    return;
  }
  if (action.type === 'navigate' && action.screen === 'chaturaji') {
    intent({ type: 'chaturaji/open' });
    return;
  }
  if (action.type.startsWith('lan/')) {
    lanEffects(action, store);
    return;
  }
  if (action.type.startsWith('analysis/')) {
    analysisEffects(action, store);
    return;
  }
  if (action.type.startsWith('net/') || action.type.startsWith('online/') || action.type.startsWith('lobby/') || action.type.startsWith('identity/') || (action.type === 'navigate' && action.screen === 'online')) {
    netEffects(action, store);
    return;
  }
  if (action.type.startsWith('build/')) {
    buildEffects(action, state);
    return;
  }
  if (['learn/open', 'learn/role', 'learn/square', 'learn/clear'].includes(action.type) || (action.type === 'navigate' && action.screen === 'learn')) {
    refreshReach();
    return;
  }
  switch (action.type) {
    case 'navigate':
      if (action.screen === 'about') {
        store.dispatch({ type: 'versions/loading' });
        try {
          const versions = await api.versions();
          store.dispatch({ type: 'versions/loaded', app: versions.app, engine: versions.engine });
        } catch (error) {
          store.dispatch({ type: 'versions/failed', error });
        }
      }
      break;
    case 'language':
      try {
        localStorage.setItem(LANGUAGE_KEY, action.language);
      } catch {
        // Storage can be unavailable (private mode); the backend keeps the choice too.
      }
      api.setSetting('language', action.language).catch(() => {});
      break;
    case 'setting':
      api.setSetting(action.key, action.value).catch((error) => store.dispatch({ type: 'error', error }));
      break;
    case 'start-game':
      try {
        const setup = state.setup;
        const game = await api.newGame(setup.variant, opponentOf(setup, Math.random() < 0.5 ? 0 : 1), timeControlOf(setup), namesOf(setup));
        gameLoaded(game);
        rememberNames(game);
      } catch (error) {
        store.dispatch({ type: 'error', error });
      }
      break;
    case 'open-game':
      try {
        gameLoaded(await api.openGame(action.id));
      } catch (error) {
        store.dispatch({ type: 'error', error });
      }
      break;
    case 'history':
      store.dispatch({ type: 'navigate', screen: 'history' });
      loadHistory();
      break;
    case 'import':
      try {
        gameLoaded(await api.importGame(state.importText));
        store.dispatch({ type: 'import/text', text: '' });
      } catch (error) {
        store.dispatch({ type: 'error', error });
      }
      break;
    case 'square':
      decide(tapDecision(state, action.square));
      break;
    case 'drop':
      decide(dropDecision(state, action.from, action.to));
      break;
    case 'promote':
      sendMove(action.uci);
      break;
    case 'move/confirm': {
      const uci = state.ui.pending;
      store.dispatch({ type: 'move/cancel' });
      if (uci) sendMove(uci, true);
      break;
    }
    case 'typed-move': {
      const text = state.ui.moveText.trim();
      if (!text) break;
      try {
        gameLoaded(await playMove(text));
        store.dispatch({ type: 'move/text', text: '' });
        render(store.state);
      } catch (error) {
        store.dispatch({ type: 'game/error', error });
      }
      break;
    }
    case 'review/step':
      if (!state.game) break;
      intent({ type: 'review', ply: stepPly(state.game.history.length, state.ui.review ? state.ui.review.ply : null, action.to) });
      break;
    case 'review':
      if (!state.game) break;
      if (action.ply === state.game.history.length) {
        store.dispatch({ type: 'review/live' });
        break;
      }
      try {
        store.dispatch({ type: 'review/loaded', board: await api.review(action.ply) });
      } catch (error) {
        store.dispatch({ type: 'game/error', error });
      }
      break;
    case 'claim':
      gameCall(api.claimDraw());
      break;
    case 'offer-draw':
      store.dispatch({ type: 'dialog', dialog: null });
      gameCall(api.offerDraw());
      break;
    case 'accept-draw':
      gameCall(api.acceptDraw());
      break;
    case 'decline-draw':
      gameCall(api.declineDraw());
      break;
    case 'pause':
      gameCall(api.pauseGame());
      break;
    case 'resume':
      gameCall(api.resumeGame());
      break;
    case 'resign':
      store.dispatch({ type: 'dialog', dialog: null });
      gameCall(api.resign());
      break;
    case 'takeback':
      gameCall(api.takeback());
      break;
    case 'aid':
      gameCall(api.setAid(action.kind, action.on));
      break;
    case 'rematch':
      gameCall(api.rematch());
      break;
    case 'export':
      try {
        store.dispatch({ type: 'pgn/loaded', pgn: await api.exportPgn() });
      } catch (error) {
        store.dispatch({ type: 'game/error', error });
      }
      break;
    case 'copy-pgn':
      await shareFrom(store, 'pgn-copy', { title: translate(state.language, 'export.title'), text: state.ui.pgn ?? '' }, {
        fallback: () => {
          const area = document.getElementById('pgn-text');
          area?.select();
          return Boolean(document.execCommand?.('copy'));
        },
      });
      break;
    case 'save-pgn':
      try {
        store.dispatch({ type: 'pgn/saved', path: await api.savePgn() });
      } catch (error) {
        store.dispatch({ type: 'game/error', error });
      }
      break;
    case 'leave':
      try {
        await api.leaveGame();
      } catch {
        // Leaving still returns to the menu; the last move was saved when it was made.
      }
      store.dispatch({ type: 'game/closed' });
      refreshStart();
      break;
    case 'back':
      refreshStart();
      break;
    default:
      break;
  }
}

function intent(action) {
  store.dispatch(action);
  effects(action);
}

function view(state) {
  const ctx = { t: (key, params) => translate(state.language, key, params), intent };
  if (state.screen.startsWith('soon:')) return renderSoon(state.screen.slice(5), ctx);
  switch (state.screen) {
    case 'about':
      return renderAbout(state, ctx);
    case 'settings':
      return renderSettings(state, ctx);
    case 'setup':
      return renderSetup(state, ctx);
    case 'history':
      return renderHistory(state, ctx);
    case 'builder':
      if (state.build) return renderBuilder(state, ctx);
      return renderMenu(state, ctx);
    case 'learn':
      return renderLearn(state, ctx);
    case 'chaturaji':
      return renderChaturaji(state, ctx);
    case 'lan':
      return renderLan(state, ctx);
    case 'online':
      return renderOnline(state, ctx);
    case 'netgame':
      if (state.net) return renderNetGame(state, ctx);
      return renderOnline(state, ctx);
    case 'analysis':
      return renderAnalysis(state, ctx);
    case 'game':
      if (state.game) return renderGame(state, ctx);
      return renderMenu(state, ctx);
    default:
      return renderMenu(state, ctx);
  }
}

/** The place last drawn (placeOf): a new one opens scrolled to its top. */
let renderedPlace = null;

/** Draws `state`, but not while a finger or the mouse is pressed (see press-hold.js). */
const render = holdWhilePressed(document, drawScreen);

function drawScreen(state) {
  setPieceSet(state.settings.pieceSet);
  document.documentElement.lang = state.language;
  document.title = translate(state.language, 'app.title');
  const place = placeOf(state);
  const scroll = place === renderedPlace ? window.scrollY : 0;
  root.replaceChildren(view(state));
  const banner = matchBanner(state, { t: (key, params) => translate(state.language, key, params), intent });
  if (banner) root.append(banner);
  window.scrollTo(0, scroll);
  keepCurrentMoveInView(root);
  renderedPlace = place;
  const heading = root.querySelector('h1');
  if (heading && state.screen !== 'menu') heading.setAttribute('tabindex', '-1');
  root.querySelector('.dialog button')?.focus();
  announce(state);
}

/** Scrolls each move strip sideways (never the page) so the move shown is in view. */
function keepCurrentMoveInView(within) {
  for (const strip of within.querySelectorAll('.move-strip')) {
    const current = strip.querySelector('.current');
    if (!current) {
      strip.scrollLeft = strip.querySelector('.san') && !store.state.ui.review ? strip.scrollWidth : 0;
      continue;
    }
    const box = strip.getBoundingClientRect();
    const item = current.getBoundingClientRect();
    if (item.left < box.left) strip.scrollLeft -= box.left - item.left + 24;
    else if (item.right > box.right) strip.scrollLeft += item.right - box.right + 24;
  }
}

// Only the announcer is a live region, so a screen reader hears the move, not the whole page.
function announce(state) {
  const text = announcement(state, (key, params) => translate(state.language, key, params));
  const announcer = document.getElementById('announcer');
  if (announcer && announcer.textContent !== text) announcer.textContent = text;
}

// A premove is played as soon as the person's turn comes (and dropped if it is not legal then).
store.subscribe((state) => {
  if (!state.ui.premove || !state.game || state.game.board.turn !== personColor(state.game)) return;
  const uci = premoveToPlay(state);
  store.dispatch({ type: 'premove', premove: null });
  if (uci) sendMove(uci, true);
});

// Typing only updates state (the field already shows the text); clock ticks patch the clocks.
store.subscribe((state, action) => {
  if (action.type === 'move/text' || action.type === 'import/text' || action.type === 'build/name' || action.type === 'analysis/import-text' || action.quiet) return;
  if ((action.type === 'lan/field' || (action.type === 'lan/form' && action.key === 'name'))) return;
  if (action.type === 'clock' && state.screen === 'game') {
    patchClocks(root, state);
    return;
  }
  if (action.type === 'analysis/engine' || (action.type === 'analysis/loaded' && action.pushed && state.analysis?.view?.review?.running)) {
    const ctx = { t: (key, params) => translate(state.language, key, params), intent };
    if (state.screen === 'analysis' && action.type === 'analysis/engine') patchAnalysisEngine(root, state, ctx);
    else if (state.screen === 'analysis') patchAnalysisReview(root, state, ctx);
    return;
  }
  if (action.type === 'net/tick') {
    if (state.screen === 'netgame') patchNetClocks(root, state);
    return;
  }
  if (action.type === 'online/change' && !['variant', 'timeControl', 'color', 'rated', 'boardGame', 'boardSpeed', 'turnTime', 'people', 'cpuAfter'].includes(action.key)) return;
  render(state);
});
render(store.state);
// Start-up marks read by tests/bench/app-start.mjs: the menu built, then on screen (next frame).
performance.mark('maharajah:menu');
requestAnimationFrame(() => setTimeout(() => performance.mark('maharajah:menu-painted')));

async function boot() {
  try {
    const saved = await api.settings();
    const { language, ...settings } = saved;
    store.dispatch({ type: 'settings/loaded', settings });
    if (language && language !== store.state.language && !savedLanguage()) store.dispatch({ type: 'language', language });
  } catch {
    // Defaults apply when the backend has no settings yet (or none at all, in a plain browser).
  }
  await refreshStart();
  api.subscribe('game', (game) => {
    if (store.state.game && store.state.game.id === game.id) gameLoaded(game);
  });
  api.subscribe('clock', (clock) => store.dispatch({ type: 'clock', clock }));
  subscribeChaturaji(store);
  subscribeLan(store);
  subscribeNet(store);
  subscribeAnalysis(store);
  try {
    const device = await api.deviceInfo();
    setHapticsAvailable(device.haptics);
    setNativeShare(device.share_sheet ? api.shareText : null);
    store.dispatch({ type: 'device/loaded', device });
  } catch {
    // An older backend or a plain browser: no haptics.
  }
  // A join link (maharajah://join/…) the app was opened with, then those that arrive while it runs.
  const takeLink = async () => {
    try {
      followLink(await api.takeJoinLink(), store.state, intent);
    } catch {
      // No backend: nothing was opened.
    }
  };
  api.subscribe('join-link', takeLink);
  await takeLink();
  performance.mark('maharajah:ready');
}
boot().then(() => warmUpGameScreen(() => store.state, (key, params) => translate(store.state.language, key, params)));

// A local game's running clock stops when the app goes to the background (the phone locks,
// another app opens); the person resumes it with a tap.
document.addEventListener('visibilitychange', () => {
  const game = store.state.game;
  if (document.hidden && store.state.screen === 'game' && game && !game.result && !game.paused && game.clock?.running) {
    intent({ type: 'pause' });
  }
});

// On the game screen the arrow keys step through the moves (Home/End: the start, the game).
const STEP_KEYS = { ArrowLeft: 'prev', ArrowRight: 'next', Home: 'first', End: 'last' };
document.addEventListener('keydown', (event) => {
  const to = STEP_KEYS[event.key];
  if (!to || store.state.screen !== 'game' || store.state.ui.dialog || store.state.ui.promotion) return;
  // Not while typing, nor while the arrows walk the board's squares.
  if (event.target instanceof Element && event.target.closest('input, textarea, select, .board')) return;
  event.preventDefault();
  intent({ type: 'review/step', to });
});

// While a move is under review, a swipe across the board steps: right to left forward, left to
// right back (a tap or a drag of a piece is not a review swipe: moves are off in review).
let swipe = null;
document.addEventListener('pointerdown', (event) => {
  swipe = store.state.screen === 'game' && store.state.ui.review && event.target instanceof Element && event.target.closest('#board')
    ? { x: event.clientX, y: event.clientY } : null;
});
document.addEventListener('pointerup', (event) => {
  if (!swipe) return;
  const dx = event.clientX - swipe.x;
  const dy = event.clientY - swipe.y;
  swipe = null;
  if (Math.abs(dx) > 40 && Math.abs(dx) > 2 * Math.abs(dy)) intent({ type: 'review/step', to: dx < 0 ? 'next' : 'prev' });
});

// The Escape key and the browser/Android back gesture return to the menu.
document.addEventListener('keydown', (event) => {
  if (event.key !== 'Escape' || store.state.screen === 'menu') return;
  if (store.state.screen === 'game') {
    if (store.state.ui.promotion) intent({ type: 'promotion/cancel' });
    else if (store.state.ui.dialog) intent({ type: 'dialog', dialog: null });
    else intent({ type: 'leave' });
  } else if (store.state.screen === 'builder' && store.state.build?.stage === 'handover' && !store.state.build.net) {
    // As the Back button: leaving would throw White's locked army away, so it asks (Escape again: stay).
    intent({ type: 'build/confirm', confirm: store.state.build.confirm ? null : 'discard' });
  } else if (store.state.screen === 'analysis') {
    if (store.state.analysis?.promotion) intent({ type: 'analysis/promotion-cancel' });
    else if (store.state.analysis?.dialog) intent({ type: 'analysis/dialog', dialog: null });
    else intent({ type: 'analysis/closed' });
  } else {
    intent({ type: 'back' });
  }
});
