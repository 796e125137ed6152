// The analysis board's part of the state (state.analysis): the backend's board view, the
// engine's latest word on its node, the selection and the dialogs. Pure; the tree, the engine
// and the review live in the backend — these helpers only read its snapshot.

/** The analysis state before any board is open. */
export function freshAnalysis(previous = null) {
  return {
    view: null,
    engine: null,
    // Engine news for a node the UI is not on yet (it may beat the answer that moves there).
    early: null,
    selected: null,
    promotion: null,
    dialog: null,
    pgn: null,
    savedPath: null,
    importText: previous?.importText ?? '',
    error: null,
    flipped: previous?.flipped ?? false,
  };
}

/** Destination squares of the piece on `from`, from the view's legal moves. */
export function analysisDestinations(view, from) {
  if (!view || !from) return [];
  return [...new Set(view.legal.filter((m) => m.startsWith(from)).map((m) => m.slice(2, 4)))];
}

function moveOrPromote(view, from, to) {
  const letters = view.legal.filter((m) => m.length === 5 && m.startsWith(from + to)).map((m) => m[4]);
  if (letters.length) return { kind: 'promote', from, to, letters };
  return { kind: 'move', uci: from + to };
}

/** What a tap on `square` means on the analysis board: either side may move (any move makes a line). */
export function analysisTap(analysis, square) {
  const view = analysis?.view;
  if (!view) return { kind: 'none' };
  const selected = analysis.selected;
  if (selected && selected !== square && analysisDestinations(view, selected).includes(square)) {
    return moveOrPromote(view, selected, square);
  }
  const piece = view.board.pieces.find((p) => p.square === square);
  if (piece && piece.color === view.board.turn && square !== selected && analysisDestinations(view, square).length) {
    return { kind: 'select', square };
  }
  return { kind: 'deselect' };
}

/** A piece dragged from `from` to `to`. */
export function analysisDrop(analysis, from, to) {
  const view = analysis?.view;
  if (!view || !analysisDestinations(view, from).includes(to)) return { kind: 'deselect' };
  return moveOrPromote(view, from, to);
}

/** The engine's word for the view's node: the pushed one if it belongs to the node, else the view's own. */
/** The engine's word for `view`'s node: the newest of what was shown, what came early (before
 * the answer that moved there) and what the answer carries; the deepest wins. */
function engineFor(view, ...candidates) {
  const fitting = [...candidates, view.engine].filter((e) => e && e.generation === view.generation);
  return fitting.reduce((best, e) => (!best || e.depth > best.depth || (e.depth === best.depth && e.finished) ? e : best), null);
}

/** White's share of the evaluation bar, 0–100 (50 when nothing is known). */
export function barPercent(evaluation) {
  if (!evaluation) return 50;
  return Math.max(0, Math.min(100, evaluation.white_win));
}

/** The score as people read it: +0.35, −1.20, #3, #−2 (White's view). */
export function scoreText(evaluation) {
  if (!evaluation) return '';
  if (evaluation.mate !== null && evaluation.mate !== undefined) {
    return evaluation.mate < 0 ? `#−${-evaluation.mate}` : `#${evaluation.mate}`;
  }
  const pawns = evaluation.cp / 100;
  return `${pawns > 0 ? '+' : pawns < 0 ? '−' : ''}${Math.abs(pawns).toFixed(2)}`;
}

/**
 * The evaluation graph as SVG coordinates (width × 100): one point per evaluated main-line
 * position, x by ply, y from White's winning chances (White up is high).
 */
export function graphPoints(review, width = 300) {
  if (!review || !review.graph.length) return [];
  const last = Math.max(1, review.graph.length - 1);
  return review.graph
    .filter((p) => p.white_win !== null && p.white_win !== undefined)
    .map((p) => ({ x: (p.ply / last) * width, y: 100 - p.white_win, node: p.node, ply: p.ply }));
}

/** The move list as tokens: '(' and ')' around variations, a number before White's moves and line starts. */
export function treeTokens(moves) {
  const tokens = [];
  let fresh = true;
  for (const m of moves) {
    if (m.opens) {
      tokens.push({ kind: 'open', depth: m.depth });
      fresh = true;
    }
    const number = m.color === 'white' ? `${m.number}.` : fresh ? `${m.number}…` : null;
    tokens.push({ kind: 'move', move: m, number });
    fresh = false;
    for (let i = 0; i < m.closes; i += 1) {
      tokens.push({ kind: 'close' });
      fresh = true;
    }
  }
  return tokens;
}

/** The move at the cursor, if any (not at the start). */
export function currentMove(view) {
  return view?.moves.find((m) => m.current) ?? null;
}

function patch(state, change) {
  return { ...state, analysis: { ...(state.analysis ?? freshAnalysis()), ...change } };
}

/** Pure: the analysis part of the next state for an analysis/* action. */
export function reduceAnalysis(state, action) {
  const analysis = state.analysis ?? freshAnalysis();
  switch (action.type) {
    case 'analysis/loaded': {
      const previous = analysis.view;
      if (previous && action.view.revision < previous.revision) return state;
      const sameNode = previous && previous.generation === action.view.generation;
      const engine = engineFor(action.view, analysis.engine, analysis.early);
      const next = {
        ...analysis,
        view: action.view,
        engine,
        early: analysis.early && analysis.early.generation > action.view.generation ? analysis.early : null,
        error: null,
        selected: sameNode ? analysis.selected : null,
        promotion: sameNode ? analysis.promotion : null,
      };
      return { ...state, analysis: next, screen: action.pushed ? state.screen : 'analysis' };
    }
    case 'analysis/engine':
      if (!analysis.view) return state;
      if (action.engine.generation !== analysis.view.generation) {
        // The engine can answer a new node before the command that moved there does (a mate in
        // one is found at once, and nothing more comes): kept until that answer arrives.
        return action.engine.generation > analysis.view.generation ? patch(state, { early: action.engine }) : state;
      }
      return patch(state, { engine: action.engine });
    case 'analysis/select':
      return patch(state, { selected: action.square });
    case 'analysis/deselect':
      return patch(state, { selected: null });
    case 'analysis/promotion':
      return patch(state, { promotion: { from: action.from, to: action.to, letters: action.letters } });
    case 'analysis/promotion-cancel':
      return patch(state, { promotion: null, selected: null });
    case 'analysis/flip':
      return patch(state, { flipped: !analysis.flipped });
    case 'analysis/dialog':
      return patch(state, { dialog: action.dialog, error: null });
    case 'analysis/pgn':
      return patch(state, { pgn: action.pgn, savedPath: null, dialog: 'export' });
    case 'analysis/saved':
      return patch(state, { savedPath: action.path, error: null });
    case 'analysis/import-text':
      return patch(state, { importText: action.text });
    case 'analysis/error':
      return patch(state, { error: action.error });
    case 'analysis/menu':
      return { ...state, screen: 'analysis', analysis: { ...freshAnalysis(analysis), dialog: null } };
    case 'analysis/closed':
      return { ...state, screen: action.screen ?? 'menu', analysis: freshAnalysis(analysis) };
    default:
      return state;
  }
}
