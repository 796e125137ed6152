// The short confirmation beside a control ("Copied"): always in the layout, so nothing moves
// when it appears; read out by screen readers as a status.
import { h } from './dom.js';
import { canShare } from '../share.js';

/** The status line for `target` (the id of the button that asked). */
export function flashLine(state, target, t) {
  const flash = state.flash && state.flash.target === target ? state.flash : null;
  return h('span', { class: `flash${flash ? ' on' : ''}`, id: `${target}-flash`, role: 'status', 'aria-live': 'polite' }, flash ? t(flash.key) : '');
}

/** The label of a share button: "Share…" where the system sheet exists, else `copyKey`'s text. */
export function shareLabel(t, copyKey) {
  return canShare() ? t('share.share') : t(copyKey);
}
