// The Online screen: the server address (saved as a setting), create a room, or join one by code.
import { h, screen } from './dom.js';
import { segmented } from './forms.js';
import { NET_COLORS, NET_TIME_CONTROLS, NET_VARIANTS, serverUrlOf } from '../net.js';
import { errorText } from './errors.js';

const radios = (name, ...choice) => segmented({ group: `online-${name}`, input: `online-${name}` }, ...choice);

export function renderOnline(state, { t, intent }) {
  const online = state.online;
  const change = (key) => (value) => intent({ type: 'online/change', key, value });
  const error = online.error;
  return screen('online', t('online.title'), t('nav.back'), () => intent({ type: 'back' }),
    h('p', { class: 'muted' }, t('online.intro')),
    // No server saved: the address below is this device's own, which answers only if a server runs here.
    !state.settings.serverUrl && !online.url
      ? h('p', { class: 'banner', id: 'online-no-server' }, t('online.noServer', { url: serverUrlOf(state) }))
      : null,
    state.net
      ? h('button', { type: 'button', class: 'action accent big', id: 'net-return', onclick: () => intent({ type: 'net/return' }) }, t('online.return', { code: state.net.code ?? '' }))
      : null,
    !state.net && online.kept
      ? h('button', { type: 'button', class: 'action accent big', id: 'net-rejoin', disabled: online.busy, onclick: () => intent({ type: 'online/rejoin' }) }, t('online.rejoin', { code: online.kept.code }))
      : null,
    h('label', { class: 'field', for: 'server-url' }, t('online.server'),
      h('input', {
        id: 'server-url', type: 'text', autocomplete: 'off', autocapitalize: 'off', spellcheck: 'false',
        value: serverUrlOf(state), oninput: (e) => change('url')(e.target.value),
      })),
    online.linked
      ? h('p', { class: 'banner', id: 'online-linked', role: 'status' }, t('online.linked', { code: online.linked.code, server: online.linked.server }))
      : null,
    error
      ? h('p', { class: 'error', id: 'online-error', role: 'alert', 'data-code': error.code },
        errorText(error, t))
      : null,
    error && error.code === 'connect_failed'
      ? h('p', { class: 'muted', id: 'online-howto' }, t('online.howto', { url: serverUrlOf(state) }))
      : null,
    online.busy ? h('p', { class: 'muted', id: 'online-busy', role: 'status' }, t('online.busy')) : null,
    h('section', { class: 'online-join', 'aria-labelledby': 'join-title' },
      h('h2', { id: 'join-title' }, t('online.join.title')),
      h('form', {
        class: 'row', id: 'join-form',
        onsubmit: (e) => { e.preventDefault(); intent({ type: 'online/join' }); },
      },
      h('input', {
        id: 'join-code', type: 'text', autocomplete: 'off', autocapitalize: 'characters', spellcheck: 'false',
        maxlength: 12, placeholder: t('online.join.placeholder'), 'aria-label': t('online.join.code'),
        value: online.code, oninput: (e) => change('code')(e.target.value),
      }),
      h('button', { type: 'submit', class: 'action accent', id: 'join-room', disabled: online.busy }, t('online.join.go')))),
    h('section', { class: 'online-create', 'aria-labelledby': 'create-title' },
      h('h2', { id: 'create-title' }, t('online.create.title')),
      radios('variant', NET_VARIANTS.map((v) => [v, t(`variant.${v}`)]), online.variant, t('online.variant'), change('variant')),
      online.variant === 'maharajah' ? h('p', { class: 'muted hint' }, t('online.hidden.hint')) : null,
      radios('time', NET_TIME_CONTROLS.map((tc) => [tc, t(`time.${tc}`, { tc })]), online.timeControl, t('setup.time'), change('timeControl')),
      radios('color', NET_COLORS.map((c) => [c, c === 'random' ? t('setup.random') : t(`color.${c}`)]), online.color, t('setup.color'), change('color')),
      h('button', { type: 'button', class: 'action accent big', id: 'create-room', disabled: online.busy, onclick: () => intent({ type: 'online/create' }) }, t('online.create.go'))));
}
