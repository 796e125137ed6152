// About: app and engine versions, read from the backend.
import { h, screen } from './dom.js';

export function renderAbout(state, { t, intent }) {
  const v = state.versions;
  let versions;
  if (v.status === 'ready') {
    versions = h('dl', { class: 'versions' },
      h('dt', {}, t('about.appVersion')), h('dd', { id: 'app-version' }, v.app),
      h('dt', {}, t('about.engineVersion')), h('dd', { id: 'engine-version' }, v.engine),
      // The server's version, while connected to one (online or a LAN host).
      state.net && state.net.server_version ? h('dt', {}, t('about.serverVersion')) : null,
      state.net && state.net.server_version ? h('dd', { id: 'server-version' }, state.net.server_version) : null);
  } else if (v.status === 'error') {
    versions = h('p', { class: 'error', id: 'versions-error', role: 'alert' },
      t('about.error', { message: v.error.message }));
  } else {
    versions = h('p', { class: 'muted' }, t('about.loading'));
  }
  return screen('about', t('about.title'), t('nav.back'), () => intent({ type: 'back' }),
    h('p', {}, t('about.body')), versions);
}
