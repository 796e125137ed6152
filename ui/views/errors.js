// How every view shows a backend error: the sentence of its code from the one catalogue of error
// codes (`error.<code>`, in every language), then the backend's own detail.
import { CATALOGUES } from '../i18n.js';

/** The catalogue key of an error's code (`error.room_full`), or null when the code has none. */
export function errorKey(error) {
  const key = error && error.code ? `error.${error.code}` : null;
  return key && key in CATALOGUES.en ? key : null;
}

/** The sentence of the error's code, or null when its code has none. */
export function errorTitle(error, t) {
  const key = errorKey(error);
  return key ? t(key) : null;
}

/** One line for people: the code's sentence, then the backend's detail (the detail alone for a code without a sentence). */
export function errorText(error, t) {
  if (!error) return '';
  const title = errorTitle(error, t);
  if (!title) return error.message ?? '';
  return error.message ? `${title} ${error.message}` : title;
}
