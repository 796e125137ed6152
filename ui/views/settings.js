// Settings: language, board theme, sounds, haptics (phones), auto-turn, animation, default clock. Kept in SQLite
// by the backend (language also in local storage so the first screen is already translated).
import { h, s, screen } from './dom.js';
import { LANGUAGES } from '../i18n.js';
import { THEMES, TIME_CONTROLS } from '../store.js';
import { PIECE_SETS, pieceIcon, setPieceSet } from '../pieces.js';

function radioGroup(name, legend, options, current, onchange) {
  return h('fieldset', { class: 'group', id: `settings-${name}` }, h('legend', {}, legend),
    options.map(([value, text]) =>
      h('label', { class: 'choice' },
        h('input', { type: 'radio', name, value, id: `${name}-${value}`, checked: current === value, onchange: () => onchange(value) }),
        h('span', {}, text))));
}

/** A 2×2 corner of the board in `theme`, so the choice shows what it looks like. */
function themePreview(theme) {
  return s('svg', { viewBox: '0 0 40 40', width: 40, height: 40, class: `theme-preview theme-${theme}`, 'aria-hidden': 'true' },
    [[0, 0, 'light'], [20, 0, 'dark'], [0, 20, 'dark'], [20, 20, 'light']].map(([x, y, kind]) => s('rect', { x, y, width: 20, height: 20, class: kind })));
}

function themeGroup(state, t, intent) {
  return h('fieldset', { class: 'group', id: 'settings-theme' }, h('legend', {}, t('settings.theme')),
    h('div', { class: 'theme-choices' }, THEMES.map((theme) =>
      h('label', { class: 'choice theme-choice' },
        h('input', { type: 'radio', name: 'theme', value: theme, id: `theme-${theme}`, checked: state.settings.theme === theme, onchange: () => intent({ type: 'setting', key: 'theme', value: theme }) }),
        themePreview(theme),
        h('span', {}, t(`theme.${theme}`))))));
}

/** The piece sets, each shown by its knight and its Maharajah. */
function pieceSetGroup(state, t, intent) {
  const current = PIECE_SETS.includes(state.settings.pieceSet) ? state.settings.pieceSet : 'classic';
  const choices = PIECE_SETS.map((set) => {
    setPieceSet(set);
    return h('label', { class: 'choice theme-choice' },
      h('input', { type: 'radio', name: 'pieceSet', value: set, id: `pieces-${set}`, checked: current === set, onchange: () => intent({ type: 'setting', key: 'pieceSet', value: set }) }),
      pieceIcon('white', 'knight', 36), pieceIcon('black', 'maharajah', 36),
      h('span', {}, t(`pieces.${set}`)));
  });
  setPieceSet(current);
  return h('fieldset', { class: 'group', id: 'settings-pieces' }, h('legend', {}, t('settings.pieces')),
    h('div', { class: 'theme-choices' }, choices));
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
    themeGroup(state, t, intent),
    pieceSetGroup(state, t, intent),
    h('fieldset', { class: 'group' }, h('legend', {}, t('settings.board')),
      toggle('coordinates', t('settings.coordinates'), state, intent),
      toggle('zen', t('settings.zen'), state, intent)),
    h('fieldset', { class: 'group' }, h('legend', {}, t('settings.play')),
      toggle('sounds', t('settings.sounds'), state, intent),
      // Only where the build has haptics (the phones): on the desktop there is nothing to turn off.
      state.device && state.device.haptics ? toggle('haptics', t('settings.haptics'), state, intent) : null,
      toggle('autoTurn', t('settings.autoTurn'), state, intent),
      toggle('animation', t('settings.animation'), state, intent),
      toggle('confirmMove', t('settings.confirmMove'), state, intent),
      toggle('confirmResign', t('settings.confirmResign'), state, intent)),
    h('fieldset', { class: 'group' }, h('legend', {}, t('settings.time')),
      h('select', { id: 'setting-timeControl', onchange: (e) => intent({ type: 'setting', key: 'timeControl', value: e.target.value }) },
        TIME_CONTROLS.filter((tc) => tc !== 'custom').map((tc) => h('option', { value: tc, selected: state.settings.timeControl === tc }, t(`time.${tc}`, { tc }))))));
}
