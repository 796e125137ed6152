// Saved games: the history list (tap to continue or look again) and importing a PGN or FEN.
import { h, screen } from './dom.js';
import { errorText } from './errors.js';
import { namedSide, resultHeadline } from '../store.js';

function when(unix, language) {
  try {
    return new Date(unix * 1000).toLocaleString(language, { dateStyle: 'medium', timeStyle: 'short' });
  } catch {
    return new Date(unix * 1000).toISOString();
  }
}

export function renderHistory(state, { t, intent }) {
  const { status, games, error } = state.history;
  let list;
  if (status === 'error') list = h('p', { class: 'error', role: 'alert' }, errorText(error, t));
  else if (status !== 'ready') list = h('p', { class: 'muted' }, t('history.loading'));
  else if (!games.length) list = h('p', { class: 'muted', id: 'history-empty' }, t('history.empty'));
  else {
    list = h('ul', { class: 'history', id: 'history-list' }, games.map((g) => {
      const named = g.opponent.kind === 'human' && (namedSide(g.names, 'white') || namedSide(g.names, 'black'));
      const player = (color) => namedSide(g.names, color) ?? t(`color.${color}`);
      let opponent = t('history.passAndPlay');
      if (g.opponent.kind === 'computer') opponent = t('history.vsComputer', { level: g.opponent.level });
      else if (named) opponent = t('history.players', { white: player('white'), black: player('black') });
      const result = g.result
        ? `${resultHeadline(g.result, null, t, g.opponent.kind === 'human' ? g.names : null)} · ${t(`reason.${g.result.reason}`)}`
        : t('history.unfinished');
      return h('li', { class: 'history-row' },
        h('button', { type: 'button', class: 'history-item', 'data-game': g.id, onclick: () => intent({ type: 'open-game', id: g.id }) },
          h('span', { class: 'menu-title' }, `${t(`variant.${g.variant}`)} · ${opponent}`),
          h('span', { class: 'menu-hint' }, `${result} · ${t('history.plies', { count: g.plies })} · ${when(g.updated_at, state.language)}`)),
        h('button', { type: 'button', class: 'chip history-analyse', 'data-analyse': g.id, onclick: () => intent({ type: 'analysis/open', source: { kind: 'saved', id: g.id } }) }, t('analysis.open')));
    }));
  }
  return screen('history', t('history.title'), t('nav.back'), () => intent({ type: 'back' }),
    list,
    h('form', { class: 'import', id: 'import-form', onsubmit: (e) => { e.preventDefault(); intent({ type: 'import' }); } },
      h('label', { for: 'import-text' }, h('h2', {}, t('import.title'))),
      h('p', { class: 'muted' }, t('import.hint')),
      h('textarea', { id: 'import-text', rows: 5, spellcheck: 'false', oninput: (e) => intent({ type: 'import/text', text: e.target.value }) }, state.importText),
      state.error ? h('p', { class: 'error', id: 'import-error', role: 'alert' }, errorText(state.error, t)) : null,
      h('button', { type: 'submit', class: 'action accent', id: 'import-submit' }, t('import.submit'))));
}
