// Learn Maharajah: a board where a piece shows every square it reaches (slides and leaps apart,
// computed by the engine), short rules pages, and the suggested learning path.
import { h, screen } from './dom.js';
import { pieceIcon } from '../pieces.js';
import { LEARN_ROLES } from '../store.js';
import { renderPlainBoard } from './plainboard.js';

const PAGES = ['board', 'rules', 'path'];
// Maharajah's rules, then Chaturaji's (how its five pieces move, the dice, the score).
const RULES = ['pieces', 'army', 'start', 'status', 'hidden', 'end', 'chaturaji', 'chaturaji_dice'];
// Each step and what its Go opens: a setup (by menu entry), this screen's board, or a screen.
const PATH = [['classic', { setup: 'computer' }], ['learn', { learn: 'board' }], ['custom', { setup: 'custom' }], ['lan', { screen: 'lan' }], ['online', { screen: 'online' }]];

function boardPage(state, { t, intent }) {
  const learn = state.learn;
  const reach = learn.reach ?? { slide: [], leap: [] };
  const marks = {};
  reach.slide.forEach((sq) => { marks[sq] = ['slide']; });
  reach.leap.forEach((sq) => { marks[sq] = [...(marks[sq] ?? []), 'leap']; });
  const pieces = [{ square: learn.square, color: 'white', role: learn.role },
    ...learn.blockers.map((square) => ({ square, color: 'black', role: 'pawn' }))];
  const total = reach.slide.length + reach.leap.length;
  return [
    h('div', { class: 'learn-roles', role: 'toolbar', 'aria-label': t('learn.pick') },
      LEARN_ROLES.map((role) => h('button', {
        type: 'button', class: `palette-item${learn.role === role ? ' on' : ''}`, id: `learn-${role}`,
        'aria-pressed': String(learn.role === role), 'aria-label': t(`role.${role}`),
        onclick: () => intent({ type: 'learn/role', role }),
      }, pieceIcon('white', role, 34)))),
    // The board right under the pieces, so it is whole on a phone's first screen; its tools below it.
    renderPlainBoard({
      id: 'learn-board', pieces, marks, theme: state.settings.theme, t,
      label: t('learn.board', { piece: t(`role.${learn.role}`), square: learn.square }),
      onSquare: (square) => intent({ type: 'learn/square', square }),
    }),
    h('div', { class: 'segmented', id: 'learn-tool' },
      ['piece', 'blocker'].map((tool) => h('button', {
        type: 'button', class: `seg${learn.tool === tool ? ' on' : ''}`, id: `tool-${tool}`, 'aria-pressed': String(learn.tool === tool),
        onclick: () => intent({ type: 'learn/tool', tool }),
      }, t(`learn.tool.${tool}`))),
      h('button', { type: 'button', class: 'seg', id: 'learn-clear', onclick: () => intent({ type: 'learn/clear' }) }, t('learn.clear'))),
    h('p', { class: 'learn-what' }, h('strong', {}, t(`role.${learn.role}`)), ' — ', t(`learn.moves.${learn.role}`)),
    h('p', { class: 'reach-count', id: 'reach-count', 'data-total': total, 'data-slide': reach.slide.length, 'data-leap': reach.leap.length },
      t('learn.count', { total, slide: reach.slide.length, leap: reach.leap.length, square: learn.square })),
    h('p', { class: 'legend' },
      h('span', { class: 'legend-item' }, h('span', { class: 'key key-slide' }), t('learn.legend.slide')),
      h('span', { class: 'legend-item' }, h('span', { class: 'key key-leap' }), t('learn.legend.leap'))),
  ];
}

function rulesPage(t) {
  return RULES.map((key) => h('article', { class: 'rules-page', id: `rules-${key}` },
    h('h2', {}, t(`rules.${key}.title`)),
    t(`rules.${key}.body`).split('\n').map((line) => h('p', {}, line))));
}

/** What the Go of a learning-path step dispatches. */
export function pathAction(go) {
  if (go.setup) return { type: 'setup/open', entry: go.setup };
  if (go.learn) return { type: 'learn/open', page: go.learn };
  return { type: 'navigate', screen: go.screen };
}

// The list numbers the steps (the texts carry no numbers of their own).
function pathPage(t, intent) {
  return h('ol', { class: 'learning-path', id: 'learning-path' }, PATH.map(([step, go]) => h('li', {},
    h('strong', {}, t(`path.${step}`)), h('p', { class: 'muted' }, t(`path.${step}.hint`)),
    h('button', { type: 'button', class: 'action', id: `path-${step}`, onclick: () => intent(pathAction(go)) }, t('path.go')))));
}

export function renderLearn(state, ctx) {
  const { t, intent } = ctx;
  const page = state.learn.page;
  return screen('learn', t('learn.title'), t('nav.back'), () => intent({ type: 'back' }),
    h('div', { class: 'segmented tabs', role: 'tablist' }, PAGES.map((p) => h('button', {
      type: 'button', role: 'tab', class: `seg${page === p ? ' on' : ''}`, id: `learn-page-${p}`, 'aria-selected': String(page === p),
      onclick: () => intent({ type: 'learn/open', page: p }),
    }, t(`learn.page.${p}`)))),
    page === 'board' ? boardPage(state, ctx) : page === 'rules' ? rulesPage(t) : pathPage(t, intent));
}
