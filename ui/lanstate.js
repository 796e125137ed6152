// The Local network screen's state: what to host, the host's card, the live list, the join
// fallbacks and the LAN game's connection state. Pure; store.js delegates every 'lan/' action here.

export const LAN_VARIANTS = ['chess', 'maharajah', 'horde'];
export const LAN_COLORS = ['white', 'black', 'random'];

/** The screen's state when it opens; `name` is the device name remembered from last time. */
export function newLan(name = '', timeControl = 'none') {
  return {
    tab: 'host',
    form: { name, variant: 'maharajah', hidden: true, timeControl, customMinutes: 10, customIncrement: 5, color: 'random' },
    hosting: null,
    status: null,
    list: { browsing: false, searching: false, hosts: [] },
    address: '',
    room: '',
    code: '',
    busy: null,
    error: null,
  };
}

/** What the backend's lan_host takes for the form (time control as { base_ms, increment_ms } or null). */
export function hostRequest(form) {
  let timeControl = null;
  if (form.timeControl !== 'none') {
    const [minutes, increment] = form.timeControl === 'custom'
      ? [Number(form.customMinutes), Number(form.customIncrement)]
      : form.timeControl.split('+').map(Number);
    if (minutes > 0 && increment >= 0) timeControl = { base_ms: Math.round(minutes * 60000), increment_ms: Math.round(increment * 1000) };
  }
  return {
    name: form.name,
    variant: form.variant,
    time_control: timeControl,
    hidden: form.variant === 'maharajah' && Boolean(form.hidden),
    color: form.color === 'random' ? null : form.color,
  };
}

/** The hosts of the list sorted for showing: joinable first, then greyed ones, each by name. */
export function shownHosts(list) {
  return [...list.hosts].sort((a, b) => (a.compatible === b.compatible ? a.name.localeCompare(b.name) : a.compatible ? -1 : 1));
}

/** The i18n key of a connection state line (role + phase). */
export function statusKey(status) {
  if (!status) return null;
  return `lan.status.${status.role}.${status.phase}`;
}

/** Pure reducer for the LAN screen: (lan, action) -> lan. */
export function reduceLan(lan, action) {
  switch (action.type) {
    case 'lan/tab':
      return { ...lan, tab: action.tab, error: null };
    case 'lan/form':
      return { ...lan, form: { ...lan.form, [action.key]: action.value } };
    case 'lan/field':
      return { ...lan, [action.key]: action.value };
    case 'lan/busy':
      return { ...lan, busy: action.busy, error: action.busy ? null : lan.error };
    case 'lan/error':
      return { ...lan, busy: null, error: action.error };
    case 'lan/hosted':
      return { ...lan, busy: null, error: null, hosting: action.hosting, tab: action.hosting ? 'host' : lan.tab };
    case 'lan/status':
      return { ...lan, busy: null, status: action.status };
    case 'lan/hosts':
      return { ...lan, list: action.list };
    case 'lan/left':
      return { ...lan, busy: null, hosting: null, status: null, error: null };
    default:
      return lan;
  }
}
