// Message catalogues: every text the user reads comes from here.
import en from './i18n/en.js';
import es from './i18n/es.js';

export const CATALOGUES = { en, es };
export const LANGUAGES = Object.keys(CATALOGUES);

/** The language to start in: the saved choice, else the system's, else English. */
export function pickLanguage(saved, systemLanguages = []) {
  if (saved && CATALOGUES[saved]) return saved;
  for (const tag of systemLanguages) {
    const base = String(tag).toLowerCase().split('-')[0];
    if (CATALOGUES[base]) return base;
  }
  return 'en';
}

/**
 * Looks a key up; `{name}` placeholders are filled from `params`, and `{name|one|other}` picks
 * the word for the number `params[name]` ("1 point", "2 points"; English and Spanish both use
 * the singular for exactly one). A missing key shows itself in brackets so it is noticed (tests
 * check both catalogues have every key).
 */
export function t(language, key, params = {}) {
  const text = (CATALOGUES[language] && CATALOGUES[language][key]) ?? CATALOGUES.en[key];
  if (text === undefined) return `[${key}]`;
  return text
    .replace(/\{(\w+)\|([^|{}]*)\|([^|{}]*)\}/g, (_, name, one, other) => (Number(params[name]) === 1 ? one : other))
    .replace(/\{(\w+)\}/g, (_, name) => String(params[name] ?? `{${name}}`));
}
