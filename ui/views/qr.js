// A QR code drawn as SVG squares from the backend's matrix ({ size, modules: '0'/'1' row by row }),
// for the LAN host's join code and an online room's invitation.
import { s } from './dom.js';

/** The QR code with a 4-module quiet zone; `id` and `label` name it for tests and screen readers. */
export function qrCode(qr, { id, label, className = 'lan-qr' }) {
  const quiet = 4;
  const side = qr.size + 2 * quiet;
  const dark = [];
  for (let y = 0; y < qr.size; y += 1) {
    for (let x = 0; x < qr.size; x += 1) {
      if (qr.modules[y * qr.size + x] === '1') dark.push(`M${x + quiet} ${y + quiet}h1v1h-1z`);
    }
  }
  return s('svg', { viewBox: `0 0 ${side} ${side}`, class: className, id, role: 'img', 'aria-label': label, 'shape-rendering': 'crispEdges', 'data-size': qr.size },
    s('rect', { width: side, height: side, fill: '#fff' }),
    s('path', { d: dark.join(''), fill: '#000' }));
}
