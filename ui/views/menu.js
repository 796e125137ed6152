// The start screen: Continue (an unfinished saved game), saved games, and the menu people use,
// with features that have not landed marked plainly.
import { h } from './dom.js';
import { MENU } from '../store.js';

const SETUP_ENTRIES = new Set(['classic', 'horde', 'computer', 'custom']);

/** A menu entry's hint; Online says plainly when no server is set. */
export function hintKey(state, id) {
  if (id === 'online' && !state.settings.serverUrl) return 'menu.online.hint.none';
  return `menu.${id}.hint`;
}

export function renderMenu(state, { t, intent }) {
  const items = MENU.map((item) =>
    h('li', {},
      h('button', {
        type: 'button',
        class: item.ready ? 'menu-item' : 'menu-item soon',
        id: `menu-${item.id}`,
        'data-ready': String(item.ready),
        onclick: () => intent(SETUP_ENTRIES.has(item.id)
          ? { type: 'setup/open', entry: item.id }
          : { type: 'navigate', screen: item.ready ? item.id : `soon:${item.id}` }),
      },
      h('span', { class: 'menu-title' }, t(`menu.${item.id}`)),
      h('span', { class: 'menu-hint' }, t(hintKey(state, item.id))),
      item.ready ? null : h('span', { class: 'badge' }, t('menu.soon')))));
  const extras = h('div', { class: 'menu-extras' },
    state.start.continueId
      ? h('button', { type: 'button', class: 'action accent big', id: 'continue', onclick: () => intent({ type: 'open-game', id: state.start.continueId }) }, t('menu.continue'))
      : null,
    h('button', { type: 'button', class: 'action big', id: 'menu-history', onclick: () => intent({ type: 'history' }) }, t('menu.history')),
    h('button', { type: 'button', class: 'action big', id: 'menu-analysis', title: t('menu.analysis.hint'), onclick: () => intent({ type: 'analysis/menu' }) }, t('menu.analysis')));
  return h('section', { class: 'screen', id: 'screen-menu', 'data-screen': 'menu' },
    h('header', { class: 'hero' },
      h('img', { src: 'icon.svg', alt: '', class: 'logo', width: 72, height: 72 }),
      h('div', {},
        h('h1', {}, t('app.title')),
        h('p', { class: 'tagline' }, t('app.tagline')))),
    extras,
    h('nav', { 'aria-label': t('menu.label') }, h('ul', { class: 'menu' }, items)));
}
