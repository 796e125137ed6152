// Game sounds synthesised with WebAudio (no files): move, capture, check, end.
let context = null;

function tone(ctx, { freq, start = 0, length = 0.08, type = 'triangle', gain = 0.18, slide = null }) {
  const osc = ctx.createOscillator();
  const amp = ctx.createGain();
  const at = ctx.currentTime + start;
  osc.type = type;
  osc.frequency.setValueAtTime(freq, at);
  if (slide) osc.frequency.exponentialRampToValueAtTime(slide, at + length);
  amp.gain.setValueAtTime(0.0001, at);
  amp.gain.exponentialRampToValueAtTime(gain, at + 0.005);
  amp.gain.exponentialRampToValueAtTime(0.0001, at + length);
  osc.connect(amp).connect(ctx.destination);
  osc.start(at);
  osc.stop(at + length + 0.02);
}

const SOUNDS = {
  move: (ctx) => tone(ctx, { freq: 420, slide: 260, length: 0.07 }),
  capture: (ctx) => { tone(ctx, { freq: 300, slide: 120, length: 0.12, type: 'square', gain: 0.12 }); tone(ctx, { freq: 650, start: 0.02, length: 0.05 }); },
  check: (ctx) => { tone(ctx, { freq: 660, length: 0.09 }); tone(ctx, { freq: 880, start: 0.1, length: 0.12 }); },
  end: (ctx) => [523, 659, 784].forEach((freq, i) => tone(ctx, { freq, start: i * 0.12, length: 0.35, type: 'sine', gain: 0.15 })),
};

/** Plays a named sound; silently does nothing where WebAudio is unavailable. */
export function play(name) {
  try {
    const Ctx = globalThis.AudioContext || globalThis.webkitAudioContext;
    if (!Ctx || !SOUNDS[name]) return;
    context = context || new Ctx();
    if (context.state === 'suspended') context.resume();
    SOUNDS[name](context);
  } catch {
    // No audio device (e.g. a headless test display): sounds are optional.
  }
}
