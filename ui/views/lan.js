// Local network: host a game on this device (name, address, codes and a QR code for the guest),
// or join one from the live list of hosts on the Wi-Fi, by address and room code, or by join code.
import { h, screen } from './dom.js';
import { qrCode } from './qr.js';
import { flashLine, shareLabel } from './flash.js';
import { customTime, segmented } from './forms.js';
import { TIME_CONTROLS } from '../store.js';
import { LAN_COLORS, LAN_VARIANTS, shownHosts, statusKey } from '../lanstate.js';
import { errorDetail, errorTitle } from './errors.js';

const radios = (name, ...choice) => segmented({ group: `lan-${name}`, input: `lan-${name}` }, ...choice);

function statusLine(lan, t) {
  const status = lan.status;
  if (!status) return null;
  return h('div', { class: `lan-status phase-${status.phase}`, id: 'lan-status', role: 'status' },
    h('p', {}, t(statusKey(status), { color: t(`color.${status.seat}`), room: status.room, address: status.address })),
    // The host-left sentence says it all; otherwise the backend's detail says why (a reason).
    status.detail && status.phase !== 'host_left' ? h('p', { class: 'muted', id: 'lan-status-detail' }, status.detail) : null);
}

function errorLine(lan, t) {
  const error = lan.error;
  if (!error) return null;
  const title = errorTitle(error, t);
  // The backend's detail (English) shows where the language shows it, or when no sentence exists.
  const detail = title ? errorDetail(error, t) : error.message;
  return h('div', { class: 'error', id: 'lan-error', role: 'alert' },
    title ? h('p', { class: 'lan-error-title' }, title) : null,
    detail ? h('p', { class: 'lan-error-detail' }, detail) : null);
}

function hostForm(lan, { t, intent }) {
  const form = lan.form;
  const change = (key) => (value) => intent({ type: 'lan/form', key, value });
  return [
    h('label', { class: 'lan-field' }, h('span', {}, t('lan.name')),
      h('input', { type: 'text', id: 'lan-name', maxlength: 40, value: form.name, autocomplete: 'nickname', placeholder: t('lan.name.placeholder'), oninput: (e) => intent({ type: 'lan/form', key: 'name', value: e.target.value }) })),
    radios('variant', LAN_VARIANTS.map((v) => [v, t(`variant.${v}`)]), form.variant, t('lan.variant'), change('variant')),
    form.variant === 'maharajah'
      ? h('label', { class: 'toggle' },
        h('input', { type: 'checkbox', id: 'lan-hidden', checked: form.hidden, onchange: (e) => change('hidden')(e.target.checked) }),
        h('span', {}, t('lan.hidden'), h('small', { class: 'muted' }, ' — ', t('lan.hidden.hint'))))
      : null,
    radios('color', LAN_COLORS.map((c) => [c, c === 'random' ? t('setup.random') : t(`color.${c}`)]), form.color, t('setup.color'), change('color')),
    radios('time', TIME_CONTROLS.map((tc) => [tc, t(`time.${tc}`, { tc })]), form.timeControl, t('setup.time'), change('timeControl')),
    form.timeControl === 'custom'
      ? customTime('lan', form, t, change)
      : null,
    errorLine(lan, t),
    h('button', { type: 'button', class: 'action accent big', id: 'lan-host-start', disabled: lan.busy === 'host', onclick: () => intent({ type: 'lan/host' }) },
      t(lan.busy === 'host' ? 'lan.hosting.starting' : 'lan.host.start')),
  ];
}

/**
 * Whether guests on this Wi-Fi see the game in their list: yes, or why not (on iOS, local-network
 * access refused; elsewhere the announcement failed), with the fallbacks shown above.
 */
function advertLine(hosting, t) {
  const problem = hosting.advert_problem;
  if (!problem) return h('p', { class: 'muted', id: 'lan-advertised' }, t('lan.advertised'));
  return h('p', { class: 'error', id: 'lan-advert-problem', role: 'alert' }, t(`lan.advert.${problem.code}`));
}

function hostCard(state, { t, intent }) {
  const lan = state.lan;
  const hosting = lan.hosting;
  return [
    h('dl', { class: 'lan-card' },
      h('dt', {}, t('lan.name')), h('dd', { id: 'lan-host-name' }, hosting.name),
      h('dt', {}, t('lan.address')), h('dd', { id: 'lan-address', class: 'code' }, hosting.address),
      h('dt', {}, t('lan.room')), h('dd', { id: 'lan-room', class: 'code' }, hosting.room),
      hosting.join_code ? h('dt', {}, t('lan.joinCode')) : null,
      hosting.join_code ? h('dd', { id: 'lan-join-code', class: 'code big' }, hosting.join_code) : null),
    hosting.qr ? h('figure', { class: 'lan-qr-box' }, qrCode(hosting.qr, { id: 'lan-qr', label: t('lan.qr.label', { code: hosting.join_code }) }),
      h('figcaption', { class: 'muted' }, t('lan.qr.caption'))) : null,
    hosting.join_code
      ? h('div', { class: 'share-row' },
        h('button', { type: 'button', class: 'action', id: 'lan-share', onclick: () => intent({ type: 'lan/share' }) }, shareLabel(t, 'lan.share.copy')),
        flashLine(state, 'lan-share', t))
      : null,
    advertLine(hosting, t),
    statusLine(lan, t),
    errorLine(lan, t),
    lan.status && lan.status.phase !== 'waiting_for_guest'
      ? h('button', { type: 'button', class: 'action accent big', id: 'lan-open-game', onclick: () => intent({ type: 'lan/open-game' }) }, t('lan.openGame'))
      : null,
    h('button', { type: 'button', class: 'action danger big', id: 'lan-stop', onclick: () => intent({ type: 'lan/leave' }) }, t('lan.host.stop')),
  ];
}

function hostEntry(host, t, intent) {
  const details = [host.variant ? t(`variant.${host.variant}`) : null, host.hidden ? t('lan.entry.hidden') : null, host.address].filter(Boolean).join(' · ');
  // A Chaturaji table is joined from the Chaturaji screen (its own session), not as a chess game.
  const joinable = host.compatible && !host.chaturaji;
  const reason = host.chaturaji ? t('lan.entry.chaturaji') : host.reason;
  return h('li', {},
    h('button', {
      type: 'button',
      class: `lan-host${joinable ? '' : ' incompatible'}`,
      'data-id': host.id,
      'aria-disabled': joinable ? null : 'true',
      onclick: () => { if (joinable) intent({ type: 'lan/join', target: { kind: 'host', id: host.id } }); },
    },
    h('span', { class: 'lan-host-name' }, host.name),
    h('span', { class: 'lan-host-details muted' }, details),
    joinable ? null : h('span', { class: 'lan-host-reason' }, reason)));
}

function joinTab(lan, { t, intent }) {
  const list = lan.list;
  const hosts = shownHosts(list);
  let listBody;
  if (hosts.length) {
    listBody = h('ul', { class: 'lan-hosts', id: 'lan-hosts' }, hosts.map((host) => hostEntry(host, t, intent)));
  } else if (list.problem) {
    // Discovery stopped (e.g. iOS local-network access refused): say why; the fallbacks follow.
    listBody = h('p', { class: 'error', id: 'lan-hosts-problem', role: 'alert' }, t(`error.${list.problem.code}`));
  } else {
    listBody = h('p', { class: 'muted', id: 'lan-hosts-empty' }, t(list.browsing ? 'lan.list.searching' : 'lan.list.off'));
  }
  const field = (key, label, id, placeholder) => h('label', { class: 'lan-field' }, h('span', {}, label),
    h('input', { type: 'text', id, value: lan[key], placeholder, autocapitalize: 'characters', spellcheck: 'false', oninput: (e) => intent({ type: 'lan/field', key, value: e.target.value }) }));
  return [
    h('h2', {}, t('lan.list.title')),
    listBody,
    errorLine(lan, t),
    h('details', { class: 'lan-fallback', open: true },
      h('summary', {}, t('lan.fallback.title')),
      h('p', { class: 'muted' }, t('lan.fallback.hint')),
      field('code', t('lan.joinCode'), 'lan-code-input', 'ABCDEF-GHJKLM-NPQRST'),
      h('button', { type: 'button', class: 'action big', id: 'lan-join-code-go', disabled: lan.busy === 'join', onclick: () => intent({ type: 'lan/join', target: { kind: 'code' } }) }, t('lan.join.code')),
      field('address', t('lan.address'), 'lan-address-input', '192.168.1.20:40123'),
      field('room', t('lan.room'), 'lan-room-input', 'ABCD2345'),
      h('button', { type: 'button', class: 'action big', id: 'lan-join-address-go', disabled: lan.busy === 'join', onclick: () => intent({ type: 'lan/join', target: { kind: 'address' } }) }, t('lan.join.address'))),
  ];
}

function guestCard(lan, { t, intent }) {
  return [
    statusLine(lan, t),
    errorLine(lan, t),
    h('button', { type: 'button', class: 'action accent big', id: 'lan-open-game', onclick: () => intent({ type: 'lan/open-game' }) }, t('lan.openGame')),
    h('button', { type: 'button', class: 'action danger big', id: 'lan-leave', onclick: () => intent({ type: 'lan/leave' }) }, t('lan.leave')),
  ];
}

export function renderLan(state, ctx) {
  const { t, intent } = ctx;
  const lan = state.lan;
  const guest = lan.status && lan.status.role === 'guest';
  const tab = (id) => h('button', {
    type: 'button', role: 'tab', id: `lan-tab-${id}`, class: `seg${lan.tab === id ? ' on' : ''}`, 'aria-selected': String(lan.tab === id),
    onclick: () => intent({ type: 'lan/tab', tab: id }),
  }, t(`lan.tab.${id}`));
  let body;
  if (guest) body = guestCard(lan, ctx);
  else if (lan.hosting) body = hostCard(state, ctx);
  else body = lan.tab === 'host' ? hostForm(lan, ctx) : joinTab(lan, ctx);
  return screen('lan', t('lan.title'), t('nav.back'), () => intent({ type: 'back' }),
    guest || lan.hosting ? null : h('div', { class: 'segmented lan-tabs', role: 'tablist' }, tab('host'), tab('join')),
    h('div', { class: 'lan-panel', role: 'tabpanel' }, body));
}
