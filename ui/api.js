// The only module that knows the transport. Every backend command is one exported function that
// returns a Promise; a failure rejects with { code, message } (the shape of CommandError).

const tauri = globalThis.__TAURI__;

/** True when the page runs inside the Maharajah app (not a plain browser). */
export const hasBackend = Boolean(tauri && tauri.core && tauri.core.invoke);

async function call(command, args = {}) {
  if (!hasBackend) {
    throw { code: 'no_backend', message: 'The Maharajah backend is not available in this window.' };
  }
  try {
    return await tauri.core.invoke(command, args);
  } catch (error) {
    if (error && typeof error === 'object' && 'code' in error) throw error;
    throw { code: 'ipc', message: String(error) };
  }
}

/** @returns {Promise<{app: string, engine: string}>} */
export function versions() {
  return call('versions');
}

/**
 * Subscribes to an event pushed by the backend; resolves to an unsubscribe function.
 * @param {string} name
 * @param {(payload: unknown) => void} handler
 */
export async function subscribe(name, handler) {
  if (!hasBackend) return () => {};
  return tauri.event.listen(name, (event) => handler(event.payload));
}
