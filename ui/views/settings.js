// Settings: language, board theme, sounds, auto-turn, animation, default clock. Kept in SQLite
// by the backend (language also in local storage so the first screen is already translated).
import { h, screen } from './dom.js';
import { LANGUAGES } from '../i18n.js';
import { THEMES, TIME_CONTROLS } from '../store.js';

function radioGroup(name, legend, options, current, onchange) {
  return h('fieldset', { class: 'group', id: `settings-${name}` }, h('legend', {}, legend),
    options.map(([value, text]) =>
      h('label', { class: 'choice' },
        h('input', { type: 'radio', name, value, id: `${name}-${value}`, checked: current === value, onchange: () => onchange(value) }),
        h('span', {}, text))));
}

function toggle(key, label, state, intent) {
  return h('label', { class: 'choice' },
    h('input', { type: 'checkbox', id: `setting-${key}`, checked: Boolean(state.settings[key]), onchange: (e) => intent({ type: 'setting', key, value: e.target.checked }) }),
    h('span', {}, label));
}

export function renderSettings(state, { t, intent }) {
  return screen('settings', t('settings.title'), t('nav.back'), () => intent({ type: 'back' }),
    radioGroup('language', t('settings.language'), LANGUAGES.map((code) => [code, t(`settings.language.${code}`)]), state.language,
      (code) => intent({ type: 'language', language: code })),
    radioGroup('theme', t('settings.theme'), THEMES.map((theme) => [theme, t(`theme.${theme}`)]), state.settings.theme,
      (value) => intent({ type: 'setting', key: 'theme', value })),
    h('fieldset', { class: 'group' }, h('legend', {}, t('settings.play')),
      toggle('sounds', t('settings.sounds'), state, intent),
      toggle('autoTurn', t('settings.autoTurn'), state, intent),
      toggle('animation', t('settings.animation'), state, intent)),
    h('fieldset', { class: 'group' }, h('legend', {}, t('settings.time')),
      h('select', { id: 'setting-timeControl', onchange: (e) => intent({ type: 'setting', key: 'timeControl', value: e.target.value }) },
        TIME_CONTROLS.filter((tc) => tc !== 'custom').map((tc) => h('option', { value: tc, selected: state.settings.timeControl === tc }, t(`time.${tc}`, { tc }))))));
}
