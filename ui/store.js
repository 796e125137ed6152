// One state object; dispatch(action) runs the pure reducer and re-renders the views.
// The helpers below read the backend's snapshot (legal moves, results); they implement no rules.
import { reduceChaturaji } from './chaturaji-store.js';
import { reduceAnalysis } from './analysis-store.js';
import { newLan, reduceLan } from './lanstate.js';
import { newOnline, reduceNet } from './net.js';

/** Menu entries in the order people see them. `ready` marks a feature that has landed. */
export const MENU = [
  // A newcomer's two starting points come first: learning, and a game against the computer.
  { id: 'learn', ready: true },
  { id: 'computer', ready: true },
  { id: 'classic', ready: true },
  { id: 'custom', ready: true },
  { id: 'lan', ready: true },
  { id: 'online', ready: true },
  { id: 'horde', ready: true },
  { id: 'chaturaji', ready: true },
  { id: 'settings', ready: true },
  { id: 'about', ready: true },
];

/** Time controls offered, as "minutes+increment"; 'none' and 'custom' besides. */
export const TIME_CONTROLS = ['none', '3+2', '5+3', '10+5', '15+10', 'custom'];
export const THEMES = ['wood', 'green', 'slate'];
export const LEVELS = [1, 2, 3, 4, 5, 6, 7, 8];

export const DEFAULT_SETTINGS = {
  theme: 'wood', sounds: true, autoTurn: false, animation: true, timeControl: 'none', confirmResign: true,
  coordinates: true, confirmMove: false, zen: false, pieceSet: 'classic', haptics: true,
};

/** Whether resigning, offering a draw or ending a turn with usable dice asks first (on by default, as lichess). */
export function confirmsActions(settings) {
  return settings.confirmResign !== false;
}

/** @returns the state the app starts in. */
export function initialState(language) {
  return {
    screen: 'menu',
    language,
    versions: { status: 'idle', app: null, engine: null, error: null },
    settings: { ...DEFAULT_SETTINGS },
    start: { continueId: null, levelRatings: null },
    setup: newSetup('chess', 'human', DEFAULT_SETTINGS.timeControl),
    game: null,
    ui: freshUi(),
    history: { status: 'idle', games: [], error: null },
    build: null,
    learn: newLearn(),
    importText: '',
    lan: newLan(),
    online: newOnline(),
    net: null,
    // What this build can do here (device_info): haptics only in the mobile builds.
    device: { mobile: false, haptics: false },
    // A short confirmation next to the control that asked for it: { target, key }.
    flash: null,
    error: null,
  };
}

function newSetup(variant, opponent, timeControl, names = null) {
  return {
    variant, opponent, color: 'white', level: 3, timeControl, customMinutes: 10, customIncrement: 5, hidden: false,
    // Pass-and-play: the players' names (empty: the colour's), prefilled with the last ones used.
    whiteName: (names && names.white) || '', blackName: (names && names.black) || '',
  };
}

/** The names a pass-and-play setup sends the backend (null against the computer, which has none). */
export function namesOf(setup) {
  if (setup.opponent === 'computer') return null;
  return { white: setup.whiteName ?? '', black: setup.blackName ?? '' };
}

/**
 * What a side is called on the game screen: "You" and "Computer · level 3" against the computer;
 * in pass-and-play the name the player gave, else the colour.
 */
export function sideName(game, color, t) {
  if (game.opponent.kind === 'computer') {
    return game.opponent.color === color ? t('game.computer', { level: game.opponent.level }) : t('game.you');
  }
  return namedSide(game.names, color) ?? t(`color.${color}`);
}

/** The name `names` give `color`'s player, or null (none given, or none kept). */
export function namedSide(names, color) {
  const name = names && names[color];
  return typeof name === 'string' && name ? name : null;
}

/** Roles on the builder's palette, cheapest first, with their costs (rules/maharajah.md §2). */
export const PALETTE = [
  ['pawn', 1], ['knight', 3], ['bishop', 3], ['rook', 5], ['archbishop', 6], ['chancellor', 8], ['queen', 9], ['maharajah', 13],
];
/** Pieces the Learn board offers. */
export const LEARN_ROLES = ['maharajah', 'chancellor', 'archbishop', 'queen', 'rook', 'bishop', 'knight', 'king'];

export function newLearn() {
  return { role: 'maharajah', square: 'd4', blockers: [], tool: 'piece', reach: null, page: 'board' };
}

/**
 * The builder for a custom setup: who builds first (against the computer, the person's side;
 * `person` resolves a random colour), and whether the first army is hidden from the second player.
 */
export function newBuild(setup, person = 'white', names = null) {
  const computer = setup.opponent === 'computer';
  return {
    computer,
    // Pass-and-play: the players' names as checked by the backend ({ white, black }, null: none).
    names: computer ? null : names,
    person: computer ? person : null,
    hidden: !computer && Boolean(setup.hidden),
    side: computer ? person : 'white',
    stage: 'build',
    white: null,
    black: null,
    role: null,
    refused: null,
    problems: [],
    saved: [],
    // Ids of the armies White saved during a hidden setup: kept out of Black's list until the reveal.
    secret: [],
    saveName: '',
    renaming: null,
    error: null,
    // The army before the last preset (Random, Orthodox, Clear, Mirror, a saved army): { color, view }.
    undo: null,
    // A question asked before a step that throws work away ('discard': Back on the hand-over).
    confirm: null,
  };
}

/** Whether the builder may show `color`'s pieces now (hidden mode hides White's while Black builds). */
export function visibleArmies(build) {
  if (!build) return [];
  if (build.computer) return [build.side];
  if (build.side === 'black' && build.hidden) return ['black'];
  return ['white', 'black'];
}

/** The saved armies the builder offers now: in hidden pass-and-play, Black is not offered an army
 * White saved during this setup (it would give White's army away). */
export function shownSaved(build) {
  if (!build) return [];
  if (build.side !== 'black' || !build.hidden) return build.saved;
  const secret = new Set(build.secret);
  return build.saved.filter((a) => !secret.has(a.id));
}

/** What a tap on a builder square means for the army `view` with `role` selected. */
export function buildTap(view, role, square) {
  const here = view.pieces.find((p) => p.square === square);
  if (here && here.role === 'king') return { square, role: 'king' };
  if (!role || (here && here.role === role)) return here ? { square, role: null } : null;
  return { square, role };
}

function freshUi() {
  return { selected: null, promotion: null, review: null, flipped: false, dialog: null, pgn: null, savedPath: null, moveText: '', error: null, pending: null, premove: null };
}

/** The setup a menu entry opens. */
export function setupFor(entry, settings) {
  const names = settings.playerNames;
  if (entry === 'horde') return newSetup('horde', 'human', settings.timeControl, names);
  // Against the computer: classic chess or Maharajah, where the computer builds its own army.
  if (entry === 'computer') return { ...newSetup('chess', 'computer', settings.timeControl, names), variants: ['chess', 'maharajah'] };
  if (entry === 'custom') return newSetup('maharajah', 'human', settings.timeControl, names);
  return newSetup('chess', 'human', settings.timeControl, names);
}

/** The backend's time control for a setup, or null for none. */
export function timeControlOf(setup) {
  if (setup.timeControl === 'none') return null;
  const [minutes, increment] = setup.timeControl === 'custom'
    ? [Number(setup.customMinutes), Number(setup.customIncrement)]
    : setup.timeControl.split('+').map(Number);
  if (!(minutes > 0) || !(increment >= 0)) return null;
  return { base_ms: Math.round(minutes * 60000), increment_ms: Math.round(increment * 1000) };
}

/** The backend's opponent for a setup; `random` colour is resolved with `coin` (0 or 1). */
export function opponentOf(setup, coin = 0) {
  if (setup.opponent !== 'computer') return { kind: 'human' };
  const person = setup.color === 'random' ? (coin ? 'black' : 'white') : setup.color;
  return { kind: 'computer', color: person === 'white' ? 'black' : 'white', level: Number(setup.level) };
}

/** Destination squares of the piece on `from`, from the backend's legal moves. */
export function destinations(game, from) {
  if (!game || !from) return [];
  return [...new Set(game.legal.filter((m) => m.startsWith(from)).map((m) => m.slice(2, 4)))];
}

/** Promotion roles (letters) the backend allows for from→to, in its order; empty if none. */
export function promotionLetters(game, from, to) {
  return game.legal.filter((m) => m.length === 5 && m.startsWith(from + to)).map((m) => m[4]);
}

export function pieceOn(board, square) {
  return board.pieces.find((p) => p.square === square) ?? null;
}

/** Whether the person may move the side to move now (not the computer's turn, not over). */
export function canMove(state) {
  const game = state.game;
  if (!game || game.result || state.ui.review) return false;
  if (game.opponent.kind === 'computer' && game.opponent.color === game.board.turn) return false;
  return true;
}

/** The colour the person plays against the computer or a network opponent; null at one board. */
export function personColor(game) {
  if (!game || !game.opponent || (game.opponent.kind !== 'computer' && game.opponent.kind !== 'net')) return null;
  return game.opponent.color === 'white' ? 'black' : 'white';
}

/** Whether a tap now sets up a premove: the opponent (computer or network) is to move. */
export function premoving(state) {
  const game = state.game;
  const side = personColor(game);
  return Boolean(side && !game.result && !state.ui.review && game.board.turn !== side);
}

/** A premove in the opponent's time: pick one of the person's pieces, then any other square. */
function premoveDecision(state, square) {
  const game = state.game;
  if (state.ui.premove) return { kind: 'premove', premove: null };
  const selected = state.ui.selected;
  const piece = pieceOn(game.board, square);
  const mine = piece && piece.color === personColor(game);
  if (selected && selected !== square && !mine) return { kind: 'premove', premove: { from: selected, to: square } };
  if (mine && square !== selected) return { kind: 'select', square };
  // The opponent's pieces are never the person's to move.
  return selected ? { kind: 'deselect' } : { kind: 'none' };
}

/**
 * The premove to play now that it is the person's turn: its UCI (a pawn reaching the last rank
 * becomes the strongest piece offered), or null when it is not legal here (then it is dropped).
 */
export function premoveToPlay(state) {
  const game = state.game;
  const premove = state.ui.premove;
  if (!premove || !game || game.result || game.board.turn !== personColor(game)) return null;
  if (!destinations(game, premove.from).includes(premove.to)) return null;
  const letters = promotionLetters(game, premove.from, premove.to);
  const promotion = letters.length ? (['m', 'q'].find((l) => letters.includes(l)) ?? letters[0]) : '';
  return premove.from + premove.to + promotion;
}

/**
 * What a tap on `square` means: select a piece, move the selected one, open the promotion
 * picker, set up a premove in the opponent's time, or clear the selection.
 */
export function tapDecision(state, square) {
  const game = state.game;
  if (premoving(state)) return premoveDecision(state, square);
  if (!canMove(state)) return { kind: 'none' };
  const selected = state.ui.selected;
  if (selected && selected !== square && destinations(game, selected).includes(square)) {
    return moveDecision(game, selected, square);
  }
  const piece = pieceOn(game.board, square);
  if (piece && piece.color === game.board.turn && square !== selected && destinations(game, square).length) {
    return { kind: 'select', square };
  }
  return { kind: 'deselect' };
}

/** A piece dragged from `from` and dropped on `to`. */
export function dropDecision(state, from, to) {
  if (!canMove(state) || !destinations(state.game, from).includes(to)) return { kind: 'deselect' };
  return moveDecision(state.game, from, to);
}

function moveDecision(game, from, to) {
  const letters = promotionLetters(game, from, to);
  if (letters.length) return { kind: 'promote', from, to, letters };
  return { kind: 'move', uci: from + to };
}

/** Whether the board shows Black at the bottom. */
export function isFlipped(state) {
  const game = state.game;
  let flipped = state.ui.flipped;
  if (game && game.opponent.kind === 'computer' && game.opponent.color === 'white') flipped = !flipped;
  // A network game shows the person's own side at the bottom.
  if (game && game.opponent.kind === 'net' && game.opponent.color === 'white') flipped = !flipped;
  if (game && game.opponent.kind === 'human' && state.settings.autoTurn && game.board.turn === 'black' && !game.result) {
    flipped = !flipped;
  }
  return flipped;
}

/**
 * Where the person is, for the scroll: a new place opens at its top, while a re-render of the
 * same place keeps the scroll. A screen's own pages are places too (Chaturaji's setup and table,
 * each builder stage and side, Learn's pages), so a table started from the bottom of its setup
 * opens with the board in view.
 */
export function placeOf(state) {
  switch (state.screen) {
    case 'chaturaji':
      return `chaturaji:${state.chaturaji?.page ?? ''}`;
    case 'builder':
      return `builder:${state.build?.stage ?? ''}:${state.build?.side ?? ''}`;
    case 'learn':
      return `learn:${state.learn?.page ?? ''}`;
    default:
      return state.screen;
  }
}

/** Which sound a new snapshot deserves after the previous one, or null. */
export function soundFor(previous, next) {
  if (!next) return null;
  if (next.result && !(previous && previous.result)) return 'end';
  if (!previous || previous.id !== next.id || next.history.length <= previous.history.length) return null;
  if (next.board.check) return 'check';
  const taken = (g) => g.captured.white.length + g.captured.black.length;
  return taken(next) > taken(previous) ? 'capture' : 'move';
}

/** "m:ss" (or "h:mm:ss"), tenths under ten seconds. */
export function formatClock(ms) {
  const total = Math.max(0, ms);
  if (total < 10000) return `0:0${(total / 1000).toFixed(1)}`;
  const seconds = Math.floor(total / 1000);
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const sec = String(seconds % 60).padStart(2, '0');
  return h ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${m}:${sec}`;
}

/** Pure: the next state for an action. Unknown actions leave the state as it was. */
export function reduce(state, action) {
  switch (action.type) {
    case 'navigate':
      return { ...state, screen: action.screen, error: null };
    case 'back':
      return { ...state, screen: 'menu', error: null };
    case 'language':
      return { ...state, language: action.language };
    case 'versions/loading':
      return { ...state, versions: { ...state.versions, status: 'loading', error: null } };
    case 'versions/loaded':
      return {
        ...state,
        versions: { status: 'ready', app: action.app, engine: action.engine, error: null },
      };
    case 'versions/failed':
      return { ...state, versions: { ...state.versions, status: 'error', error: action.error } };
    case 'settings/loaded':
      return { ...state, settings: { ...state.settings, ...action.settings } };
    case 'setting':
      return { ...state, settings: { ...state.settings, [action.key]: action.value } };
    case 'device/loaded':
      return { ...state, device: { mobile: Boolean(action.device.mobile), haptics: Boolean(action.device.haptics) } };
    case 'flash':
      return { ...state, flash: action.key ? { target: action.target, key: action.key } : null };
    case 'flash/clear':
      return state.flash && state.flash.target === action.target ? { ...state, flash: null } : state;
    case 'start/loaded':
      return { ...state, start: { continueId: action.continueId ?? null, levelRatings: action.levelRatings ?? state.start.levelRatings ?? null } };
    case 'setup/open':
      return { ...state, screen: 'setup', setup: setupFor(action.entry, state.settings), error: null };
    case 'setup/change':
      return { ...state, setup: { ...state.setup, [action.key]: action.value } };
    case 'game/loaded': {
      const sameGame = state.game && state.game.id === action.game.id;
      // The same position again (a hint found, an aid turned on) keeps the piece in hand.
      const samePosition = sameGame && state.game.fen === action.game.fen;
      const ui = sameGame
        ? {
          ...state.ui,
          selected: samePosition ? state.ui.selected : null,
          promotion: samePosition ? state.ui.promotion : null,
          pending: samePosition ? state.ui.pending : null,
          review: samePosition ? state.ui.review : null,
          error: null,
          dialog: action.game.result && !state.game.result ? 'result' : state.ui.dialog,
        }
        : freshUi();
      return { ...state, screen: 'game', game: action.game, ui, error: null };
    }
    case 'game/closed':
      return { ...state, game: null, ui: freshUi(), screen: 'menu' };
    case 'clock':
      if (!state.game || !state.game.clock || state.game.opponent.kind === 'net') return state;
      return { ...state, game: { ...state.game, clock: action.clock } };
    case 'select':
      return { ...state, ui: { ...state.ui, selected: action.square, error: null } };
    case 'deselect':
      return state.ui.selected || state.ui.error ? { ...state, ui: { ...state.ui, selected: null, error: null } } : state;
    case 'move/pending':
      // "Confirm moves" is on: the move waits on the board for a second tap.
      return { ...state, ui: { ...state.ui, pending: action.uci, selected: null, promotion: null } };
    case 'premove':
      return { ...state, ui: { ...state.ui, premove: action.premove, selected: null } };
    case 'move/cancel':
      return { ...state, ui: { ...state.ui, pending: null } };
    case 'promotion/open':
      return { ...state, ui: { ...state.ui, promotion: { from: action.from, to: action.to, letters: action.letters } } };
    case 'promotion/cancel':
      return { ...state, ui: { ...state.ui, promotion: null, selected: null } };
    case 'flip':
      return { ...state, ui: { ...state.ui, flipped: !state.ui.flipped } };
    case 'review/loaded':
      return { ...state, ui: { ...state.ui, review: action.board, selected: null } };
    case 'review/live':
      return { ...state, ui: { ...state.ui, review: null } };
    case 'dialog':
      return { ...state, ui: { ...state.ui, dialog: action.dialog } };
    case 'pgn/loaded':
      return { ...state, ui: { ...state.ui, pgn: action.pgn, savedPath: null, dialog: 'export' } };
    case 'pgn/saved':
      return { ...state, ui: { ...state.ui, savedPath: action.path } };
    case 'move/text':
      return { ...state, ui: { ...state.ui, moveText: action.text } };
    case 'game/error':
      return { ...state, ui: { ...state.ui, error: action.error, selected: null, promotion: null } };
    case 'history/loading':
      return { ...state, history: { ...state.history, status: 'loading', error: null } };
    case 'history/loaded':
      return { ...state, history: { status: 'ready', games: action.games, error: null } };
    case 'history/failed':
      return { ...state, history: { ...state.history, status: 'error', error: action.error } };
    case 'import/text':
      return { ...state, importText: action.text };
    case 'error':
      return { ...state, error: action.error };
    case 'build/begin':
      return { ...state, screen: 'builder', build: newBuild(state.setup, action.person, action.names ?? null), error: null };
    case 'build/army': {
      if (!state.build) return state;
      const view = action.view;
      // A preset replaces the whole army: the one before it can be restored (build/undo); any
      // other change starts from the new army, so the undo goes.
      const before = state.build[view.color];
      const undo = action.undoable && before ? { color: view.color, view: before } : null;
      return { ...state, build: { ...state.build, [view.color]: view, refused: view.refused ?? null, problems: [], error: null, undo } };
    }
    case 'build/undo': {
      const undo = state.build && state.build.undo;
      if (!undo) return state;
      return { ...state, build: { ...state.build, [undo.color]: { ...undo.view, refused: null }, refused: null, problems: [], error: null, undo: null } };
    }
    case 'build/confirm':
      if (!state.build) return state;
      return { ...state, build: { ...state.build, confirm: action.confirm } };
    case 'build/role':
      if (!state.build) return state;
      return { ...state, build: { ...state.build, role: state.build.role === action.role ? null : action.role, refused: null } };
    case 'build/stage':
      if (!state.build) return state;
      return { ...state, build: { ...state.build, stage: action.stage, side: action.side ?? state.build.side, role: null, refused: null, problems: [], undo: null, confirm: null } };
    case 'build/problems':
      if (!state.build) return state;
      return { ...state, build: { ...state.build, problems: action.problems } };
    case 'build/saved': {
      if (!state.build) return state;
      const build = state.build;
      const known = new Set(build.saved.map((a) => a.id));
      const secret = action.saving && build.hidden && build.side === 'white'
        ? [...build.secret, ...action.saved.filter((a) => !known.has(a.id)).map((a) => a.id)]
        : build.secret;
      return { ...state, build: { ...build, saved: action.saved, secret, renaming: null } };
    }
    case 'build/name':
      if (!state.build) return state;
      return { ...state, build: { ...state.build, saveName: action.text } };
    case 'build/renaming':
      if (!state.build) return state;
      return { ...state, build: { ...state.build, renaming: action.renaming } };
    case 'build/error':
      if (!state.build) return state;
      return { ...state, build: { ...state.build, error: action.error } };
    case 'learn/open':
      return { ...state, screen: 'learn', learn: { ...state.learn, page: action.page ?? 'board' }, error: null };
    case 'learn/role':
      return { ...state, learn: { ...state.learn, role: action.role } };
    case 'learn/tool':
      return { ...state, learn: { ...state.learn, tool: action.tool } };
    case 'learn/square': {
      const learn = state.learn;
      const sq = action.square;
      if (learn.tool === 'piece' || sq === learn.square) {
        return { ...state, learn: { ...learn, square: sq, blockers: learn.blockers.filter((b) => b !== sq) } };
      }
      const blockers = learn.blockers.includes(sq) ? learn.blockers.filter((b) => b !== sq) : [...learn.blockers, sq];
      return { ...state, learn: { ...learn, blockers } };
    }
    case 'learn/clear':
      return { ...state, learn: { ...state.learn, blockers: [] } };
    case 'learn/reach':
      return { ...state, learn: { ...state.learn, reach: action.reach } };
    default:
      if (action.type.startsWith('chaturaji/')) return reduceChaturaji(state, action);
      if (action.type.startsWith('analysis/')) return reduceAnalysis(state, action);
      if (action.type.startsWith('lan/')) return { ...state, lan: reduceLan(state.lan, action) };
      if (action.type.startsWith('net/') || action.type.startsWith('online/') || action.type.startsWith('lobby/')) return reduceNet(state, action);
      return state;
  }
}

/** A tiny store: holds the state, runs the reducer, tells listeners (state, action). */
export function createStore(state) {
  const listeners = new Set();
  return {
    get state() {
      return state;
    },
    dispatch(action) {
      const next = reduce(state, action);
      if (next !== state) {
        state = next;
        listeners.forEach((listener) => listener(state, action));
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/**
 * Move-number labels for a move list, read from the current FEN and the number of moves played:
 * the first ply may be Black's (an imported position), so numbering follows the real move
 * numbers. Returns one label per ply: "12." before White's move, "12…" before a Black move that
 * opens the list, null otherwise.
 */
export function plyLabels(fen, count) {
  const fields = String(fen || '').trim().split(/\s+/);
  const fullmove = Number.parseInt(fields[5], 10);
  const current = (Number.isFinite(fullmove) && fullmove > 0 ? fullmove - 1 : 0) * 2 + (fields[1] === 'b' ? 1 : 0);
  const start = Math.max(0, current - count);
  const labels = [];
  for (let i = 0; i < count; i += 1) {
    const ply = start + i;
    const number = Math.floor(ply / 2) + 1;
    if (ply % 2 === 0) labels.push(`${number}.`);
    else labels.push(i === 0 ? `${number}…` : null);
  }
  return labels;
}

/** The result spoken to the person: "You won" / "You lost" against the computer, "Ana wins"
 * between two people at one board who gave their names ("White wins" when they did not), "Draw". */
export function resultHeadline(result, person, t, names = null) {
  if (!result.winner) return t('result.draw');
  if (person) return t(result.winner === person ? 'result.you.won' : 'result.you.lost');
  const name = namedSide(names, result.winner);
  if (name) return t('result.named.wins', { name });
  return t('result.wins', { color: t(`color.${result.winner}`) });
}

/** The ply a move-list step goes to: 'first' (the start), 'prev', 'next', 'last' (the live game).
 * `shown` is the ply on the board now (null when live). */
export function stepPly(count, shown, to) {
  const at = shown ?? count;
  if (to === 'first') return 0;
  if (to === 'prev') return Math.max(0, at - 1);
  if (to === 'next') return Math.min(count, at + 1);
  return count;
}

/**
 * What a screen reader should hear after a change on the game screen: the last move with the
 * side that played it, or the result. Empty elsewhere. `t` is the catalogue lookup.
 */
export function announcement(state, t) {
  const game = state.screen === 'game' || state.screen === 'netgame' ? state.game : null;
  if (!game) return '';
  if (game.result) {
    let title = resultHeadline(game.result, state.screen === 'game' ? personColor(game) : null, t, game.names);
    // A network game can end with no result at all.
    if (game.result.outcome === 'annulled') title = t('net.result.annulled');
    return `${title}, ${t(`reason.${game.result.reason}`)}`;
  }
  const count = game.history ? game.history.length : 0;
  if (count === 0) return '';
  const toMove = String(game.fen || '').trim().split(/\s+/)[1] === 'b' ? 'black' : 'white';
  const mover = toMove === 'white' ? 'black' : 'white';
  return t('announce.move', { color: namedSide(game.names, mover) ?? t(`color.${mover}`), san: game.history[count - 1] });
}
