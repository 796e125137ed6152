// Chaturaji's part of the state (state.chaturaji): the table setup, the backend's table snapshot,
// the selection and the board's facing. Pure; the rules live in the backend — these helpers only
// read its snapshot (each die's moves, the seat to move).

export const SEATS = ['red', 'blue', 'yellow', 'green'];
export const SYMBOLS = { red: '●', blue: '▲', yellow: '■', green: '◆' };
export const CPU_LEVELS = ['random', 'greedy', 'medium', 'strong'];
const FILES = 'abcdefgh';

/** The table setup with the spec's defaults; one person (Red) against three CPU seats. */
export function defaultSetup() {
  return {
    seats: { red: 'person', blue: 'strong', yellow: 'strong', green: 'strong' },
    turn_time: 'none',
    dice: 'cubic',
    promotion: 'only_missing_types',
    boat_triumph: true,
    throne_points: false,
    dice_use: 'may_leave_unused',
    round_limit: 30,
    no_capture_rounds: 12,
    first_seat: 'red',
    first_seat_rule: 'rotating',
    net_url: 'ws://127.0.0.1:7878',
    net_code: '',
    lan_name: '',
    lan_code: '',
  };
}

function fresh(previous) {
  return {
    page: 'loading',
    setup: previous?.setup ?? defaultSetup(),
    table: null,
    selected: null,
    die: null,
    facing: previous?.facing ?? 'red',
    turnBoard: previous?.turnBoard ?? false,
    dialog: null,
    record: null,
    error: null,
    // A roll of this device's person that no die could use: shown until tapped away.
    stuck: null,
    hosted: previous?.hosted ?? null,
    lanTables: null,
    // A join link the app was opened with ({ kind, code, server }), until a table opens.
    linked: null,
  };
}

/** The backend's Settings for a setup; throws { code, message } on a number out of range. */
export function settingsOf(setup) {
  const players = {};
  for (const seat of SEATS) {
    const who = setup.seats[seat];
    players[seat] = who === 'person' ? { kind: 'person' } : { kind: 'cpu', level: who };
  }
  const whole = (value) => (/^\d+$/.test(String(value).trim()) ? Number(value) : NaN);
  const roundLimit = whole(setup.round_limit);
  const noCapture = whole(setup.no_capture_rounds);
  if (!(roundLimit > 0)) throw { code: 'bad_settings', field: 'round_limit', message: 'round_limit' };
  if (!(noCapture > 0)) throw { code: 'bad_settings', field: 'no_capture_rounds', message: 'no_capture_rounds' };
  return {
    players,
    turn_time: setup.turn_time,
    dice: setup.dice,
    promotion: setup.promotion,
    boat_triumph: Boolean(setup.boat_triumph),
    throne_points: Boolean(setup.throne_points),
    dice_use: setup.dice_use,
    round_limit: roundLimit,
    no_capture_rounds: noCapture,
    first_seat: setup.first_seat,
    first_seat_rule: setup.first_seat_rule,
  };
}

/** The setup for the next game at the same table: the first seat rotates when the rule says so. */
export function nextGameSetup(setup) {
  if (setup.first_seat_rule !== 'rotating') return setup;
  const next = SEATS[(SEATS.indexOf(setup.first_seat) + 1) % 4];
  return { ...setup, first_seat: next };
}

/** The setup a table was played with (to play again with the same seats and settings). */
export function setupOfTable(table) {
  const s = table.settings;
  const seats = {};
  for (const seat of SEATS) seats[seat] = s.players[seat].kind === 'person' ? 'person' : s.players[seat].level;
  return { ...defaultSetup(), ...s, seats, players: undefined };
}

/** A setup's server address, checked: ws://…, wss://… or host:port (throws { code, field } otherwise). */
export function serverUrl(setup) {
  const text = String(setup.net_url ?? '').trim();
  // "host:port" is read as ws://host:port, like the Online screen's address.
  const url = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `ws://${text}`;
  if (!/^wss?:\/\/[^\s/]+/.test(url) || !text) throw { code: 'bad_url', field: 'net_url', message: 'net_url' };
  return url;
}

/** The Chaturaji tables of a LAN host list (null when not browsing). */
export function lanTables(list) {
  if (!list || !list.browsing) return null;
  return { searching: Boolean(list.searching), hosts: list.hosts.filter((h) => h.chaturaji) };
}

/** What hosting shows on the table page when `table` is the hosted one (else null). */
export function hostedFor(cj, table) {
  const hosted = cj.hosted;
  if (!hosted || !table || !table.remote || table.remote.code !== hosted.room) return null;
  return hosted;
}

export function isPerson(table, seat) {
  return table.settings.players[seat].kind === 'person';
}

/** Whether a person on this device may act now (a person seat to move, the game not over). */
export function personToMove(table) {
  if (!table || table.outcome) return false;
  if (table.remote) return table.remote.started && table.to_move === table.remote.seat && !table.cpu_to_move;
  return !table.cpu_to_move && isPerson(table, table.to_move);
}

/** The usable dice of the turn, optionally only die `die`. */
function usableDice(table, die) {
  if (!table || !table.dice) return [];
  return table.dice.filter((d) => d.usable && (die === null || die === undefined || d.index === die));
}

/** Squares the piece on `from` may go to with the usable dice (or die `die` only). */
export function destinations(table, from, die = null) {
  if (!from) return [];
  const out = new Set();
  for (const d of usableDice(table, die)) for (const m of d.moves) if (m.from === from) out.add(m.to);
  return [...out];
}

/** Squares holding a piece that some usable die (or die `die`) can move. */
export function movable(table, die = null) {
  const out = new Set();
  for (const d of usableDice(table, die)) for (const m of d.moves) out.add(m.from);
  return out;
}

/** Which die plays from→to: the chosen die if it can, else the first usable die that can. */
export function dieFor(table, from, to, die = null) {
  const fits = (d) => d.moves.some((m) => m.from === from && m.to === to);
  const chosen = usableDice(table, die).find(fits);
  return chosen ? chosen.index : null;
}

/** What a tap on `square` means on the table: select, move, or clear. */
export function tapDecision(cj, square) {
  const table = cj.table;
  if (!personToMove(table) || !table.dice) {
    // Nothing to play now: a tap on a piece shows how it moves (again, or elsewhere: hides it).
    const here = Boolean(table?.pieces?.some((p) => p.square === square));
    return here && cj.inspect !== square ? { kind: 'inspect', square } : { kind: 'inspect', square: null };
  }
  const selected = cj.selected;
  if (selected && selected !== square && destinations(table, selected, cj.die).includes(square)) {
    return { kind: 'move', from: selected, to: square, die: dieFor(table, selected, square, cj.die) };
  }
  if (square !== selected && movable(table, cj.die).has(square)) return { kind: 'select', square };
  return { kind: 'deselect' };
}

/** A drag from `from` dropped on `to`. */
export function dropDecision(cj, from, to) {
  const table = cj.table;
  if (!personToMove(table) || !destinations(table, from, cj.die).includes(to)) return { kind: 'deselect' };
  return { kind: 'move', from, to, die: dieFor(table, from, to, cj.die) };
}

/**
 * Screen position (column, row from the top) of a square when `facing` sits at the bottom.
 * Red sits at the bottom (rank 1), Blue on the left (a-file), Yellow at the top, Green on the right.
 */
export function viewCell(square, facing = 'red') {
  const file = FILES.indexOf(square[0]);
  const rank = Number(square.slice(1)) - 1;
  switch (facing) {
    case 'blue':
      return [7 - rank, 7 - file];
    case 'yellow':
      return [7 - file, rank];
    case 'green':
      return [rank, file];
    default:
      return [file, 7 - rank];
  }
}

/** The square at screen cell (col, row) for `facing`; null off the board. */
export function squareAtCell(col, row, facing = 'red') {
  if (col < 0 || col > 7 || row < 0 || row > 7) return null;
  for (let f = 0; f < 8; f += 1) {
    for (let r = 1; r <= 8; r += 1) {
      const sq = `${FILES[f]}${r}`;
      const [c, w] = viewCell(sq, facing);
      if (c === col && w === row) return sq;
    }
  }
  return null;
}

/** The direction a seat's pawns move, on the board as Red sees it: [files, ranks]. */
export const PAWN_DIRECTION = { red: [0, 1], blue: [1, 0], yellow: [0, -1], green: [-1, 0] };

/** The same direction on screen, as [dx, dy] (y grows downward), for `facing`. */
export function screenDirection(seat, facing = 'red') {
  const [df, dr] = PAWN_DIRECTION[seat];
  const [c0, r0] = viewCell('d4', facing);
  const to = `${FILES[3 + df]}${4 + dr}`;
  const [c1, r1] = viewCell(to, facing);
  return [c1 - c0, r1 - r0];
}

const EDGE_PATTERN = ['boat', 'horse', 'elephant', 'king', 'king', 'elephant', 'horse', 'boat'];

/**
 * The promotion marks: for every edge square, the seats whose far edge it is and the type
 * marked there. Red's far edge is rank 8, Blue's the h-file, Yellow's rank 1, Green's the a-file.
 */
export function promotionMarks() {
  const marks = [];
  for (let i = 0; i < 8; i += 1) {
    marks.push({ square: `${FILES[i]}8`, seat: 'red', role: EDGE_PATTERN[i] });
    marks.push({ square: `h${i + 1}`, seat: 'blue', role: EDGE_PATTERN[i] });
    marks.push({ square: `${FILES[i]}1`, seat: 'yellow', role: EDGE_PATTERN[i] });
    marks.push({ square: `a${i + 1}`, seat: 'green', role: EDGE_PATTERN[i] });
  }
  return marks;
}

/** Places with ties: standings come ranked from the backend; equal places are shared. */
export function sharedPlaces(standings) {
  const counts = {};
  for (const s of standings) counts[s.place] = (counts[s.place] ?? 0) + 1;
  return standings.map((s) => ({ ...s, shared: counts[s.place] > 1 }));
}

/** The seat the board faces: the person to move when turning is on, else the last one it faced. */
function facingFor(cj, table) {
  if (!table) return cj.facing;
  if (table.remote) return table.remote.seat;
  if (cj.turnBoard && personToMove(table)) return table.to_move;
  if (!cj.turnBoard) {
    const people = SEATS.filter((s) => isPerson(table, s));
    return people.length === 1 ? people[0] : 'red';
  }
  return cj.facing;
}

/** Pure: the next state for a chaturaji/* action. */
export function reduceChaturaji(state, action) {
  const cj = state.chaturaji ?? fresh(null);
  const put = (next) => ({ ...state, chaturaji: { ...cj, ...next } });
  switch (action.type) {
    case 'chaturaji/open':
      return { ...state, screen: 'chaturaji', error: null, chaturaji: fresh(cj) };
    case 'chaturaji/entered':
      // A table found elsewhere (a lobby table that started): the screen opens on it.
      return reduceChaturaji({ ...state, screen: 'chaturaji', error: null, chaturaji: fresh(cj) }, { type: 'chaturaji/loaded', table: action.table });
    case 'chaturaji/setup':
      return put({ page: 'setup', table: null, selected: null, die: null, dialog: null, error: null, setup: action.setup ?? cj.setup });
    case 'chaturaji/seat':
      return put({ setup: { ...cj.setup, seats: { ...cj.setup.seats, [action.seat]: action.value } }, error: null });
    case 'chaturaji/setting':
      return put({ setup: { ...cj.setup, [action.key]: action.value }, error: null });
    case 'chaturaji/linked': {
      // A join link for a table: its code (and server) in the network join fields, named above them.
      const link = action.link;
      const setup = link.kind === 'chaturaji_lan'
        ? { ...cj.setup, lan_code: link.code }
        : { ...cj.setup, net_code: link.code, ...(link.server ? { net_url: link.server } : {}) };
      return put({ setup, linked: link, error: null });
    }
    case 'chaturaji/loaded': {
      const old = cj.table;
      const table = action.table;
      if (old && old.id === table.id && table.version < old.version) return state;
      const newGame = !old || old.id !== table.id;
      const ended = table.outcome && !(old && old.outcome && !newGame);
      const turned = newGame || old.to_move !== table.to_move || old.version !== table.version;
      const stuck = newGame ? null : stuckRoll(old, table) ?? cj.stuck ?? null;
      return put({
        page: 'table',
        table,
        stuck,
        selected: turned ? null : cj.selected,
        inspect: newGame || (table.dice && !old.dice) ? null : cj.inspect ?? null,
        die: turned && (!table.dice || newGame || old.to_move !== table.to_move) ? null : cj.die,
        facing: facingFor(cj, table),
        dialog: ended ? 'ranking' : newGame ? null : cj.dialog,
        error: null,
        linked: null,
      });
    }
    case 'chaturaji/inspect':
      return put({ inspect: action.square });
    case 'chaturaji/stuck-seen':
      return put({ stuck: null });
    case 'chaturaji/select':
      return put({ selected: action.square, error: null });
    case 'chaturaji/deselect':
      return cj.selected || cj.error ? put({ selected: null, error: null }) : state;
    case 'chaturaji/die':
      return put({ die: cj.die === action.index ? null : action.index, selected: null });
    case 'chaturaji/turn-board': {
      const turnBoard = !cj.turnBoard;
      return put({ turnBoard, facing: facingFor({ ...cj, turnBoard }, cj.table) });
    }
    case 'chaturaji/face':
      return put({ facing: action.seat });
    case 'chaturaji/dialog':
      return put({ dialog: action.dialog });
    case 'chaturaji/end-turn':
      return cj.dialog === 'end-turn' ? put({ dialog: null }) : state;
    case 'chaturaji/record':
      return put({ record: action.record, dialog: 'record' });
    case 'chaturaji/hosted':
      return put({ hosted: action.hosted });
    case 'chaturaji/lan-hosts':
      return put({ lanTables: lanTables(action.list) });
    case 'chaturaji/error':
      return put({ error: action.error, selected: null });
    default:
      return state;
  }
}

/** The last move of each seat since the seat to move had its previous turn (oldest first). */
export function recentMoves(table) {
  const log = table.log;
  const seat = table.to_move;
  let start = 0;
  let others = false;
  for (let i = log.length - 1; i >= 0; i -= 1) {
    if (log[i].t !== 'rolled') continue;
    if (log[i].seat !== seat) others = true;
    else if (others) {
      start = i;
      break;
    }
  }
  const bySeat = new Map();
  for (const e of log.slice(start)) if (e.t === 'moved') bySeat.set(e.seat, e);
  return [...bySeat.values()];
}

/** Whether `seat` is played on this device (a person seat here, or this device's network seat). */
function mine(table, seat) {
  return table.remote ? table.remote.seat === seat : isPerson(table, seat);
}

/**
 * A roll of this device's person that no die could use, new in `table` since `old`: the turn
 * passed at once, so the dice and why stay on screen until the person taps on. `{ seat, dice:
 * [{ face, reason }] }`, or null.
 */
export function stuckRoll(old, table) {
  const seen = old && old.id === table.id ? old.log?.length ?? 0 : 0;
  const log = table.log ?? [];
  let found = null;
  for (let i = 0; i < log.length; i += 1) {
    const e = log[i];
    if (e.t !== 'rolled' || !mine(table, e.seat)) continue;
    const discarded = [];
    let moved = false;
    let last = i;
    for (let j = i + 1; j < log.length && log[j].t !== 'rolled'; j += 1) {
      if (log[j].t === 'moved') moved = true;
      if (log[j].t === 'die_discarded' && (log[j].reason === 'blocked' || log[j].reason === 'no_piece')) {
        discarded.push({ face: log[j].face, class: e.dice[log[j].die]?.class ?? null, reason: log[j].reason });
        last = j;
      }
    }
    if (!moved && discarded.length === e.dice.length && last >= seen) found = { seat: e.seat, dice: discarded };
  }
  return found;
}

const STEPS = {
  king: [[1, 0], [-1, 0], [0, 1], [0, -1], [1, 1], [1, -1], [-1, 1], [-1, -1]],
  horse: [[1, 2], [2, 1], [-1, 2], [-2, 1], [1, -2], [2, -1], [-1, -2], [-2, -1]],
  boat: [[2, 2], [2, -2], [-2, 2], [-2, -2]],
};

/**
 * Where the piece on `square` could go on this board if its die came up (the rules, not the dice):
 * `{ role, seat, moves: [square], captures: [square] }`, or null on an empty square. The elephant
 * slides like a rook; king, horse and boat step or jump; a pawn goes one square ahead in its
 * seat's direction and takes one square diagonally ahead. Never onto a piece of its own seat.
 */
export function reachOf(table, square) {
  const at = new Map(table.pieces.map((p) => [p.square, p]));
  const piece = at.get(square);
  if (!piece) return null;
  const file = FILES.indexOf(square[0]);
  const rank = Number(square.slice(1)) - 1;
  const name = (f, r) => (f >= 0 && f < 8 && r >= 0 && r < 8 ? `${FILES[f]}${r + 1}` : null);
  const moves = [];
  const captures = [];
  const land = (target, { quiet = true, take = true } = {}) => {
    if (!target) return false;
    const other = at.get(target);
    if (!other) {
      if (quiet) moves.push(target);
      return true;
    }
    if (take && other.seat !== piece.seat) captures.push(target);
    return false;
  };
  if (piece.role === 'elephant') {
    for (const [df, dr] of [[1, 0], [-1, 0], [0, 1], [0, -1]]) {
      for (let k = 1; land(name(file + df * k, rank + dr * k)); k += 1);
    }
  } else if (piece.role === 'pawn') {
    const [df, dr] = PAWN_DIRECTION[piece.seat];
    land(name(file + df, rank + dr), { take: false });
    const sides = df === 0 ? [[1, 0], [-1, 0]] : [[0, 1], [0, -1]];
    for (const [sf, sr] of sides) land(name(file + df + sf, rank + dr + sr), { quiet: false });
  } else {
    for (const [df, dr] of STEPS[piece.role] ?? []) land(name(file + df, rank + dr));
  }
  return { role: piece.role, seat: piece.seat, moves, captures };
}

/**
 * How others join this table while seats are free, or null: a table hosted here invites with its
 * join code's link (`lan`), an online table with its room's link (with the server); either with
 * the link's QR code.
 */
export function chaturajiInvite(cj) {
  const table = cj.table;
  if (!table || !table.remote || table.remote.started) return null;
  if (hostedFor(cj, table)) {
    const hosted = cj.hosted;
    return hosted.join_url ? { lan: true, url: hosted.join_url, qr: hosted.qr, code: hosted.join_code } : null;
  }
  const invite = table.remote.invite;
  return invite ? { lan: false, url: invite.url, qr: invite.qr, code: table.remote.code } : null;
}

/** What the share sheet (or the clipboard) gets for this table's invitation, or null. */
export function chaturajiInviteText(cj, t) {
  const invite = chaturajiInvite(cj);
  return invite ? t(invite.lan ? 'cj.invite.lanText' : 'cj.invite.text', { code: invite.code, url: invite.url }) : null;
}

/**
 * The sound (and haptic) a new snapshot of the same table deserves after `old`, as the chess game
 * gives (soundFor's names): 'end' when the game has just ended, 'capture' when a piece left the
 * board, 'move' when a piece moved; null for a roll, an ended turn, a new table or nothing new.
 */
export function chaturajiSound(old, table) {
  if (!old || !table || old.id !== table.id || table.version <= old.version) return null;
  if (table.outcome && !old.outcome) return 'end';
  if (table.pieces.length < old.pieces.length) return 'capture';
  const where = (t) => t.pieces.map((p) => `${p.square}${p.seat}${p.role}`).sort().join(' ');
  return where(table) !== where(old) ? 'move' : null;
}
