// Settings: the language (follows the system until chosen here).
import { h, screen } from './dom.js';
import { LANGUAGES } from '../i18n.js';

export function renderSettings(state, { t, intent }) {
  const options = LANGUAGES.map((code) =>
    h('label', { class: 'choice' },
      h('input', {
        type: 'radio', name: 'language', value: code, id: `language-${code}`,
        checked: state.language === code,
        onchange: () => intent({ type: 'language', language: code }),
      }),
      h('span', {}, t(`settings.language.${code}`))));
  return screen('settings', t('settings.title'), t('nav.back'), () => intent({ type: 'back' }),
    h('fieldset', { class: 'group' }, h('legend', {}, t('settings.language')), options),
    h('p', { class: 'muted' }, t('settings.more')));
}
