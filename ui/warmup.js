// The first game screen a person opens needs font faces and styles WebKit has not used on the
// start screen (bold and tabular figures, the clock's monospace, the board's coordinates): on a
// slow machine laying that out the first time costs 100–200 ms more than any later board. Once
// the start screen is on screen, one hidden game screen is laid out and thrown away in the same
// task (nothing else ever sees it), so the person's first board appears without that wait.
// Purely an optimisation: any failure is ignored.
import { renderGame } from './views/game.js';

const START_FEN = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';
const BACK_RANK = ['rook', 'knight', 'bishop', 'queen', 'king', 'bishop', 'knight', 'rook'];

/** A game snapshot shaped like the backend's: the start position, one move listed, a clock. */
export function sampleGame() {
  const pieces = BACK_RANK.flatMap((role, i) => {
    const file = 'abcdefgh'[i];
    return [
      { square: `${file}1`, color: 'white', role }, { square: `${file}2`, color: 'white', role: 'pawn' },
      { square: `${file}7`, color: 'black', role: 'pawn' }, { square: `${file}8`, color: 'black', role },
    ];
  });
  return {
    id: -1, variant: 'chess', opponent: { kind: 'human' }, fen: START_FEN,
    board: { pieces, last_move: null, check: null, turn: 'white', ply: 0 },
    legal: [], history: ['e4'], captured: { white: ['pawn'], black: [] }, material: 1,
    claimable: null, draw_offer: null, result: null, thinking: false, statuses: null,
    clock: { white_ms: 300000, black_ms: 300000, running: 'white', control: { base_ms: 300000, increment_ms: 3000 } },
  };
}

/** After the next frame, lays out a hidden game screen as wide as `root` once, then drops it. */
export function warmUpGameScreen(getState, t) {
  requestAnimationFrame(() => setTimeout(() => {
    const root = document.getElementById('app');
    if (!root || !document.getElementById('screen-menu')) return;
    const holder = document.createElement('div');
    try {
      holder.setAttribute('aria-hidden', 'true');
      holder.style.cssText = `position:fixed;left:0;top:0;width:${root.clientWidth}px;visibility:hidden;pointer-events:none`;
      const state = getState();
      holder.append(renderGame({ ...state, screen: 'game', game: sampleGame() }, { t, intent: () => {} }));
      document.body.append(holder);
      holder.getBoundingClientRect();
    } catch {
      // A warm-up that fails costs nothing but the warm-up.
    } finally {
      holder.remove();
    }
  }));
}
