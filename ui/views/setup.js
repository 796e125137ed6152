// New game: variant is fixed by the menu entry; choose friend or computer, colour, level, clock.
import { h, screen } from './dom.js';
import { customTime, segmented } from './forms.js';
import { LEVELS, TIME_CONTROLS } from '../store.js';
import { errorText } from './errors.js';

const radios = (name, ...choice) => segmented({ group: `setup-${name}`, input: name }, ...choice);

/**
 * The chosen level on a human scale ("Level 3 · about 1450", the backend's calibration against
 * Fairy-Stockfish's UCI_Elo), with what the ends of the scale mean; the hint alone until the
 * ratings have arrived.
 */
function levelLine(state, t) {
  const ratings = state.start && state.start.levelRatings;
  const level = Number(state.setup.level);
  const elo = ratings ? ratings[level - 1] : null;
  return h('p', { class: 'muted hint', id: 'setup-level-rating' },
    elo ? h('strong', {}, t('setup.level.rating', { level, elo }), ' ') : null,
    t('setup.level.hint'));
}

/** The longest name a player may give (the backend checks it too, with control characters). */
export const NAME_MAX = 20;

/** Pass-and-play: the two players' names, optional (an empty one is the colour's name). */
function nameFields(setup, t, intent) {
  const field = (color) => {
    const key = `${color}Name`;
    return h('label', { class: 'name-field', for: `name-${color}` },
      h('span', {}, t(`setup.name.${color}`)),
      h('input', {
        type: 'text', id: `name-${color}`, name: key, value: setup[key] ?? '', maxlength: NAME_MAX,
        autocomplete: 'off', spellcheck: 'false', placeholder: t(`color.${color}`),
        // Typing only updates the state (the field already shows the text): no re-render.
        oninput: (e) => intent({ type: 'setup/change', key, value: e.target.value, quiet: true }),
      }));
  };
  return h('fieldset', { class: 'group names', id: 'setup-names' },
    h('legend', {}, t('setup.names')),
    h('div', { class: 'name-fields' }, field('white'), field('black')),
    h('p', { class: 'muted hint' }, t('setup.names.hint')));
}

export function renderSetup(state, { t, intent }) {
  const setup = state.setup;
  const change = (key) => (value) => intent({ type: 'setup/change', key, value });
  const computer = setup.opponent === 'computer';
  const custom = setup.variant === 'maharajah';
  const titleKey = custom ? 'setup.title.custom' : setup.variant === 'horde' ? 'setup.title.horde' : 'setup.title.chess';
  return screen('setup', t(titleKey), t('nav.back'), () => intent({ type: 'back' }),
    setup.variant === 'horde' ? h('p', { class: 'muted' }, t('setup.horde.rules')) : null,
    setup.variants
      ? radios('variant', setup.variants.map((v) => [v, t(`setup.variant.${v}`)]), setup.variant, t('setup.variant'), change('variant'))
      : null,
    custom ? h('p', { class: 'muted', id: 'setup-custom-rules' }, t(computer ? 'setup.custom.rules.computer' : 'setup.custom.rules')) : null,
    radios('opponent', [['human', t('setup.friend')], ['computer', t('setup.computer')]], setup.opponent, t('setup.opponent'), change('opponent')),
    computer ? null : nameFields(setup, t, intent),
    custom && !computer
      ? h('label', { class: 'toggle', id: 'hide-army-label' },
        h('input', { type: 'checkbox', id: 'hide-army', checked: setup.hidden, onchange: (e) => change('hidden')(e.target.checked) }),
        h('span', {}, t('setup.hide'), h('small', { class: 'muted' }, ' — ', t('setup.hide.hint'))))
      : null,
    computer ? radios('color', [['white', t('color.white')], ['black', t('color.black')], ['random', t('setup.random')]], setup.color, t('setup.color'), change('color')) : null,
    computer ? radios('level', LEVELS.map((l) => [l, String(l)]), setup.level, t('setup.level'), change('level')) : null,
    computer ? levelLine(state, t) : null,
    radios('time', TIME_CONTROLS.map((tc) => [tc, t(`time.${tc}`, { tc })]), setup.timeControl, t('setup.time'), change('timeControl')),
    setup.timeControl === 'custom'
      ? customTime('custom', setup, t, change)
      : null,
    state.error ? h('p', { class: 'error', role: 'alert' }, errorText(state.error, t)) : null,
    h('button', { type: 'button', class: 'action accent big', id: 'start-game', onclick: () => intent({ type: custom ? 'build/start' : 'start-game' }) }, t(custom ? 'setup.build' : 'setup.start')));
}
