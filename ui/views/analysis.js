// The analysis board: evaluation bar, the board with the best move's arrow, the engine's lines,
// the move tree with variations, the review (progress, graph, marks, accuracy), export and
// import. Renders state.analysis; every tap is an analysis/* intent.
import { h, s, screen } from './dom.js';
import { moveArrow, renderBoard } from './board.js';
import { pieceIcon, ROLE_BY_LETTER } from '../pieces.js';
import { barPercent, currentMove, graphPoints, scoreText, treeTokens } from '../analysis-store.js';
import { errorText } from './errors.js';
import { flashLine, shareLabel } from './flash.js';

/** An arrow for the engine's best move. */
function bestArrow(best, flipped) {
  return moveArrow(best, flipped, { class: 'best-arrow', id: 'best-arrow', 'data-move': best });
}

function board(state, ctx) {
  const a = state.analysis;
  const view = a.view;
  // The shared board reads a game snapshot and the game screen's UI state; the analysis board
  // hands it its own, and turns its taps into analysis intents.
  const boardState = {
    ...state,
    game: { id: 'analysis', board: view.board, legal: view.legal, opponent: { kind: 'human' }, result: null },
    ui: { selected: a.selected, review: null, flipped: a.flipped, promotion: a.promotion, dialog: a.dialog },
    settings: { ...state.settings, autoTurn: false },
  };
  const names = { square: 'analysis/square', drop: 'analysis/drop', select: 'analysis/select' };
  const intent = (action) => ctx.intent({ ...action, type: names[action.type] ?? action.type });
  const svg = renderBoard(boardState, { ...ctx, intent });
  const best = a.engine?.best;
  if (best) svg.append(bestArrow(best, a.flipped));
  return svg;
}

function evalBar(state, t) {
  const evaluation = state.analysis.engine?.eval ?? null;
  const white = barPercent(evaluation);
  const top = state.analysis.flipped ? 'white' : 'black';
  return h('div', {
    class: `eval-bar${state.analysis.flipped ? ' flipped' : ''}`, id: 'eval-bar', role: 'meter',
    'aria-label': t('analysis.evaluation'), 'aria-valuemin': 0, 'aria-valuemax': 100, 'aria-valuenow': Math.round(white),
    'aria-valuetext': scoreText(evaluation) || t('analysis.noEval'),
  },
  h('div', { class: `eval-fill ${top === 'black' ? 'white-bottom' : 'white-top'}`, style: `height: ${white}%` }),
  h('span', { class: 'eval-text', id: 'eval-text' }, scoreText(evaluation)));
}

function navigation(state, { t, intent }) {
  const view = state.analysis.view;
  const btn = (id, label, action, disabled, aria) => h('button', {
    type: 'button', class: 'action nav', id, disabled, 'aria-label': aria ?? label, onclick: () => intent(action),
  }, label);
  return h('div', { class: 'actions analysis-nav', role: 'toolbar', 'aria-label': t('analysis.navigate') },
    btn('an-first', '◀◀', { type: 'analysis/step', to: 'first' }, view.at_start, t('analysis.first')),
    btn('an-back', '◀', { type: 'analysis/step', to: 'back' }, view.at_start, t('analysis.back')),
    btn('an-forward', '▶', { type: 'analysis/step', to: 'forward' }, view.at_end, t('analysis.forward')),
    btn('an-last', '▶▶', { type: 'analysis/step', to: 'last' }, view.at_end, t('analysis.last')),
    btn('an-flip', t('game.flip'), { type: 'analysis/flip' }, false));
}

function enginePanel(state, { t, intent }) {
  const a = state.analysis;
  const engine = a.engine;
  const view = a.view;
  let body;
  if (view.result) body = h('p', { class: 'muted', id: 'engine-over' }, t('analysis.over'));
  else if (view.review?.running) body = h('p', { class: 'muted', id: 'engine-resting' }, t('analysis.resting'));
  else if (!engine || !engine.lines.length) body = h('p', { class: 'muted', id: 'engine-wait' }, h('span', { class: 'spinner', 'aria-hidden': 'true' }), t('analysis.thinking'));
  else {
    body = h('ol', { class: 'engine-lines', id: 'engine-lines' }, engine.lines.map((line, i) =>
      h('li', { class: 'engine-line', 'data-line': i },
        h('span', { class: 'score' }, scoreText(line.eval)),
        h('span', { class: 'pv' }, line.san.join(' ')))));
  }
  return h('section', { class: 'engine-panel', id: 'engine-panel', 'aria-label': t('analysis.engine') },
    h('div', { class: 'moves-head' },
      h('h2', {}, t('analysis.engine')),
      engine ? h('span', { class: 'muted', id: 'engine-depth' }, t('analysis.depth', { depth: engine.depth })) : null,
      h('div', { class: 'chips', role: 'group', 'aria-label': t('analysis.lines') }, [1, 2, 3].map((n) =>
        h('button', {
          type: 'button', class: `chip${view.lines === n ? ' accent' : ''}`, id: `lines-${n}`, 'aria-pressed': String(view.lines === n),
          onclick: () => intent({ type: 'analysis/lines', lines: n }),
        }, String(n))))),
    body);
}

function moveTree(state, { t, intent }) {
  const view = state.analysis.view;
  const parts = [];
  for (const token of treeTokens(view.moves)) {
    if (token.kind === 'open') parts.push(h('span', { class: 'paren' }, '('));
    else if (token.kind === 'close') parts.push(h('span', { class: 'paren' }, ')'));
    else {
      const m = token.move;
      parts.push(h('button', {
        type: 'button', class: `san${m.main ? ' main' : ' variation'}${m.current ? ' current' : ''}${m.judgement ? ` ${m.judgement}` : ''}`,
        'data-node': m.id, 'data-san': m.san, 'aria-current': m.current ? 'step' : null,
        onclick: () => intent({ type: 'analysis/go', node: m.id }),
      }, token.number ? h('span', { class: 'num' }, token.number) : null, m.san,
      m.glyphs.length ? h('span', { class: 'glyph' }, m.glyphs.join('')) : null));
    }
  }
  const current = currentMove(view);
  return h('section', { class: 'moves-panel', 'aria-label': t('game.moves') },
    h('div', { class: 'moves-head' },
      h('h2', {}, t('game.moves')),
      view.on_main_line ? null : h('button', { type: 'button', class: 'chip accent', id: 'an-main', onclick: () => intent({ type: 'analysis/step', to: 'main' }) }, t('analysis.mainLine'))),
    view.intro.length ? h('p', { class: 'muted comment' }, view.intro.join(' ')) : null,
    view.moves.length ? h('div', { class: 'tree', id: 'tree' }, parts) : h('p', { class: 'muted' }, t('game.noMoves')),
    current ? verdict(current, t) : null,
    current && !current.main
      ? h('div', { class: 'actions' },
        h('button', { type: 'button', class: 'action', id: 'an-promote', onclick: () => intent({ type: 'analysis/promote-line', node: current.id }) }, t('analysis.promote')),
        h('button', { type: 'button', class: 'action danger', id: 'an-delete', onclick: () => intent({ type: 'analysis/delete', node: current.id }) }, t('analysis.delete')))
      : null);
}

function verdict(move, t) {
  const lines = [];
  if (move.judgement) {
    lines.push(h('p', { class: `verdict ${move.judgement}`, id: 'verdict' },
      `${move.san}${move.glyphs.join('')} — ${t(`analysis.judgement.${move.judgement}`)}`,
      move.better ? h('span', { class: 'better', id: 'better-move' }, ` ${t('analysis.better', { san: move.better })}`) : null));
  }
  if (move.comments.length) lines.push(h('p', { class: 'muted comment', id: 'comment' }, move.comments.join(' ')));
  return lines.length ? h('div', { class: 'verdicts' }, lines) : null;
}

function graph(view, { t, intent }) {
  const width = 300;
  const points = graphPoints(view.review, width);
  if (!points.length) return null;
  const current = view.review.graph.find((p) => p.node === view.node);
  const last = Math.max(1, view.review.graph.length - 1);
  const area = `0,100 ${points.map((p) => `${p.x},${p.y}`).join(' ')} ${points[points.length - 1].x},100`;
  return s('svg', { viewBox: `0 0 ${width} 100`, class: 'eval-graph', id: 'eval-graph', role: 'group', 'aria-label': t('analysis.graph'), preserveAspectRatio: 'none' },
    s('rect', { x: 0, y: 0, width, height: 100, class: 'graph-bg' }),
    s('polygon', { points: area, class: 'graph-white' }),
    s('line', { x1: 0, y1: 50, x2: width, y2: 50, class: 'graph-mid' }),
    current ? s('line', { x1: (current.ply / last) * width, y1: 0, x2: (current.ply / last) * width, y2: 100, class: 'graph-now' }) : null,
    view.review.graph.map((p) => {
      // Each position's strip of the graph, clipped to the graph.
      const x0 = Math.max(0, ((p.ply - 0.5) / last) * width);
      const x1 = Math.min(width, ((p.ply + 0.5) / last) * width);
      return s('rect', {
        x: x0, y: 0, width: x1 - x0, height: 100, class: 'graph-hit', 'data-ply': p.ply,
        onclick: () => intent({ type: 'analysis/go', node: p.node }),
      });
    }));
}

function side(summary, color, t) {
  const accuracy = summary.accuracy === null || summary.accuracy === undefined ? '—' : `${Math.round(summary.accuracy)}%`;
  return h('div', { class: 'accuracy', id: `accuracy-${color}` },
    h('span', { class: `swatch ${color}`, 'aria-hidden': 'true' }),
    h('span', {}, t('analysis.accuracy', { color: t(`color.${color}`), accuracy })),
    h('span', { class: 'muted' }, t('analysis.counts', { inaccuracies: summary.inaccuracies, mistakes: summary.mistakes, blunders: summary.blunders })));
}

function reviewPanel(state, ctx) {
  const { t, intent } = ctx;
  const view = state.analysis.view;
  const review = view.review;
  const running = Boolean(review?.running);
  const complete = Boolean(review?.complete);
  return h('section', { class: 'review-panel', id: 'review-panel', 'aria-label': t('analysis.review') },
    h('div', { class: 'moves-head' },
      h('h2', {}, t('analysis.review')),
      running
        ? h('button', { type: 'button', class: 'chip', id: 'review-cancel', onclick: () => intent({ type: 'analysis/stop-review' }) }, t('dialog.cancel'))
        : complete ? null : h('button', {
          type: 'button', class: 'chip accent', id: 'review-start', disabled: view.moves.length === 0,
          onclick: () => intent({ type: 'analysis/review' }),
        }, review && review.done > 0 ? t('analysis.resume') : t('analysis.reviewStart'))),
    review && !complete
      ? h('div', { class: 'review-progress' },
        h('progress', { id: 'review-progress', max: review.total, value: review.done, 'aria-label': t('analysis.progress', { done: review.done, total: review.total }) }),
        h('span', { class: 'muted', id: 'review-count', role: running ? 'status' : null }, t('analysis.progress', { done: review.done, total: review.total })))
      : null,
    review ? graph(view, ctx) : null,
    review && (complete || review.done > 0)
      ? h('div', { class: 'accuracies' }, side(review.white, 'white', t), side(review.black, 'black', t))
      : null);
}

function promotionDialog(state, { t, intent }) {
  const { letters, from, to } = state.analysis.promotion;
  const color = state.analysis.view.board.turn;
  return dialog('an-promotion', t('promotion.title'),
    h('div', { class: 'promotion-choices' }, letters.map((letter) => {
      const role = ROLE_BY_LETTER[letter];
      return h('button', {
        type: 'button', class: 'promo', 'data-role': role, 'aria-label': t(`piece.${color}.${role}`),
        onclick: () => intent({ type: 'analysis/play', uci: `${from}${to}${letter}` }),
      }, pieceIcon(color, role, 56), h('span', {}, t(`role.${role}`)));
    })),
    h('button', { type: 'button', class: 'action', onclick: () => intent({ type: 'analysis/promotion-cancel' }) }, t('dialog.cancel')));
}

function dialog(id, title, ...body) {
  return h('div', { class: 'overlay' },
    h('div', { class: 'dialog', id, role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': `${id}-title` },
      h('h2', { id: `${id}-title` }, title), ...body));
}

function exportDialog(state, { t, intent }) {
  return dialog('an-export', t('analysis.export'),
    h('textarea', { id: 'analysis-pgn', readonly: true, rows: 10, 'aria-label': t('analysis.export') }, state.analysis.pgn ?? ''),
    state.analysis.savedPath ? h('p', { class: 'muted', id: 'analysis-saved-path' }, t('export.saved', { path: state.analysis.savedPath })) : null,
    state.analysis.error ? h('p', { class: 'error', id: 'analysis-save-error', role: 'alert' }, errorText(state.analysis.error, t)) : null,
    flashLine(state, 'analysis-copy', t),
    h('div', { class: 'dialog-actions' },
      h('button', { type: 'button', class: 'action accent', id: 'analysis-copy', onclick: () => intent({ type: 'analysis/copy' }) }, shareLabel(t, 'export.copy')),
      h('button', { type: 'button', class: 'action', id: 'analysis-save', onclick: () => intent({ type: 'analysis/save' }) }, t('export.save')),
      h('button', { type: 'button', class: 'action', id: 'analysis-export-close', onclick: () => intent({ type: 'analysis/dialog', dialog: null }) }, t('dialog.close'))));
}

function importForm(state, { t, intent }, id) {
  const a = state.analysis;
  return h('form', { class: 'import', id, onsubmit: (e) => { e.preventDefault(); intent({ type: 'analysis/import' }); } },
    h('label', { for: `${id}-text` }, t('analysis.importHint')),
    h('textarea', { id: `${id}-text`, class: 'analysis-import-text', rows: 6, spellcheck: 'false', oninput: (e) => intent({ type: 'analysis/import-text', text: e.target.value }) }, a.importText),
    a.error ? h('p', { class: 'error', id: 'analysis-import-error', role: 'alert' }, errorText(a.error, t)) : null,
    h('button', { type: 'submit', class: 'action accent', id: `${id}-submit` }, t('analysis.importSubmit')));
}

/** With no board open: paste a game or a position, or start from a variant's start. */
function startPage(state, ctx) {
  const { t, intent } = ctx;
  return screen('analysis', t('analysis.title'), t('nav.menu'), () => intent({ type: 'analysis/closed' }),
    importForm(state, ctx, 'analysis-import'),
    h('div', { class: 'actions' }, ['chess', 'maharajah', 'horde'].map((variant) =>
      h('button', { type: 'button', class: 'action', id: `analysis-start-${variant}`, onclick: () => intent({ type: 'analysis/open', source: { kind: 'start', variant } }) },
        t('analysis.startOf', { variant: t(`variant.${variant}`) })))));
}

/**
 * Updates the engine's parts in place (the bar, the lines, the arrow) when only the engine's word
 * changed: the board's squares stay the same nodes, so a tap in progress is never lost to a
 * re-render while the engine deepens.
 */
export function patchAnalysisEngine(root, state, ctx) {
  const a = state.analysis;
  if (!a?.view) return;
  root.querySelector('#eval-bar')?.replaceWith(evalBar(state, ctx.t));
  root.querySelector('#engine-panel')?.replaceWith(enginePanel(state, ctx));
  const svg = root.querySelector('#board');
  svg?.querySelector('#best-arrow')?.remove();
  if (svg && a.engine?.best) svg.append(bestArrow(a.engine.best, a.flipped));
}

/** Updates the review panel in place while a review runs (its progress pushes), for the same reason. */
export function patchAnalysisReview(root, state, ctx) {
  if (state.analysis?.view) root.querySelector('#review-panel')?.replaceWith(reviewPanel(state, ctx));
}

export function renderAnalysis(state, ctx) {
  const { t, intent } = ctx;
  const a = state.analysis;
  if (!a?.view) return startPage(state, ctx);
  const view = a.view;
  const status = view.result
    ? h('p', { class: 'status over', id: 'status' }, view.result.winner ? t('result.wins', { color: t(`color.${view.result.winner}`) }) : t('result.draw'))
    : h('p', { class: 'status', id: 'status' }, t('game.toMove', { color: t(`color.${view.board.turn}`) }), view.board.check ? ` — ${t('game.check')}` : '');
  const body = screen('analysis', t('analysis.title'), t('nav.menu'), () => intent({ type: 'analysis/closed' }),
    h('div', { class: 'game-layout' },
      h('div', { class: 'board-column' },
        h('div', { class: 'analysis-board' }, evalBar(state, t), h('div', { class: 'board-frame' }, board(state, ctx))),
        navigation(state, ctx),
        status,
        view.statuses
          ? h('p', { class: 'muted sides' }, t('game.statuses', { white: t(`army.status.${view.statuses.white}`), black: t(`army.status.${view.statuses.black}`) }))
          : null,
        a.error && a.dialog !== 'import' ? h('p', { class: 'error', id: 'analysis-error', role: 'alert' }, errorText(a.error, t)) : null),
      h('div', { class: 'side-column' },
        enginePanel(state, ctx),
        reviewPanel(state, ctx),
        moveTree(state, ctx),
        h('div', { class: 'actions' },
          h('button', { type: 'button', class: 'action', id: 'analysis-export', onclick: () => intent({ type: 'analysis/export' }) }, t('analysis.export')),
          h('button', { type: 'button', class: 'action', id: 'analysis-import-open', onclick: () => intent({ type: 'analysis/dialog', dialog: 'import' }) }, t('analysis.import'))))));
  body.classList.add('game-screen', 'analysis-screen');
  if (a.promotion) body.append(promotionDialog(state, ctx));
  else if (a.dialog === 'export') body.append(exportDialog(state, ctx));
  else if (a.dialog === 'import') {
    body.append(dialog('an-import', t('analysis.import'), importForm(state, ctx, 'analysis-reimport'),
      h('button', { type: 'button', class: 'action', id: 'analysis-import-close', onclick: () => intent({ type: 'analysis/dialog', dialog: null }) }, t('dialog.close'))));
  }
  return body;
}
