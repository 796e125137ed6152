// Sharing a PGN, a room code or a join link: the system share sheet where there is one, else the
// clipboard, whose success the screen confirms ("Copied"). The sheet is the build's own where it
// has one (Android: its WebView has no Web Share API, so the shell's `share_text` opens the
// system chooser; main.js installs it from device_info), else the Web Share API
// (`navigator.share`: iOS's WKWebView, mobile Safari and Chrome). The desktop copies.

/** The build's own share sheet ({ title, text } → a promise), or null. */
let nativeSheet = null;

/** Installs the build's own share sheet (null: none); main.js does, from device_info. */
export function setNativeShare(sheet) {
  nativeSheet = typeof sheet === 'function' ? sheet : null;
}

/** True when a system share sheet can be shown for plain text (the build's own or `navigator.share`). */
export function canShare(nav = globalThis.navigator) {
  return Boolean(nativeSheet) || Boolean(nav && typeof nav.share === 'function');
}

/**
 * Shares `{ title, text }`: resolves to 'shared' (the sheet was used), 'cancelled' (the person
 * closed it), 'copied' (on the clipboard), or 'failed' (neither worked; the text stays on screen).
 * `fallback()` is tried last, e.g. selecting a text area and `execCommand('copy')`.
 */
export async function share({ title, text }, { nav = globalThis.navigator, fallback = null, native = nativeSheet } = {}) {
  if (native) {
    try {
      await native({ title, text });
      return 'shared';
    } catch {
      // The system refused (no app takes text, or the plugin is missing): the clipboard next.
    }
  }
  if (nav && typeof nav.share === 'function') {
    const data = { title, text };
    if (typeof nav.canShare !== 'function' || nav.canShare(data)) {
      try {
        await nav.share(data);
        return 'shared';
      } catch (error) {
        if (error && error.name === 'AbortError') return 'cancelled';
        // NotAllowedError (no user gesture left) and the like: the clipboard still works.
      }
    }
  }
  try {
    if (!nav || !nav.clipboard || typeof nav.clipboard.writeText !== 'function') throw new Error('no clipboard');
    await nav.clipboard.writeText(text);
    return 'copied';
  } catch {
    try {
      if (fallback && fallback()) return 'copied';
    } catch {
      // Nothing left to try.
    }
    return 'failed';
  }
}

/** The i18n key of what a share result tells the person (null: nothing to say). */
export function shareFeedbackKey(result) {
  if (result === 'copied') return 'share.copied';
  if (result === 'failed') return 'share.failed';
  return null;
}

/** How long "Copied" stays beside its button. */
export const FLASH_MS = 2500;

/**
 * Shares `data` for the control `target` and shows the outcome beside it (a shared or cancelled
 * sheet shows nothing: the system said it). Resolves to share()'s result.
 */
export async function shareFrom(store, target, data, { nav, fallback, native = nativeSheet, later = setTimeout } = {}) {
  const result = await share(data, { nav, fallback, native });
  const key = shareFeedbackKey(result);
  store.dispatch({ type: 'flash', target, key });
  if (key) later(() => store.dispatch({ type: 'flash/clear', target }), FLASH_MS);
  return result;
}
