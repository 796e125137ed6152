// About: what the app is, the games it plays, the versions (app and engine from the backend, the
// server's while connected to one), credits and licence.
import { h, screen } from './dom.js';
import { errorText } from './errors.js';

/** The games the app plays, in the menu's words. */
export const GAMES = ['chess', 'maharajah', 'horde', 'chaturaji'];

export function renderAbout(state, { t, intent }) {
  const v = state.versions;
  let versions;
  if (v.status === 'ready') {
    versions = h('dl', { class: 'versions' },
      h('dt', {}, t('about.appVersion')), h('dd', { id: 'app-version' }, v.app),
      h('dt', {}, t('about.engineVersion')), h('dd', { id: 'engine-version' }, v.engine),
      // The server's version, while connected to one (online or a LAN host).
      h('dt', {}, t('about.serverVersion')),
      state.net && state.net.server_version
        ? h('dd', { id: 'server-version' }, state.net.server_version)
        : h('dd', { id: 'server-none', class: 'muted' }, t('about.serverNone')));
  } else if (v.status === 'error') {
    versions = h('p', { class: 'error', id: 'versions-error', role: 'alert' },
      t('about.error', { message: errorText(v.error, t) }));
  } else {
    versions = h('p', { class: 'muted' }, t('about.loading'));
  }
  return screen('about', t('about.title'), t('nav.back'), () => intent({ type: 'back' }),
    h('p', {}, t('about.body')),
    h('h2', {}, t('about.games')),
    h('ul', { class: 'about-games', id: 'about-games' }, GAMES.map((game) => h('li', { 'data-game': game },
      h('strong', {}, t(`about.game.${game}`)), ' — ', t(`about.game.${game}.text`)))),
    h('h2', {}, t('about.versions')),
    versions,
    h('h2', {}, t('about.credits')),
    h('p', { id: 'about-credits' }, t('about.credits.text')),
    h('h2', {}, t('about.licence')),
    h('p', { id: 'about-licence' }, t('about.licence.text')));
}
