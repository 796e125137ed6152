// How every view shows a backend error: the sentence of its code from the one catalogue of error
// codes (`error.<code>`, in every language), filled with the error's parameters (`params`, which
// the UI attaches where it knows them: the move typed). The backend's own detail is English: the
// catalogue's `error.detail` says whether a language shows it after the sentence (English does,
// Spanish does not, so a Spanish screen reads Spanish only).
import { CATALOGUES } from '../i18n.js';

/** The catalogue key of an error's code (`error.room_full`), or null when the code has none. */
export function errorKey(error) {
  const key = error && error.code ? `error.${error.code}` : null;
  return key && key in CATALOGUES.en ? key : null;
}

/** The catalogue key of the sentence naming the error's parameters (`error.bad_move.params`), or null. */
function paramsKey(error) {
  const key = errorKey(error);
  return key && error.params && `${key}.params` in CATALOGUES.en ? `${key}.params` : null;
}

/** The sentence of the error's code (naming its parameters when it has them), or null when its code has none. */
export function errorTitle(error, t) {
  const key = paramsKey(error) ?? errorKey(error);
  return key ? t(key, error.params ?? {}) : null;
}

/** The backend's detail when the reader's language shows it and no sentence names the parameters ('' otherwise). */
export function errorDetail(error, t) {
  if (!error || !error.message || paramsKey(error)) return '';
  return t('error.detail', { title: '', message: error.message }).trim();
}

/**
 * One line for people: the code's sentence, then (in English) the backend's detail, unless the
 * sentence names the parameters itself; the detail alone for a code without a sentence.
 */
export function errorText(error, t) {
  if (!error) return '';
  const title = errorTitle(error, t);
  if (!title) return error.message ?? '';
  const detail = errorDetail(error, t);
  return detail ? t('error.detail', { title, message: detail }) : title;
}
