// What a menu item shows while its feature has not landed: a plain statement, no fake screen.
import { h, screen } from './dom.js';

export function renderSoon(feature, { t, intent }) {
  return screen(`soon-${feature}`, t('soon.title', { feature: t(`menu.${feature}`) }), t('nav.back'),
    () => intent({ type: 'back' }),
    h('p', { class: 'soon-note', id: 'soon-note' }, t('soon.body')));
}
