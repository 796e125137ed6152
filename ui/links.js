// A join link the system opened the app with (maharajah://join/…, read by the backend: see
// crates/app/src/link.rs) becomes the same intents as a code typed by hand: a LAN join code goes
// to the Local network screen's "join by code", an online room code to the Online screen's join.
import { serverUrlOf } from './net.js';

/**
 * The intents that follow `opened` ({ text, link, error } from take_join_link, or null), in
 * order. A room on another server than the one set is not joined at once: the form is filled
 * and the screen says which server, so a link cannot take the app elsewhere unseen.
 */
export function linkActions(opened, state) {
  if (!opened) return [];
  const link = opened.link;
  if (!link) {
    const error = opened.error ?? { code: 'bad_link', message: opened.text };
    return error.code === 'bad_join_code'
      ? [{ type: 'navigate', screen: 'lan' }, { type: 'lan/tab', tab: 'join' }, { type: 'lan/error', error }]
      : [{ type: 'navigate', screen: 'online' }, { type: 'online/error', error }];
  }
  if (link.kind === 'chaturaji_lan' || link.kind === 'chaturaji_online') {
    // A Chaturaji table: its setup page with the code (and server) filled in and the link named;
    // the person presses Join, so a link never seats anyone at a table unseen.
    return [{ type: 'navigate', screen: 'chaturaji' }, { type: 'chaturaji/linked', link }];
  }
  if (link.kind === 'lan') {
    return [
      { type: 'navigate', screen: 'lan' },
      { type: 'lan/tab', tab: 'join' },
      { type: 'lan/field', key: 'code', value: link.code },
      { type: 'lan/join', target: { kind: 'code' } },
    ];
  }
  const actions = [{ type: 'navigate', screen: 'online' }, { type: 'online/change', key: 'code', value: link.code }];
  if (link.server && link.server !== serverUrlOf(state)) {
    actions.push({ type: 'online/change', key: 'url', value: link.server }, { type: 'online/linked', code: link.code, server: link.server });
  } else {
    actions.push({ type: 'online/join' });
  }
  return actions;
}

/** Follows `opened` through `intent` (each action reduced, then its effects run). */
export function followLink(opened, state, intent) {
  for (const action of linkActions(opened, state)) intent(action);
}
