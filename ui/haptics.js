// Haptic feedback on phones (the Tauri haptics plugin, registered only in Android and iOS builds):
// a light impact for a move, a notification for check and for the game's end. The desktop build
// reports no haptics, so nothing is asked there; the setting `haptics` turns it off.
import * as api from './api.js';

let available = false;

/** Whether this build has haptics (from the backend's device_info); tests set it by hand. */
export function setHapticsAvailable(on) {
  available = Boolean(on);
}

export function hapticsAvailable() {
  return available;
}

/** The feedback for a game sound (soundFor's names): { impact } or { notification }, or null. */
export function hapticFor(sound) {
  switch (sound) {
    case 'move':
    case 'capture':
      return { impact: 'light' };
    case 'check':
      return { notification: 'warning' };
    case 'end':
      return { notification: 'success' };
    default:
      return null;
  }
}

/**
 * Gives the feedback for `sound` when the build has haptics and `settings.haptics` is not off;
 * answers what was asked for (null: nothing). A refusal turns haptics off for the session.
 */
export function buzz(sound, settings, calls = api) {
  const feedback = available && settings.haptics !== false ? hapticFor(sound) : null;
  if (!feedback) return null;
  const asked = feedback.impact ? calls.hapticImpact(feedback.impact) : calls.hapticNotification(feedback.notification);
  Promise.resolve(asked).catch(() => { available = false; });
  return feedback;
}
