// Form pieces the setup screens share: a segmented choice, and the fields of a custom clock.
import { h } from './dom.js';

/**
 * A labelled fieldset (id `group`) of radio buttons drawn as one segmented control. The inputs
 * share the name `input` and each has the id `${input}-${value}`; `options` are [value, text]
 * pairs, `current` is checked, and `onchange(value)` reports a choice.
 */
export function segmented({ group, input }, options, current, label, onchange) {
  return h('fieldset', { class: 'group', id: group },
    h('legend', {}, label),
    h('div', { class: 'segmented' }, options.map(([value, text]) =>
      h('label', { class: `seg${String(current) === String(value) ? ' on' : ''}` },
        h('input', { type: 'radio', name: input, value, id: `${input}-${value}`, checked: String(current) === String(value), onchange: () => onchange(value) }),
        h('span', {}, text)))));
}

/**
 * The minutes and increment fields of a custom clock (ids `${prefix}-minutes` and
 * `${prefix}-increment`), showing `values.customMinutes` and `values.customIncrement`;
 * `change(key)(text)` reports typing.
 */
export function customTime(prefix, values, t, change) {
  return h('div', { class: 'custom-time' },
    h('label', {}, t('setup.minutes'), h('input', { type: 'number', min: 1, max: 180, id: `${prefix}-minutes`, value: values.customMinutes, oninput: (e) => change('customMinutes')(e.target.value) })),
    h('label', {}, t('setup.increment'), h('input', { type: 'number', min: 0, max: 60, id: `${prefix}-increment`, value: values.customIncrement, oninput: (e) => change('customIncrement')(e.target.value) })));
}
