// End-to-end Chaturaji in the real app at phone size: one person (Red) and three CPU seats. The
// person rolls, sees each die's moves (or why a die is unusable), moves by taps, and watches the
// turn pass through Blue, Yellow and Green back to Red with the scores and round counter shown;
// the unfinished table comes back after the app is closed and started again; a network table is
// created on a real server (the seat of this device, the room code, waiting for the others).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { chooseSeat, dragPiece, menuShown, setValue } from './steps.mjs';
import { application, freePort, startDriver, waitFor, tempDir } from './webdriver.mjs';

let d;

before(async () => {
  const dataDir = await tempDir('chaturaji');
  d = await startDriver({ MAHARAJAH_DATA_DIR: dataDir });
  await d.open(390, 844);
});

after(async () => {
  if (d) await d.stop();
});

const q = (source, args = []) => d.script(source, args);
const turnSeat = () => q('return document.querySelector("#cj-turn")?.dataset.seat ?? null;');
const roundText = () => q('return document.querySelector("#cj-round")?.textContent ?? "";');
const dice = () => q(`return [...document.querySelectorAll("#cj-dice .cj-die")].map((b) => ({
  face: Number(b.dataset.face), cls: b.dataset.class, usable: b.dataset.usable === "true",
  unusable: b.classList.contains("unusable"), used: b.classList.contains("used"),
  status: b.querySelector(".cj-die-status").textContent }));`);
const points = () => q('return Object.fromEntries(["red","blue","yellow","green"].map((s) => [s, document.querySelector(`#cj-points-${s}`)?.textContent]));');

/** Seats the four players ("person" or a CPU level), Red, Blue, Yellow, Green in that order. */
/** Ends the turn; with a die still usable the app asks first (the confirmation setting), and it is confirmed. */
async function endTurn() {
  await d.tap('#cj-end-turn');
  await new Promise((r) => setTimeout(r, 150));
  if (await q('return Boolean(document.querySelector("#cj-end-turn-yes"));')) await d.tap('#cj-end-turn-yes');
}

async function chooseSeats(red, blue, yellow, green) {
  for (const [seat, value] of Object.entries({ red, blue, yellow, green })) await chooseSeat(d, seat, value);
}

/**
 * Plays Red's turn by taps: rolls, then plays dice that allow a move (first movable piece, first
 * target) and ends the turn if it is still Red's. Returns the dice seen after the roll and whether
 * a move was made.
 */
async function playRedTurn() {
  await d.tap('#cj-roll');
  await waitFor('the dice or the turn passing', async () => (await dice()).length === 2 || (await turnSeat()) !== 'red');
  const rolled = await dice();
  let moved = false;
  for (let i = 0; i < 2; i += 1) {
    if ((await turnSeat()) !== 'red') break;
    const usable = (await dice()).filter((x) => x.usable);
    if (!usable.length) break;
    const from = await q('return document.querySelector("#cj-board g.sq.movable")?.dataset.square ?? null;');
    assert.ok(from, 'a usable die marks the pieces it can move');
    const logBefore = await q('return document.querySelectorAll("#cj-log li").length;');
    await d.tap(`#cj-board g.sq[data-square="${from}"] > rect`);
    await waitFor(`${from} selected`, async () => (await q('return document.querySelector(`#cj-board g.sq[data-square="${arguments[0]}"]`)?.getAttribute("aria-pressed");', [from])) === 'true');
    const to = await q('return document.querySelector("#cj-board g.sq.target")?.dataset.square ?? null;');
    assert.ok(to, 'the selected piece shows where it may go');
    assert.ok(await q('return Boolean(document.querySelector("#cj-dice .cj-die.for-selected .cj-die-for"));'), 'a die that moves the selected piece says so');
    if (i === 0) await d.screenshot('chaturaji-selected-390x844.png');
    await d.tap(`#cj-board g.sq[data-square="${to}"] > rect`);
    await waitFor(`${from}-${to} played`, async () => (await q('return document.querySelector(`[data-piece-square="${arguments[0]}"]`)?.dataset.piece ?? null;', [to]))?.startsWith('red-')
      || (await q('return document.querySelectorAll("#cj-log li").length;')) !== logBefore);
    assert.match(await q('return document.getElementById("cj-log").textContent;'), new RegExp(`${from}–${to}`), 'the move is in the log');
    moved = true;
  }
  if ((await turnSeat()) === 'red' && (await q('return Boolean(document.querySelector("#cj-end-turn:not([disabled])"));'))) {
    await endTurn();
  }
  return { rolled, moved };
}

test('one person and three CPU seats: roll, move, scores and the turn going round', async () => {
  await menuShown(d);
  assert.equal(await q('return document.getElementById("menu-chaturaji").dataset.ready;'), 'true');
  await d.tap('#menu-chaturaji');
  await waitFor('the table setup', () => d.find('#cj-start'));
  // Every table setting is on the setup screen.
  for (const id of ['#cj-setup-dice', '#cj-setup-promotion', '#cj-boat-triumph', '#cj-throne-points', '#cj-setup-dice-use',
    '#cj-setup-turn-time', '#cj-round-limit', '#cj-no-capture', '#cj-setup-first-seat', '#cj-setup-first-rule']) {
    assert.ok(await q('return Boolean(document.querySelector(arguments[0]));', [id]), `${id} on the setup screen`);
  }
  assert.equal(await q('return document.getElementById("cj-boat-triumph").checked;'), true, 'boat triumph is on by default');
  assert.equal(await q('return document.getElementById("cj-throne-points").checked;'), false, 'throne points are off by default');
  await chooseSeats('person', 'greedy', 'medium', 'strong');
  // A bad round limit is refused with a message naming it.
  await setValue(d, '#cj-round-limit', '0');
  await d.tap('#cj-start');
  assert.match(await d.text(await waitFor('the error', () => d.find('#cj-error'))), /round limit/i);
  await setValue(d, '#cj-round-limit', '30');
  await d.screenshot('chaturaji-setup-390x844.png');
  await d.tap('#cj-start');
  await waitFor('the board', () => d.find('#cj-board'));

  assert.equal(await q('return document.querySelectorAll("#cj-board .piece").length;'), 32);
  assert.equal(await q('return document.querySelector(\'[data-piece-square="a5"]\').dataset.piece;'), 'blue-king');
  assert.equal(await q('return document.querySelector(\'g.sq[data-square="d1"]\').getAttribute("aria-label");'), 'd1, Red king');
  assert.equal(await q('return document.querySelectorAll("#cj-board .cj-pawn-dir").length;'), 16, 'every pawn shows its direction');
  assert.equal(await q('return document.querySelectorAll("#cj-board .piece .piece-art.elephant").length;'), 4, 'each seat\'s elephant is drawn as an elephant');
  assert.ok((await q('return document.querySelectorAll("#cj-board .cj-promo").length;')) >= 28, 'promotion squares are marked');
  assert.equal(await roundText(), 'Round 1 of 30');
  assert.equal(await turnSeat(), 'red');
  assert.deepEqual(await points(), { red: '0', blue: '0', yellow: '0', green: '0' });
  await q('window.scrollTo(0, 0);');
  await d.screenshot('chaturaji-start-390x844.png');

  // Before the roll a tap on a piece shows how it moves; a second tap hides it.
  await d.tap('#cj-board g.sq[data-square="b1"] > rect');
  await waitFor('the horse\'s moves', () => q('return document.querySelector("#cj-inspect")?.dataset.role === "horse";'));
  assert.deepEqual(await q('return [...document.querySelectorAll("#cj-board g.sq")].filter((g) => g.querySelector(".cj-reach")).map((g) => g.dataset.square).sort();'), ['a3', 'c3']);
  await d.tap('#cj-board g.sq[data-square="b1"] > rect');
  await waitFor('hidden again', async () => !(await q('return Boolean(document.querySelector("#cj-inspect"));')));
  // Red plays until it has moved a piece at least once (a roll can leave no die usable).
  let moved = false;
  let turns = 0;
  const seen = [];
  while (!moved && turns < 6) {
    turns += 1;
    const result = await playRedTurn();
    assert.equal(result.rolled.length === 2 || result.rolled.length === 0, true);
    for (const die of result.rolled) {
      assert.ok(die.cls, 'each die names the piece class it moves');
      if (die.unusable) assert.match(die.status, /unusable: /, 'an unusable die says why');
    }
    moved = result.moved;
    // The CPU seats play in turn, visibly, and hand the turn back to Red.
    const order = [];
    await waitFor('the turn back at Red', async () => {
      const seat = await turnSeat();
      if (seat && order[order.length - 1] !== seat) order.push(seat);
      if (seat === 'blue' && !seen.includes('cpu-shot')) {
        seen.push('cpu-shot');
        await d.screenshot('chaturaji-cpu-turn-390x844.png');
      }
      return seat === 'red' && (await q('return Boolean(document.querySelector("#cj-roll"));'));
    }, 60000);
    assert.ok(order.includes('green') || order.includes('yellow') || order.includes('blue'), `the CPU seats had their turns (${order.join(', ')})`);
    assert.equal(order[order.length - 1], 'red');
  }
  assert.ok(moved, 'Red moved a piece by taps');
  assert.equal(await roundText(), `Round ${turns + 1} of 30`, 'the round counter advanced once per round');
  const log = await q('return document.getElementById("cj-log").textContent;');
  assert.match(log, /Green rolled \d and \d/, 'the last CPU seat rolled');
  assert.ok((await q('return document.querySelectorAll("#cj-board .cj-recent[data-recent=red]").length;')) >= 2, 'Red\'s last move is outlined');
  await d.tap('#cj-show-record');
  await waitFor('the readable record', async () => (await q('return document.querySelectorAll("#cj-record-list li").length;')) > 2);
  assert.match(await q('return document.getElementById("cj-record-list").textContent;'), /Red rolled \d and \d/);
  await d.tap('#cj-record-close');
  const shown = await points();
  for (const seat of ['red', 'blue', 'yellow', 'green']) assert.match(shown[seat], /^\d+$/, `${seat}'s score is shown`);
  await q('window.scrollTo(0, 0);');
  await d.screenshot('chaturaji-390x844.png');
});

test('the unfinished table comes back after the app restarts', async () => {
  const round = await roundText();
  const pieces = await q('return [...document.querySelectorAll("#cj-board .piece")].map((p) => p.dataset.pieceSquare + p.dataset.piece).sort().join(" ");');
  await d.close();
  await d.open(390, 844);
  await menuShown(d);
  await d.tap('#menu-chaturaji');
  await waitFor('the table', () => d.find('#cj-board'));
  assert.equal(await roundText(), round);
  assert.equal(await q('return [...document.querySelectorAll("#cj-board .piece")].map((p) => p.dataset.pieceSquare + p.dataset.piece).sort().join(" ");'), pieces);
  assert.equal(await turnSeat(), 'red');
  // Turning the board to the person to move keeps Red (the only person) at the bottom.
  await d.tap('#cj-turn-board');
  await waitFor('the option on', async () => q('return document.getElementById("cj-turn-board").checked;'));
  assert.equal(await q('return document.getElementById("cj-board").dataset.facing;'), 'red');
});

test('a network table on a real server shows its code and waits for the other people', async () => {
  const port = await freePort();
  const serverBin = process.env.MAHARAJAH_SERVER ?? path.join(path.dirname(application), 'maharajah-server');
  const server = spawn(serverBin, ['--listen', `127.0.0.1:${port}`, '--memory'], { stdio: 'ignore' });
  try {
    await d.tap('#cj-new');
    await waitFor('the table setup', () => d.find('#cj-net-create'));
    await chooseSeats('person', 'person', 'greedy', 'greedy');
    // A bad address is refused with a message naming it.
    await setValue(d, '#cj-net-url', 'http://localhost');
    await d.tap('#cj-net-create');
    assert.match(await d.text(await waitFor('the error', () => d.find('#cj-error'))), /ws:\/\//);
    await setValue(d, '#cj-net-url', `ws://127.0.0.1:${port}/`);
    await waitFor('the server to listen', () => new Promise((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => { socket.end(); resolve(true); });
      socket.on('error', () => resolve(false));
    }), 20000);
    await d.tap('#cj-net-create');
    await waitFor('the network table', () => q('return Boolean(document.querySelector("#cj-remote"));'), 20000);
    const remote = await d.text(await d.find('#cj-remote'));
    assert.match(remote, /Room [A-Z0-9]+ · you play ● Red/);
    assert.ok(await q('return Boolean(document.querySelector("#cj-waiting"));'), 'waiting for Blue to join');
    assert.equal(await q('return document.querySelector("#cj-score-blue td.muted").textContent;'), 'Free seat');
    assert.equal(await q('return Boolean(document.querySelector("#cj-roll"));'), false, 'no roll before everyone is seated');
    await q('window.scrollTo(0, 0);');
    await d.screenshot('chaturaji-network-waiting-390x844.png');
    await d.tap('#back');
    await menuShown(d);
  } finally {
    server.kill('SIGTERM');
  }
});

test('two people on one device: the board turns to the person to move', async () => {
  await d.tap('#menu-chaturaji');
  await waitFor('the table', () => d.find('#cj-board'));
  await d.tap('#cj-new');
  await waitFor('the table setup', () => d.find('#cj-start'));
  await chooseSeats('person', 'person', 'random', 'random');
  await d.tap('#cj-start');
  await waitFor('the new table', async () => (await roundText()) === 'Round 1 of 30' && (await turnSeat()) === 'red');
  if (!(await q('return document.getElementById("cj-turn-board").checked;'))) await d.tap('#cj-turn-board');
  await waitFor('the option on', async () => q('return document.getElementById("cj-turn-board").checked;'));
  assert.equal(await q('return document.getElementById("cj-board").dataset.facing;'), 'red');
  await playRedTurn();
  await waitFor("Blue's turn", async () => (await turnSeat()) === 'blue');
  assert.equal(await q('return document.getElementById("cj-board").dataset.facing;'), 'blue', 'Blue sits at the bottom now');
  // Blue's king (a5) is on the bottom row, and Blue's pawns point up the screen.
  const kingY = await q('const r = document.querySelector(\'g.sq[data-square="a5"] > rect\').getBoundingClientRect(); const b = document.getElementById("cj-board").getBoundingClientRect(); return (r.top - b.top) / b.height;');
  assert.ok(kingY > 0.85, `a5 is on the bottom row (${kingY})`);
  assert.ok(await q('return Boolean(document.querySelector("#cj-roll"));'), 'Blue, a person, rolls on this device');
  await q('window.scrollTo(0, 0);');
  await d.screenshot('chaturaji-blue-facing-390x844.png');
});

test('a person moves by dragging a piece to where it may go, on the turned board', async () => {
  // Blue (a person, at the bottom) or, if Blue's dice allow nothing, the next person to move.
  let dragged = false;
  for (let turn = 0; turn < 6 && !dragged; turn += 1) {
    await waitFor('a person to roll', () => q('return Boolean(document.querySelector("#cj-roll"));'), 60000);
    const seat = await turnSeat();
    await d.tap('#cj-roll');
    await waitFor('the dice or the turn passing', async () => (await dice()).length === 2 || (await turnSeat()) !== seat);
    const from = await q('return document.querySelector("#cj-board g.sq.movable")?.dataset.square ?? null;');
    if ((await turnSeat()) !== seat || !from) {
      if (await q('return Boolean(document.querySelector("#cj-end-turn:not([disabled])"));')) await endTurn();
      continue;
    }
    assert.equal(await q('return document.getElementById("cj-board").dataset.facing;'), seat, 'the board faces the person to move');
    const pressed = () => q('return document.querySelector(`#cj-board g.sq[data-square="${arguments[0]}"]`)?.getAttribute("aria-pressed") ?? null;', [from]);
    // A tap shows where the piece may go; a second tap puts it down again.
    await d.tap(`#cj-board g.sq[data-square="${from}"] > rect`);
    await waitFor(`${from} selected`, async () => (await pressed()) === 'true');
    const to = await q('return document.querySelector("#cj-board g.sq.target")?.dataset.square ?? null;');
    assert.ok(to, 'the selected piece shows where it may go');
    await d.tap(`#cj-board g.sq[data-square="${from}"] > rect`);
    await waitFor(`${from} put down`, async () => (await pressed()) === null);
    const piece = await q('return document.querySelector(`[data-piece-square="${arguments[0]}"]`).dataset.piece;', [from]);
    await dragPiece(d, '#cj-board', from, to);
    await waitFor(`${from}-${to} played by dragging`, async () => (await q('return document.querySelector(`[data-piece-square="${arguments[0]}"]`)?.dataset.piece ?? null;', [to])) === piece);
    assert.match(await q('return document.getElementById("cj-log").textContent;'), new RegExp(`${from}–${to}`), 'the move is in the log');
    dragged = true;
  }
  assert.ok(dragged, 'a person moved a piece by dragging');
});

test('ending the turn while a die can still move a piece asks first; Cancel keeps the turn', async () => {
  // Four people on this device: no CPU delays, and a roll no die can use simply passes the turn on.
  if (!(await q('return Boolean(document.querySelector("#cj-new"));'))) {
    await d.tap('#back');
    await menuShown(d);
    await d.tap('#menu-chaturaji');
  }
  await d.tap('#cj-new');
  await waitFor('the table setup', () => d.find('#cj-start'));
  await chooseSeats('person', 'person', 'person', 'person');
  await d.tap('#cj-start');
  await waitFor('the new table', async () => (await roundText()) === 'Round 1 of 30' && q('return Boolean(document.querySelector("#cj-roll"));'));
  let seat = null;
  for (let roll = 0; roll < 12 && !seat; roll += 1) {
    const before = await turnSeat();
    await d.tap('#cj-roll');
    await waitFor('the dice or the turn passing', async () => (await dice()).length === 2 || (await turnSeat()) !== before);
    if ((await turnSeat()) === before && (await dice()).some((x) => x.usable)) seat = before;
    else await waitFor('the next person to roll', () => q('return Boolean(document.querySelector("#cj-roll"));'));
  }
  assert.ok(seat, 'a roll with a usable die within twelve rolls');
  assert.equal(await q('return document.querySelector("#cj-end-turn").disabled;'), false, 'the turn may end with dice unused');

  await d.tap('#cj-end-turn');
  await waitFor('the confirmation', () => d.find('#cj-end-turn-dialog'), 5000);
  assert.equal(await d.text(await d.find('#cj-end-turn-dialog h2')), 'End the turn with a usable die?');
  await d.screenshot('chaturaji-end-turn-confirm-390x844.png');
  await d.tap('#cj-end-turn-cancel');
  await waitFor('the dialog closed', async () => !(await q('return Boolean(document.querySelector("#cj-end-turn-dialog"));')));
  assert.equal(await turnSeat(), seat, 'Cancel keeps the turn');
  assert.ok((await dice()).some((x) => x.usable), 'and the dice');

  await d.tap('#cj-end-turn');
  await d.tap('#cj-end-turn-yes');
  await waitFor('the turn passed', async () => (await turnSeat()) !== seat);
});
