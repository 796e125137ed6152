// Chaturaji: the table setup (seats and every table setting) and the four-seat table — board
// with seat colours and symbols, pawn directions and promotion marks; the dice with what each
// allows (or why not); scores, round, end turn; the final ranking with shared places.
import { h, s, screen } from './dom.js';
import { segmented } from './forms.js';
import { inkedShape } from '../pieces.js';
import { cornerLabels } from './boardart.js';
import { attachDrag } from './pointer.js';
import {
  CPU_LEVELS, SEATS, SYMBOLS, chaturajiInvite, destinations, hostedFor, movable, personToMove, promotionMarks, reachOf, recentMoves,
  screenDirection, sharedPlaces, squareAtCell, viewCell,
} from '../chaturaji-store.js';
import { errorText } from './errors.js';
import { confirmsActions } from '../store.js';
import { qrCode } from './qr.js';
import { flashLine, shareLabel } from './flash.js';

/** Seat inks: fill, outline, details. */
const INK = {
  red: { fill: '#d8453b', stroke: '#3a0d09', detail: '#fff3ec' },
  blue: { fill: '#3a78d8', stroke: '#0b1f40', detail: '#eef5ff' },
  yellow: { fill: '#f0c531', stroke: '#3d2c00', detail: '#3d2c00' },
  green: { fill: '#36a05a', stroke: '#0a2a14', detail: '#effff3' },
};
/** Chaturaji roles drawn with the app's shapes; the boat and the elephant have their own, so
 * neither reads as a chess piece that moves differently. */
const SHAPE_OF = { pawn: 'pawn', horse: 'knight', king: 'king' };
const BOAT = ['M8 27.5h29l-5.5 8h-18z', 'M21.5 8.5h2.4v19h-2.4z', 'M24.5 10.5l10 14.5h-10z', 'M20.5 12.5l-8 12.5h8z'];
const PIECE_SCALE = 2.1;

function pieceArt(seat, role) {
  const ink = INK[seat];
  if (role === 'boat') {
    return s('g', { class: 'piece-art boat' },
      BOAT.map((d) => s('path', { d, fill: ink.fill, stroke: ink.stroke, 'stroke-width': 1.5, 'stroke-linejoin': 'round' })),
      s('path', { d: 'M12 31.5h21', stroke: ink.detail, 'stroke-width': 1.4, fill: 'none' }));
  }
  if (role === 'elephant') return elephantArt(ink);
  return inkedShape(ink, SHAPE_OF[role]);
}

/** An elephant seen from the side, facing left: body, legs, head, ear, trunk, tusk, eye. */
function elephantArt(ink) {
  const solid = { fill: ink.fill, stroke: ink.stroke, 'stroke-width': 1.5, 'stroke-linejoin': 'round' };
  return s('g', { class: 'piece-art elephant' },
    s('path', { d: 'M38.5 20.5l2 5.5', stroke: ink.stroke, 'stroke-width': 1.5, 'stroke-linecap': 'round', fill: 'none' }),
    s('rect', { x: 19, y: 29, width: 4.5, height: 8.5, rx: 1.2, ...solid }),
    s('rect', { x: 31, y: 29, width: 4.5, height: 8.5, rx: 1.2, ...solid }),
    s('path', { d: 'M18 14.5h15a6 6 0 0 1 6 6v6.5a5 5 0 0 1-5 5H18z', ...solid }),
    s('path', { d: 'M10.5 21c-2.4 4.2-3 8.5-1.2 13', stroke: ink.stroke, 'stroke-width': 5, 'stroke-linecap': 'round', fill: 'none' }),
    s('path', { d: 'M10.5 21c-2.4 4.2-3 8.5-1.2 13', stroke: ink.fill, 'stroke-width': 2.4, 'stroke-linecap': 'round', fill: 'none' }),
    s('circle', { cx: 14.5, cy: 19, r: 7, ...solid }),
    s('ellipse', { cx: 19.5, cy: 19.5, rx: 4, ry: 6, ...solid }),
    s('path', { d: 'M10.8 25.2l-4 2.3', stroke: ink.detail, 'stroke-width': 1.8, 'stroke-linecap': 'round', fill: 'none' }),
    s('circle', { cx: 12.2, cy: 17.2, r: 1.1, fill: ink.detail, stroke: ink.stroke, 'stroke-width': 0.5 }));
}

/** The seat's symbol as an SVG shape (so it reads without colour). */
function symbolShape(seat, cx, cy, r, extra = {}) {
  const ink = INK[seat];
  const style = { fill: ink.fill, stroke: ink.stroke, 'stroke-width': Math.max(1, r / 4), ...extra };
  switch (seat) {
    case 'blue':
      return s('path', { d: `M${cx} ${cy - r}L${cx + r} ${cy + r * 0.8}H${cx - r}Z`, ...style });
    case 'yellow':
      return s('rect', { x: cx - r * 0.85, y: cy - r * 0.85, width: r * 1.7, height: r * 1.7, ...style });
    case 'green':
      return s('path', { d: `M${cx} ${cy - r}L${cx + r} ${cy}L${cx} ${cy + r}L${cx - r} ${cy}Z`, ...style });
    default:
      return s('circle', { cx, cy, r: r * 0.9, ...style });
  }
}

function symbolIcon(seat, size = 16) {
  return s('svg', { viewBox: '0 0 20 20', width: size, height: size, class: 'cj-symbol', 'aria-hidden': 'true' }, symbolShape(seat, 10, 10, 8));
}

function seatName(seat, t) {
  return `${SYMBOLS[seat]} ${t(`cj.seat.${seat}`)}`;
}

function playerLabel(table, seat, t) {
  const p = table.settings.players[seat];
  if (table.remote && p.kind === 'person') {
    const view = table.remote.seats?.[seat];
    if (seat === table.remote.seat) return t('cj.net.you');
    if (view && view.cpu_playing) return t('cj.net.standIn');
    return view && view.taken ? t('cj.person') : t('cj.net.free');
  }
  return p.kind === 'person' ? t('cj.person') : t('cj.cpu', { level: t(`cj.level.${p.level}`) });
}

// ----- setup ---------------------------------------------------------------------------------

const radios = (name, ...choice) => segmented({ group: `cj-setup-${name}`, input: `cj-${name}` }, ...choice);

function toggle(id, checked, label, hint, onchange) {
  return h('label', { class: 'toggle', id: `${id}-label` },
    h('input', { type: 'checkbox', id, checked, onchange: (e) => onchange(e.target.checked) }),
    h('span', {}, label, hint ? h('small', { class: 'muted' }, ' — ', hint) : null));
}

function renderSetupPage(state, { t, intent }) {
  const cj = state.chaturaji;
  const setup = cj.setup;
  const set = (key) => (value) => intent({ type: 'chaturaji/setting', key, value });
  // Typing only updates the state (the field already shows the text), so focus stays put.
  const typed = (key) => (value) => intent({ type: 'chaturaji/setting', key, value, quiet: true });
  const seatRows = SEATS.map((seat) =>
    h('div', { class: 'cj-seat-row', 'data-seat': seat },
      h('span', { class: 'cj-seat-name' }, symbolIcon(seat, 20), ' ', t(`cj.seat.${seat}`)),
      h('select', {
        id: `cj-seat-${seat}`,
        'aria-label': t('cj.setup.seatOf', { seat: t(`cj.seat.${seat}`) }),
        onchange: (e) => intent({ type: 'chaturaji/seat', seat, value: e.target.value }),
      },
      h('option', { value: 'person', selected: setup.seats[seat] === 'person' }, t('cj.person')),
      CPU_LEVELS.map((level) => h('option', { value: level, selected: setup.seats[seat] === level }, t('cj.cpu', { level: t(`cj.level.${level}`) }))))));
  const number = (id, key, label) => h('label', { class: 'cj-number' }, label,
    h('input', { type: 'number', min: 1, max: 999, id, value: setup[key], oninput: (e) => typed(key)(e.target.value) }));
  return screen('chaturaji-setup', t('cj.setup.title'), t('nav.back'), () => intent({ type: 'chaturaji/setup-back' }),
    h('p', { class: 'muted' }, t('cj.setup.intro')),
    // Start comes right after the seats (the dice and the rest below it), on the first screen.
    h('fieldset', { class: 'group', id: 'cj-seats' }, h('legend', {}, t('cj.setup.players')),
      h('div', { class: 'cj-seat-grid' }, seatRows),
      h('p', { class: 'muted hint' }, t('cj.setup.players.hint'))),
    cj.error ? h('p', { class: 'error', role: 'alert', id: 'cj-error' }, cjErrorText(cj.error, t)) : null,
    h('button', { type: 'button', class: 'action accent big', id: 'cj-start', onclick: () => intent({ type: 'chaturaji/start' }) }, t('cj.setup.start')),
    radios('dice', [['cubic', t('cj.dice.cubic')], ['long', t('cj.dice.long')]], setup.dice, t('cj.setup.dice'), set('dice')),
    h('p', { class: 'muted hint' }, t(setup.dice === 'long' ? 'cj.dice.long.hint' : 'cj.dice.cubic.hint')),
    // The rest of the table's rules, folded: a newcomer starts with the defaults.
    h('details', {
      class: 'group cj-advanced', id: 'cj-advanced', open: setup.advanced || cj.error ? true : null,
      ontoggle: (e) => intent({ type: 'chaturaji/setting', key: 'advanced', value: e.target.open, quiet: true }),
    },
    h('summary', { id: 'cj-advanced-toggle' }, t('cj.setup.advanced')),
    radios('promotion', [['only_missing_types', t('cj.promotion.missing')], ['always', t('cj.promotion.always')]], setup.promotion, t('cj.setup.promotion'), set('promotion')),
    toggle('cj-boat-triumph', setup.boat_triumph, t('cj.setup.triumph'), t('cj.setup.triumph.hint'), set('boat_triumph')),
    toggle('cj-throne-points', setup.throne_points, t('cj.setup.throne'), t('cj.setup.throne.hint'), set('throne_points')),
    radios('dice-use', [['may_leave_unused', t('cj.diceUse.may')], ['must_use_all', t('cj.diceUse.must')]], setup.dice_use, t('cj.setup.diceUse'), set('dice_use')),
    radios('turn-time', [['none', t('cj.time.none')], ['seconds30', t('cj.time.30')], ['seconds60', t('cj.time.60')]], setup.turn_time, t('cj.setup.time'), set('turn_time')),
    h('div', { class: 'cj-numbers' },
      number('cj-round-limit', 'round_limit', t('cj.setup.rounds')),
      number('cj-no-capture', 'no_capture_rounds', t('cj.setup.noCapture'))),
    radios('first-seat', SEATS.map((seat) => [seat, seatName(seat, t)]), setup.first_seat, t('cj.setup.first'), set('first_seat')),
    radios('first-rule', [['rotating', t('cj.first.rotating')], ['fixed', t('cj.first.fixed')]], setup.first_seat_rule, t('cj.setup.firstRule'), set('first_seat_rule')),
    h('dl', { class: 'cj-fixed' },
      h('dt', {}, t('cj.setup.leave')), h('dd', {}, t('cj.setup.leave.value')),
      h('dt', {}, t('cj.setup.ties')), h('dd', {}, t('cj.setup.ties.value')))),
    h('fieldset', { class: 'group cj-net', id: 'cj-net' },
      h('legend', {}, t('cj.net.title')),
      cj.linked ? linkedLine(cj.linked, t) : null,
      h('p', { class: 'muted hint' }, t('cj.net.hint')),
      h('label', { class: 'cj-number' }, t('cj.net.url'),
        h('input', { type: 'url', id: 'cj-net-url', placeholder: 'ws://192.168.1.20:40123/', value: setup.net_url, oninput: (e) => typed('net_url')(e.target.value) })),
      h('button', { type: 'button', class: 'action', id: 'cj-net-create', onclick: () => intent({ type: 'chaturaji/net-create' }) }, t('cj.net.create')),
      h('div', { class: 'cj-join' },
        h('label', { class: 'cj-number' }, t('cj.net.code'),
          h('input', { type: 'text', id: 'cj-net-code', autocapitalize: 'characters', value: setup.net_code, oninput: (e) => typed('net_code')(e.target.value) })),
        h('button', { type: 'button', class: 'action', id: 'cj-net-join', onclick: () => intent({ type: 'chaturaji/net-join' }) }, t('cj.net.join'))),
      lanOptions(cj, { t, intent }, typed)));
}

/** A join link the app was opened with: which table, where, and the button that joins it. */
function linkedLine(link, t) {
  const key = link.kind === 'chaturaji_lan' ? 'cj.linked.lan' : link.server ? 'cj.linked.server' : 'cj.linked.online';
  return h('p', { class: 'notice', id: 'cj-linked', role: 'status' }, t(key, { code: link.code, server: link.server ?? '' }));
}

/**
 * How others join this table while seats are free: the link (with its QR code for a phone's
 * camera) and a button to share or copy it. An online table's link names its server; a table
 * hosted here has its join code's link. `id` tells the two apart in tests.
 */
function inviteBox(state, { t, intent }, { url, qr, code, id }) {
  return h('div', { class: 'cj-invite', id },
    qr ? h('figure', { class: 'lan-qr-box' }, qrCode(qr, { id: `${id}-qr`, label: t('cj.invite.qr', { code }) }),
      h('figcaption', { class: 'muted' }, t('cj.invite.caption'))) : null,
    h('p', { class: 'join-link', id: `${id}-url` }, url),
    h('div', { class: 'share-row' },
      h('button', { type: 'button', class: 'action', id: 'cj-share', onclick: () => intent({ type: 'chaturaji/share' }) }, shareLabel(t, 'cj.invite.copy')),
      flashLine(state, 'cj-share', t)));
}

/** Host a table on this Wi-Fi, or find one (the LAN list's Chaturaji entries) or type its join code. */
function lanOptions(cj, ctx, typed) {
  const { t, intent } = ctx;
  const setup = cj.setup;
  const tables = cj.lanTables;
  let found = null;
  if (tables) {
    found = tables.hosts.length
      ? h('ul', { class: 'lan-hosts', id: 'cj-lan-tables' }, tables.hosts.map((host) => h('li', {},
        h('button', {
          type: 'button',
          class: 'action',
          'data-host': host.id,
          disabled: !host.compatible,
          title: host.reason ?? '',
          onclick: () => intent({ type: 'chaturaji/lan-join', id: host.id }),
        }, t('cj.lan.joinEntry', { name: host.name })),
        h('span', { class: 'muted' }, ' ', host.address ?? '', host.reason ? ` · ${host.reason}` : ''))))
      : h('p', { class: 'muted', id: 'cj-lan-none' }, t(tables.searching ? 'cj.lan.none' : 'cj.lan.searching'));
  }
  return h('div', { class: 'cj-lan', id: 'cj-lan' },
    h('h3', {}, t('cj.lan.title')),
    h('p', { class: 'muted hint' }, t('cj.lan.hint')),
    h('label', { class: 'cj-number' }, t('cj.lan.name'),
      h('input', { type: 'text', id: 'cj-lan-name', maxlength: 40, value: setup.lan_name, oninput: (e) => typed('lan_name')(e.target.value) })),
    h('div', { class: 'actions wrap' },
      h('button', { type: 'button', class: 'action', id: 'cj-lan-host', onclick: () => intent({ type: 'chaturaji/lan-host' }) }, t('cj.lan.host')),
      h('button', { type: 'button', class: 'action', id: 'cj-lan-browse', onclick: () => intent({ type: 'chaturaji/lan-browse' }) }, t('cj.lan.browse'))),
    found,
    h('div', { class: 'cj-join' },
      h('label', { class: 'cj-number' }, t('cj.lan.joinCode'),
        h('input', { type: 'text', id: 'cj-lan-code', autocapitalize: 'characters', placeholder: 'XXXXXX-XXXXXX-XXXXXX', value: setup.lan_code, oninput: (e) => typed('lan_code')(e.target.value) })),
      h('button', { type: 'button', class: 'action', id: 'cj-lan-join-code', onclick: () => intent({ type: 'chaturaji/lan-join-code' }) }, t('cj.lan.joinWithCode'))));
}

function cjErrorText(error, t) {
  if (error.field) return t(`cj.error.${error.field}`);
  return errorText(error, t);
}

// ----- the board -----------------------------------------------------------------------------

function renderBoardSvg(state, { t, intent }) {
  const cj = state.chaturaji;
  const table = cj.table;
  const facing = cj.facing;
  const canAct = personToMove(table) && Boolean(table.dice);
  const selected = canAct ? cj.selected : null;
  const targets = new Set(canAct ? destinations(table, selected, cj.die) : []);
  const movers = canAct ? movable(table, cj.die) : new Set();
  const occupied = new Map(table.pieces.map((p) => [p.square, p]));
  const last = [...table.log].reverse().find((e) => e.t === 'moved');
  // A piece tapped while there is nothing to play: where it could go.
  const reach = cj.inspect && !canAct ? reachOf(table, cj.inspect) : null;
  // Every seat's last move since the seat to move last had the dice, outlined in its colour.
  const recent = new Map();
  for (const m of recentMoves(table)) {
    for (const square of [m.mv.from, m.mv.to]) recent.set(square, [...(recent.get(square) ?? []), m.seat]);
  }
  const marks = new Map();
  for (const m of promotionMarks()) {
    if (!marks.has(m.square)) marks.set(m.square, []);
    marks.get(m.square).push(m);
  }
  const squares = [];
  const pieces = [];
  for (let rank = 8; rank >= 1; rank -= 1) {
    for (let f = 0; f < 8; f += 1) {
      const square = `${'abcdefgh'[f]}${rank}`;
      const [col, row] = viewCell(square, facing);
      const x = col * 100;
      const y = row * 100;
      const light = (f + rank) % 2 === 1;
      const piece = occupied.get(square);
      const label = piece
        ? t('cj.square.piece', { square, seat: t(`cj.seat.${piece.seat}`), role: t(`cj.role.${piece.role}`) })
        : square;
      const layers = [s('rect', { x, y, width: 100, height: 100, class: light ? 'light' : 'dark' })];
      // Promotion marks: a faint icon of the type, in the colour of the seat promoting there.
      (marks.get(square) ?? []).forEach((m) => {
        const [dx, dy] = screenDirection(m.seat, facing);
        // Put the mark on the side of the square facing the board's edge.
        const mx = x + 50 + dx * 33;
        const my = y + 50 + dy * 33;
        layers.push(s('g', { class: 'cj-promo', 'data-promo': `${m.seat}-${m.role}`, transform: `translate(${mx - 11} ${my - 11}) scale(0.5)`, opacity: 0.55, 'pointer-events': 'none' }, pieceArt(m.seat, m.role)));
      });
      if (last && (last.mv.from === square || last.mv.to === square)) layers.push(s('rect', { x, y, width: 100, height: 100, class: 'hl-last' }));
      (recent.get(square) ?? []).forEach((seat, i) => layers.push(s('rect', {
        x: x + 5 + i * 6, y: y + 5 + i * 6, width: 90 - i * 12, height: 90 - i * 12, rx: 6,
        class: 'cj-recent', 'data-recent': seat, stroke: INK[seat].fill,
      })));
      if (selected === square) layers.push(s('rect', { x, y, width: 100, height: 100, class: 'hl-selected' }));
      else if (movers.has(square) && !selected) layers.push(s('rect', { x: x + 4, y: y + 4, width: 92, height: 92, class: 'cj-movable' }));
      if (reach) {
        if (square === cj.inspect) layers.push(s('rect', { x, y, width: 100, height: 100, class: 'hl-selected cj-inspected' }));
        if (reach.moves.includes(square)) layers.push(s('circle', { cx: x + 50, cy: y + 50, r: 15, class: 'hl-dest cj-reach' }));
        if (reach.captures.includes(square)) layers.push(s('circle', { cx: x + 50, cy: y + 50, r: 44, class: 'hl-capture cj-reach' }));
      }
      if (targets.has(square)) {
        layers.push(piece
          ? s('circle', { cx: x + 50, cy: y + 50, r: 44, class: 'hl-capture' })
          : s('circle', { cx: x + 50, cy: y + 50, r: 15, class: 'hl-dest' }));
      }
      // The left edge names ranks and the bottom edge files when Red or Yellow faces the viewer.
      const [onLeft, onBottom] = facing === 'red' || facing === 'yellow' ? [String(rank), 'abcdefgh'[f]] : ['abcdefgh'[f], String(rank)];
      layers.push(...cornerLabels(x, y, light, col === 0 ? onLeft : null, row === 7 ? onBottom : null));
      squares.push(s('g', {
        class: `sq ${light ? 'light' : 'dark'}${targets.has(square) ? ' target' : ''}${movers.has(square) ? ' movable' : ''}`,
        'data-square': square,
        role: 'button',
        'aria-label': label,
        'aria-pressed': selected === square ? 'true' : null,
        tabindex: '-1',
        onclick: () => intent({ type: 'chaturaji/square', square }),
      }, layers));
      if (piece) {
        const frozen = table.resigned[piece.seat];
        const art = [s('g', { transform: `translate(${x + 50 - 22.5 * PIECE_SCALE} ${y + 52 - 23.3 * PIECE_SCALE}) scale(${PIECE_SCALE})` }, pieceArt(piece.seat, piece.role)),
          symbolShape(piece.seat, x + 84, y + 16, 11, { class: 'cj-badge' })];
        if (piece.role === 'pawn') {
          const [dx, dy] = screenDirection(piece.seat, facing);
          const cx = x + 50 + dx * 40;
          const cy = y + 50 + dy * 40;
          // A small arrowhead pointing the way the pawn moves.
          const px = -dy;
          const py = dx;
          art.push(s('path', { class: 'cj-pawn-dir', d: `M${cx + dx * 8} ${cy + dy * 8}L${cx - dx * 6 + px * 9} ${cy - dy * 6 + py * 9}L${cx - dx * 6 - px * 9} ${cy - dy * 6 - py * 9}Z`, fill: INK[piece.seat].fill, stroke: INK[piece.seat].stroke, 'stroke-width': 2 }));
        }
        pieces.push(s('g', { class: `piece${frozen ? ' cj-frozen' : ''}`, 'data-piece-square': square, 'data-piece': `${piece.seat}-${piece.role}`, 'pointer-events': 'none' }, art));
      }
    }
  }
  const svg = s('svg', {
    viewBox: '0 0 800 800',
    class: `board cj-board theme-${state.settings.theme}`,
    id: 'cj-board',
    role: 'group',
    'aria-label': t('cj.board.label', { seat: t(`cj.seat.${facing}`) }),
    'data-facing': facing,
  }, s('g', { class: 'squares' }, squares), s('g', { class: 'pieces' }, pieces));
  attachDrag(svg, {
    squareAt: (x, y) => squareAtCell(Math.floor(x / 100), Math.floor(y / 100), facing),
    canDrag: (from) => personToMove(table) && movable(table, cj.die).has(from),
    drop: (from, to) => intent({ type: 'chaturaji/drop', from, to }),
    select: (square) => intent({ type: 'chaturaji/select', square }),
  });
  return svg;
}

// ----- dice, scores, log ---------------------------------------------------------------------

const PIPS = {
  1: [[50, 50]],
  2: [[28, 28], [72, 72]],
  3: [[26, 26], [50, 50], [74, 74]],
  4: [[28, 28], [72, 28], [28, 72], [72, 72]],
  5: [[26, 26], [74, 26], [50, 50], [26, 74], [74, 74]],
  6: [[28, 24], [72, 24], [28, 50], [72, 50], [28, 76], [72, 76]],
};

function dieFace(face) {
  return s('svg', { viewBox: '0 0 100 100', width: 44, height: 44, class: 'cj-die-face', 'aria-hidden': 'true' },
    s('rect', { x: 4, y: 4, width: 92, height: 92, rx: 16, class: 'cj-die-body' }),
    (PIPS[face] ?? []).map(([cx, cy]) => s('circle', { cx, cy, r: 9, class: 'cj-pip' })));
}

function dieCard(table, die, cj, { t, intent }) {
  const used = die.state.state === 'used';
  const dead = !die.usable && !used;
  const pieces = new Set(die.moves.map((m) => m.from)).size;
  const status = used
    ? t('cj.die.used')
    : die.usable
      ? t('cj.die.allows', { count: die.moves.length, pieces })
      : t('cj.die.unusable', { reason: t(`cj.unusable.${die.reason ?? 'blocked'}`) });
  const chosen = cj.die === die.index;
  // With a piece picked, the dice that move it say so.
  const forSelected = !used && cj.selected && die.moves.some((m) => m.from === cj.selected);
  return h('button', {
    type: 'button',
    class: `cj-die${used ? ' used' : ''}${dead ? ' unusable' : ''}${chosen ? ' chosen' : ''}${forSelected ? ' for-selected' : ''}`,
    'data-for-selected': forSelected ? 'true' : null,
    id: `cj-die-${die.index}`,
    'data-face': die.face,
    'data-class': die.class,
    'data-usable': String(die.usable),
    'aria-pressed': chosen ? 'true' : 'false',
    disabled: !die.usable || !personToMove(table),
    onclick: () => intent({ type: 'chaturaji/die', index: die.index }),
  },
  dieFace(die.face),
  h('span', { class: 'cj-die-text' },
    h('strong', { class: 'cj-die-class' }, t('cj.die.face', { face: die.face, class: t(`cj.class.${die.class}`) })),
    h('span', { class: 'cj-die-status' }, status),
    forSelected ? h('span', { class: 'cj-die-for' }, t('cj.die.forSelected', { square: cj.selected })) : null));
}

function diceBar(state, ctx) {
  const { t, intent } = ctx;
  const cj = state.chaturaji;
  const table = cj.table;
  const mine = personToMove(table);
  const seat = table.to_move;
  const children = [];
  const reach = cj.inspect && !(mine && table.dice) ? reachOf(table, cj.inspect) : null;
  if (reach) {
    children.push(h('p', { class: 'cj-inspect', id: 'cj-inspect', 'data-role': reach.role },
      t('cj.inspect', { seat: seatName(reach.seat, t), square: cj.inspect }), ' ', h('strong', {}, t(`cj.moves.${reach.role}`))));
  }
  if (cj.stuck && !(mine && table.dice)) {
    // The turn passed at once; the roll and why stay here until the person taps on.
    children.push(h('div', { class: 'cj-stuck', id: 'cj-stuck', role: 'status', 'data-seat': cj.stuck.seat },
      h('p', {}, h('strong', {}, t('cj.stuck.title', { seat: seatName(cj.stuck.seat, t) }))),
      h('ul', {}, cj.stuck.dice.map((d) => h('li', {},
        d.class ? t('cj.die.face', { face: d.face, class: t(`cj.class.${d.class}`) }) : String(d.face),
        ' — ', t(`cj.unusable.${d.reason}`)))),
      h('button', { type: 'button', class: 'action accent', id: 'cj-stuck-ok', onclick: () => intent({ type: 'chaturaji/stuck-seen' }) }, t('cj.stuck.ok'))));
  }
  if (table.outcome) {
    children.push(h('p', { class: 'cj-turn', id: 'cj-turn' }, t('cj.over', { reason: endText(table.outcome.reason, t) })));
  } else if (table.remote && !table.remote.started) {
    children.push(h('p', { class: 'cj-turn', id: 'cj-turn' }, t('cj.net.waiting')));
  } else {
    children.push(h('p', { class: 'cj-turn', id: 'cj-turn', 'data-seat': seat },
      symbolIcon(seat, 18), ' ',
      mine ? t(table.dice ? 'cj.turn.move' : 'cj.turn.roll', { seat: t(`cj.seat.${seat}`) })
        : t(table.remote && !table.cpu_to_move ? 'cj.turn.other' : 'cj.turn.cpu', { seat: t(`cj.seat.${seat}`) }),
      table.time_left_ms !== null && table.time_left_ms !== undefined ? h('span', { class: 'cj-time', id: 'cj-time' }, ` · ${Math.ceil(table.time_left_ms / 1000)} s`) : null));
  }
  if (table.dice) children.push(h('div', { class: 'cj-dice', id: 'cj-dice' }, table.dice.map((d) => dieCard(table, d, cj, ctx))));
  const buttons = [];
  if (mine && !table.dice) buttons.push(h('button', { type: 'button', class: 'action accent big', id: 'cj-roll', onclick: () => intent({ type: 'chaturaji/roll' }) }, t('cj.roll')));
  if (mine && table.dice) {
    // Ending the turn while a die could still move a piece gives that move away: it asks first.
    const ask = confirmsActions(state.settings) && table.dice.some((d) => d.usable);
    buttons.push(h('button', { type: 'button', class: 'action', id: 'cj-end-turn', disabled: !table.can_end_turn, onclick: () => intent(ask ? { type: 'chaturaji/dialog', dialog: 'end-turn' } : { type: 'chaturaji/end-turn' }) },
      t(table.can_end_turn ? 'cj.endTurn' : 'cj.endTurn.mustUse')));
  }
  if (buttons.length) children.push(h('div', { class: 'actions' }, buttons));
  return h('div', { class: 'cj-dicebar', id: 'cj-dicebar' }, children);
}

function scoreTable(state, { t }) {
  const table = state.chaturaji.table;
  return h('table', { class: 'cj-scores', id: 'cj-scores' },
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t('cj.score.seat')), h('th', { scope: 'col' }, t('cj.score.player')), h('th', { scope: 'col', class: 'num' }, t('cj.score.points')))),
    h('tbody', {}, SEATS.map((seat) => {
      const toMove = !table.outcome && table.to_move === seat;
      const notes = [];
      if (!table.kings[seat]) notes.push(t('cj.score.noKing'));
      if (table.resigned[seat]) notes.push(t('cj.score.resigned'));
      else if (table.frozen[seat]) notes.push(t('cj.score.out'));
      return h('tr', { class: `${toMove ? 'to-move' : ''}`, id: `cj-score-${seat}`, 'data-seat': seat },
        h('td', {}, symbolIcon(seat, 16), ' ', t(`cj.seat.${seat}`), toMove ? h('span', { class: 'cj-arrow', 'aria-label': t('cj.score.toMove') }, ' ◀') : null),
        h('td', { class: 'muted' }, playerLabel(table, seat, t), notes.length ? ` · ${notes.join(' · ')}` : ''),
        h('td', { class: 'num cj-points', id: `cj-points-${seat}` }, String(table.scores[seat])));
    })));
}

function endText(reason, t) {
  return reason.t === 'chaturaji' ? t('cj.end.chaturaji', { seat: t(`cj.seat.${reason.seat}`) }) : t(`cj.end.${reason.t}`);
}

/** One line of the table's log, or null for events not worth a line. */
/** The alarm of a network table whose server or host showed a roll that does not verify. */
export function diceAlarm(table, t) {
  const alarm = table.remote?.dice_alarm;
  if (!alarm) return null;
  return h('p', { class: 'cj-dice-alarm error', id: 'cj-dice-alarm', role: 'alert', title: alarm.detail },
    h('strong', {}, t('cj.net.diceAlarmTitle')), ' ',
    t('cj.net.diceAlarm', { roll: alarm.roll }));
}

export function eventText(e, t) {
  const who = (seat) => `${SYMBOLS[seat]} ${t(`cj.seat.${seat}`)}`;
  switch (e.t) {
    case 'rolled':
      return t('cj.log.rolled', { seat: who(e.seat), a: e.dice[0].face, b: e.dice[1].face });
    case 'moved':
      return t('cj.log.moved', { seat: who(e.seat), role: t(`cj.role.${e.role}`), from: e.mv.from, to: e.mv.to });
    case 'captured':
      return t(e.kind === 'boat_triumph' ? 'cj.log.triumph' : 'cj.log.captured', { seat: who(e.by), victim: who(e.piece.seat), role: t(`cj.role.${e.piece.role}`), points: e.points });
    case 'throne':
      return t('cj.log.throne', { seat: who(e.seat), owner: who(e.throne_of), points: e.points });
    case 'promoted':
      return t('cj.log.promoted', { seat: who(e.seat), square: e.square, role: t(`cj.role.${e.role}`) });
    case 'die_discarded':
      return t('cj.log.discarded', { face: e.face, reason: t(`cj.unusable.${e.reason}`) });
    case 'chaturaji':
      return t('cj.log.chaturaji', { seat: who(e.seat), points: e.points });
    case 'resigned':
      return t('cj.log.resigned', { seat: who(e.seat) });
    case 'turn_skipped':
      return t('cj.log.skipped', { seat: who(e.seat) });
    case 'game_over':
      return t('cj.over', { reason: endText(e.outcome.reason, t) });
    default:
      return null;
  }
}

function logList(table, { t }) {
  const lines = table.log.map((e) => eventText(e, t)).filter(Boolean).slice(-8).reverse();
  return h('section', { class: 'cj-log-box' },
    h('h2', { class: 'cj-h2' }, t('cj.log.title')),
    h('ol', { class: 'cj-log', id: 'cj-log', reversed: true }, lines.map((line) => h('li', {}, line))));
}

function rankingDialog(state, { t, intent }) {
  const table = state.chaturaji.table;
  const rows = sharedPlaces(table.outcome.standings);
  return h('div', { class: 'overlay' },
    h('div', { class: 'dialog', id: 'cj-ranking', role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': 'cj-ranking-title' },
      h('h2', { id: 'cj-ranking-title' }, t('cj.ranking.title')),
      h('p', { id: 'cj-ranking-reason', class: 'muted' }, endText(table.outcome.reason, t)),
      h('ol', { class: 'cj-ranking' }, rows.map((r) => h('li', { 'data-seat': r.seat, 'data-place': r.place },
        h('strong', { class: 'cj-place' }, r.shared ? t('cj.ranking.shared', { place: r.place }) : t('cj.ranking.place', { place: r.place })), ' ',
        symbolIcon(r.seat, 16), ' ', t(`cj.seat.${r.seat}`), ' — ',
        t('cj.ranking.points', { points: r.points }),
        r.kept_king ? ` · ${t('cj.ranking.king')}` : '',
        r.resigned ? ` · ${t('cj.score.resigned')}` : ''))),
      h('div', { class: 'dialog-actions' },
        table.remote ? null : h('button', { type: 'button', class: 'action accent', id: 'cj-again', onclick: () => intent({ type: 'chaturaji/again' }) }, t('cj.again')),
        h('button', { type: 'button', class: 'action', id: 'cj-ranking-close', onclick: () => intent({ type: 'chaturaji/dialog', dialog: null }) }, t('cj.close')))));
}

function recordDialog(state, { t, intent }) {
  return h('div', { class: 'overlay' },
    h('div', { class: 'dialog', id: 'cj-record-dialog', role: 'dialog', 'aria-modal': 'true' },
      h('h2', {}, t('cj.record.title')),
      h('ol', { class: 'cj-record-list', id: 'cj-record-list' },
        state.chaturaji.table.log.map((e) => eventText(e, t)).filter(Boolean).map((line) => h('li', {}, line))),
      h('details', { class: 'cj-record-export' },
        h('summary', {}, t('cj.record.export')),
        h('p', { class: 'muted' }, t('cj.record.hint')),
        h('textarea', { id: 'cj-record', rows: 10, readonly: true, class: 'pgn' }, state.chaturaji.record ?? '')),
      h('div', { class: 'dialog-actions' },
        h('button', { type: 'button', class: 'action', id: 'cj-record-close', onclick: () => intent({ type: 'chaturaji/dialog', dialog: null }) }, t('cj.close')))));
}

function resignDialog(state, { t, intent }) {
  const table = state.chaturaji.table;
  const seat = table.to_move;
  return h('div', { class: 'overlay' },
    h('div', { class: 'dialog', id: 'cj-resign-dialog', role: 'dialog', 'aria-modal': 'true' },
      h('h2', {}, t('cj.resign.confirm', { seat: t(`cj.seat.${seat}`) })),
      h('div', { class: 'dialog-actions' },
        h('button', { type: 'button', class: 'action danger', id: 'cj-resign-yes', onclick: () => intent({ type: 'chaturaji/resign', seat }) }, t('cj.resign')),
        h('button', { type: 'button', class: 'action', id: 'cj-resign-cancel', onclick: () => intent({ type: 'chaturaji/dialog', dialog: null }) }, t('cj.cancel')))));
}

function endTurnDialog(state, { t, intent }) {
  return h('div', { class: 'overlay' },
    h('div', { class: 'dialog', id: 'cj-end-turn-dialog', role: 'dialog', 'aria-modal': 'true' },
      h('h2', {}, t('cj.endTurn.confirm')),
      h('p', {}, t('cj.endTurn.confirm.body')),
      h('div', { class: 'dialog-actions' },
        h('button', { type: 'button', class: 'action accent', id: 'cj-end-turn-yes', onclick: () => intent({ type: 'chaturaji/end-turn' }) }, t('cj.endTurn')),
        h('button', { type: 'button', class: 'action', id: 'cj-end-turn-cancel', onclick: () => intent({ type: 'chaturaji/dialog', dialog: null }) }, t('cj.cancel')))));
}

/** The invitation while seats are free (chaturajiInvite): the hosted table's or the online one's. */
function invitation(state, ctx) {
  const invite = chaturajiInvite(state.chaturaji);
  return invite ? inviteBox(state, ctx, { ...invite, id: invite.lan ? 'cj-lan-invite' : 'cj-invite' }) : null;
}

function renderTablePage(state, ctx) {
  const { t, intent } = ctx;
  const cj = state.chaturaji;
  const table = cj.table;
  const dialog = cj.dialog === 'ranking' && table.outcome ? rankingDialog(state, ctx)
    : cj.dialog === 'record' ? recordDialog(state, ctx)
      : cj.dialog === 'resign' && personToMove(table) ? resignDialog(state, ctx)
        : cj.dialog === 'end-turn' && personToMove(table) && table.dice ? endTurnDialog(state, ctx) : null;
  return screen('chaturaji', t('cj.title'), t('nav.back'), () => intent({ type: 'chaturaji/leave' }),
    h('p', { class: 'cj-status', id: 'cj-status' },
      h('span', { id: 'cj-round' }, t('cj.round', { round: table.round, limit: table.settings.round_limit })),
      ' · ', t(`cj.dice.${table.settings.dice}`)),
    diceAlarm(table, t),
    table.remote
      ? h('p', { class: 'cj-remote', id: 'cj-remote' },
        t('cj.net.room', { code: table.remote.code, seat: seatName(table.remote.seat, t) }),
        table.remote.connected ? null : h('span', { class: 'error' }, ' · ', t('cj.net.offline')),
        table.remote.started ? null : h('strong', { id: 'cj-waiting' }, ' · ', t('cj.net.waiting')))
      : null,
    hostedFor(cj, table)
      ? h('p', { class: 'cj-remote', id: 'cj-hosted' }, t('cj.lan.hosting', {
        address: cj.hosted.address, code: cj.hosted.room, join: cj.hosted.join_code ?? '—',
      }))
      : null,
    invitation(state, ctx),
    // Guests on the Wi-Fi do not see the table in their list: why, and the fallbacks above.
    hostedFor(cj, table) && cj.hosted.advert_problem
      ? h('p', { class: 'error', id: 'cj-advert-problem', role: 'alert' }, t(`cj.lan.advert.${cj.hosted.advert_problem.code}`))
      : null,
    h('div', { class: 'cj-layout' },
      h('div', { class: 'board-frame cj-frame' }, renderBoardSvg(state, ctx)),
      h('div', { class: 'cj-side' },
        diceBar(state, ctx),
        cj.error ? h('p', { class: 'error', role: 'alert', id: 'cj-error' }, cjErrorText(cj.error, t)) : null,
        scoreTable(state, ctx),
        logList(table, ctx),
        toggle('cj-turn-board', cj.turnBoard, t('cj.turnBoard'), null, () => intent({ type: 'chaturaji/turn-board' })),
        h('div', { class: 'actions wrap' },
          personToMove(table) ? h('button', { type: 'button', class: 'action', id: 'cj-resign', onclick: () => intent({ type: 'chaturaji/dialog', dialog: 'resign' }) }, t('cj.resign')) : null,
          table.outcome ? h('button', { type: 'button', class: 'action accent', id: 'cj-show-ranking', onclick: () => intent({ type: 'chaturaji/dialog', dialog: 'ranking' }) }, t('cj.ranking.title')) : null,
          table.remote ? null : h('button', { type: 'button', class: 'action', id: 'cj-show-record', onclick: () => intent({ type: 'chaturaji/show-record' }) }, t('cj.record.title')),
          h('button', { type: 'button', class: 'action', id: 'cj-new', onclick: () => intent({ type: 'chaturaji/setup' }) }, t('cj.newTable'))),
        h('p', { class: 'muted hint' }, t('cj.legend')))),
    dialog);
}

export function renderChaturaji(state, ctx) {
  const cj = state.chaturaji;
  if (!cj || cj.page === 'loading') {
    return screen('chaturaji', ctx.t('cj.title'), ctx.t('nav.back'), () => ctx.intent({ type: 'back' }), h('p', { class: 'muted' }, ctx.t('cj.loading')));
  }
  if (cj.page === 'table' && cj.table) return renderTablePage(state, ctx);
  return renderSetupPage(state, ctx);
}
