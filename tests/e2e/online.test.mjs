// Online play end to end: a real maharajah-server on loopback, the real app creating a room, and
// a scripted second player (maharajah-netbot, the net crate's client) joining by the code. The
// app plays by taps, sees the replies, the server's clocks, both players' connection state, a
// pause with its countdown and early resume, the result dialog, and the server version in About;
// wrong codes are refused with clear words; a Maharajah room locks both armies in secret.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { tapMove } from './steps.mjs';
import { application, startDriver, waitFor, tempDir } from './webdriver.mjs';

const bin = path.dirname(application);
const serverBinary = process.env.MAHARAJAH_SERVER ?? path.join(bin, 'maharajah-server');
const botBinary = process.env.MAHARAJAH_NETBOT ?? path.join(bin, 'maharajah-netbot');

let d;
let server;
let serverUrl;
const bots = [];

/** Starts a process whose stdout lines are collected; `waitLine` waits for a matching one. */
function launch(file, args) {
  const child = spawn(file, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = [];
  readline.createInterface({ input: child.stdout }).on('line', (line) => lines.push(line));
  return {
    child,
    lines,
    async waitLine(what, pattern, timeoutMs = 15000) {
      return waitFor(what, async () => lines.find((l) => pattern.test(l)), timeoutMs);
    },
    send(line) {
      child.stdin.write(`${line}\n`);
    },
  };
}

/** A second player joining `code`; `cmd` sends a command and waits for its answer. */
async function bot(code) {
  const p = launch(botBinary, [serverUrl, code]);
  bots.push(p);
  await p.waitLine('the bot to take its seat', /^seated /);
  let answered = 0;
  p.cmd = async (line) => {
    const name = line.split(' ')[0];
    p.send(line);
    const answer = await p.waitLine(`the bot's answer to ${line}`, new RegExp(`^(ok|err) ${name}\\b`));
    // Consume the answer so the same command can be sent again.
    p.lines.splice(p.lines.indexOf(answer), 1);
    answered += 1;
    assert.match(answer, /^ok /, `${line}: ${answer}`);
  };
  return p;
}

before(async () => {
  server = launch(serverBinary, ['--memory', '--listen', '127.0.0.1:0']);
  const line = await server.waitLine('the server to listen', /listening on /);
  serverUrl = `ws://${line.split('listening on ')[1].trim()}/`;
  const dataDir = await tempDir('online');
  d = await startDriver({ MAHARAJAH_DATA_DIR: dataDir });
  await d.open(390, 844);
});

after(async () => {
  for (const b of bots) b.child.kill('SIGKILL');
  if (d) await d.stop();
  if (server) server.child.kill('SIGTERM');
});

const plies = () => d.script('return document.querySelectorAll("#moves .san").length;');
const exists = (css) => d.script('return Boolean(document.querySelector(arguments[0]));', [css]);
const textOf = (css) => d.script('const n = document.querySelector(arguments[0]); return n ? n.textContent : null;', [css]);
const attr = (css, name) => d.script('const n = document.querySelector(arguments[0]); return n ? n.getAttribute(arguments[1]) : null;', [css, name]);

const move = (from, to) => tapMove(d, from, to);

/** The Online screen with the test server's address typed in. */
async function onlineScreen() {
  if (!(await exists('#screen-online'))) {
    if (!(await exists('#menu-online'))) await d.script('document.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape" }));');
    await waitFor('the menu', () => exists('#menu-online'));
    await d.tap('#menu-online');
  }
  await waitFor('the Online screen', () => exists('#server-url'));
  const field = await d.find('#server-url');
  await d.wd('POST', `/session/${d.session}/element/${field}/clear`, {});
  await d.typeInto('#server-url', serverUrl);
  // Rooms by code live under their own tab (the lobby comes first).
  await d.tap('#online-tab-code');
  await waitFor('the Join by code tab', () => exists('#create-room'));
}

async function createRoom(choose) {
  await onlineScreen();
  await choose();
  await d.tap('#create-room');
  const code = await waitFor('the room code', async () => {
    const refused = await textOf('#online-error');
    if (refused) throw new Error(`the room was refused: ${refused}`);
    const c = await textOf('#room-code');
    return c && c.length === 8 ? c : null;
  });
  assert.match(code, /^[23456789ABCDEFGHJKLMNPQRSTUVWXYZ]{8}$/);
  return code;
}

/** A chess room with this device as White and a bot as Black on clock `time` (an id suffix);
 * returns the room code and the bot once the board shows. */
async function chessAgainstBot(time) {
  const code = await createRoom(async () => {
    await d.tap('#online-variant-chess');
    await d.tap(`#online-time-${time}`);
    await d.tap('#online-color-white');
  });
  const black = await bot(code);
  await waitFor('the board', () => exists('#board'));
  return { code, black };
}

test('a timed room: the opponent joins by code, moves both ways, pause and resume, mate, About', async () => {
  const code = await createRoom(async () => {
    await d.tap('#online-color-white');
    await d.tap('#online-time-5\\+3');
  });
  assert.ok(await exists('#copy-code'), 'the code can be copied');
  // The invitation: the QR code and the link that opens the app on the other device and joins.
  assert.ok(await exists('#net-qr path'), 'the QR code is drawn');
  const link = await textOf('#net-invite-url');
  assert.ok(link.startsWith(`maharajah://join/${code}?server=`), link);
  await waitFor('the server version', async () => /Connected to server \d+\.\d+\.\d+/.test(await textOf('#net-link')));
  await d.screenshot('online-code-390x844.png');

  const black = await bot(code);
  await waitFor('the board', () => exists('#board'));
  await waitFor('the opponent shown connected', async () => (await attr('#presence-black', 'data-connected')) === 'true');
  assert.equal(await attr('#presence-white', 'data-connected'), 'true');
  // The server's clock: White's runs from the start (a flag before the first move annuls).
  assert.match(await textOf('#clock-white'), /^(5:00|4:[45]\d)$/, 'the server clock');
  assert.equal(await textOf('#clock-black'), '5:00');
  assert.match(await attr('#clock-white', 'class'), /running/);
  assert.equal(await attr('#board', 'data-flipped'), 'false', 'White plays from the bottom');

  await move('f2', 'f3');
  await black.waitLine('the bot sees f2f3', /^moved 0 f2f3$/);
  // Black's clock runs on the server and on screen.
  await waitFor('Black\'s clock to run', async () => (await textOf('#clock-black')) !== '5:00');
  await black.cmd('play e7e5');
  await waitFor('the reply on the board', async () => (await attr('[data-piece-square="e5"]', 'data-piece')) === 'black-pawn');
  assert.equal(await plies(), 2);
  assert.equal(await textOf('#status'), 'Your move');

  // Our one pause: the countdown shows on our screen and the bot hears of it; both clocks stop.
  await d.tap('#net-pause');
  await waitFor('the pause countdown', () => exists('#pause-countdown'));
  await black.waitLine('the bot sees the pause', /^paused white$/);
  const frozen = await textOf('#clock-white');
  const first = await textOf('#pause-countdown');
  assert.match(first, /^[01]:\d\d$/);
  await new Promise((r) => setTimeout(r, 1500));
  assert.equal(await textOf('#clock-white'), frozen, 'the clock is frozen during the pause');
  const later = await textOf('#pause-countdown');
  assert.notEqual(later, first, 'the countdown runs');
  assert.equal(await exists('#net-pause'), false, 'no second pause');
  await d.screenshot('online-paused-390x844.png');
  await d.tap('#net-resume');
  await waitFor('the game resumes', async () => !(await exists('#pause-banner')));
  await black.waitLine('the bot sees the resume', /^resumed$/);

  await move('g2', 'g4');
  await black.waitLine('the bot sees g2g4', /^moved 2 g2g4$/);
  await black.cmd('play d8h4');
  const title = await waitFor('the result dialog', () => textOf('#net-result-title'));
  assert.equal(title, 'Black wins');
  assert.equal(await textOf('#net-result-reason'), 'by checkmate');
  await black.waitLine('the bot sees the end', /^over blackwins checkmate$/);
  await d.screenshot('online-result-390x844.png');

  // About shows the server's version while connected.
  await d.tap('#net-result-close');
  await d.script('document.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape" }));');
  await d.tap('#menu-about');
  const version = await waitFor('the server version', () => textOf('#server-version'));
  assert.match(version, /^\d+\.\d+\.\d+/);
  await d.tap('#back');
  await d.tap('#menu-online');
  await d.tap('#net-return');
  await waitFor('the finished game again', () => exists('#board'));
  await d.tap('#back');
  await waitFor('the Online screen after leaving', () => exists('#screen-online'));
  assert.equal(await exists('#net-return'), false, 'the game was left');
});

test('joining says what is wrong with a code', async () => {
  await onlineScreen();
  await d.typeInto('#join-code', 'ABC');
  await d.tap('#join-room');
  await waitFor('the bad code error', async () => (await attr('#online-error', 'data-code')) === 'bad_code');
  assert.match(await textOf('#online-error'), /8 letters and digits/);
  const field = await d.find('#join-code');
  await d.wd('POST', `/session/${d.session}/element/${field}/clear`, {});
  await d.typeInto('#join-code', '2222-2222');
  await d.tap('#join-room');
  await waitFor('the unknown room error', async () => (await attr('#online-error', 'data-code')) === 'room_not_found');
  assert.match(await textOf('#online-error'), /No room has this code/);
});

test('a Maharajah room: both armies are locked in secret and revealed together', async () => {
  const code = await createRoom(async () => {
    await d.tap('#online-variant-maharajah');
    await d.tap('#online-time-none');
    await d.tap('#online-color-white');
  });
  const black = await bot(code);
  // The opponent locks in first: a Maharajah in place of the queen and the a8 rook.
  await black.cmd('army Pa8,Nb8,Bc8,Md8,Ke8,Bf8,Ng8,Rh8,Pa7,Pb7,Pc7,Pd7,Pe7,Pf7,Pg7,Ph7');
  await waitFor('the opponent locked in', async () => /has locked in/.test(await textOf('#net-setup-theirs') ?? ''));
  assert.equal(await exists('#board'), false, 'no board before both are revealed');
  await d.tap('#net-build');
  await waitFor('the builder', () => exists('#preset-orthodox'));
  await d.tap('#preset-orthodox');
  await waitFor('the army ready', async () => !(await d.script('return document.querySelector("#lock-in").disabled;')));
  await d.script('window.__errors = []; window.addEventListener("error", (e) => window.__errors.push(e.message)); window.addEventListener("unhandledrejection", (e) => window.__errors.push(String(e.reason && (e.reason.stack || e.reason.message) || e.reason)));');
  await d.tap('#lock-in');
  try {
    await waitFor('both armies on the board', () => exists('#board'));
  } catch (e) {
    console.log('SCREEN', await textOf('#app'), 'BOT', black.lines, 'ERRORS', await d.script('return window.__errors;'));
    throw e;
  }
  assert.equal(await attr('[data-piece-square="d8"]', 'data-piece'), 'black-maharajah');
  assert.equal(await attr('[data-piece-square="d1"]', 'data-piece'), 'white-queen');
  await black.waitLine('the bot sees the start', /^started$/);
  await move('e2', 'e4');
  await black.waitLine('the bot sees e2e4', /^moved 0 e2e4$/);
  await black.cmd('resign');
  assert.equal(await waitFor('the result', () => textOf('#net-result-title')), 'White wins');
  assert.equal(await textOf('#net-result-reason'), 'by resignation');
});

test('the opponent drops while its clock runs: shown disconnected, and its one pause shields it', async () => {
  const { black } = await chessAgainstBot('5\\+3');
  await move('e2', 'e4');
  await black.waitLine('the bot sees e2e4', /^moved 0 e2e4$/);
  black.child.kill('SIGKILL');
  await waitFor('the opponent shown disconnected', async () => (await attr('#presence-black', 'data-connected')) === 'false');
  assert.equal(await textOf('#presence-black'), 'disconnected');
  await waitFor('the disconnect shield', async () => (await attr('#pause-banner', 'data-by')) === 'black');
  assert.match(await textOf('#pause-banner'), /Black lost the connection/);
  assert.match(await textOf('#pause-countdown'), /^[01]:\d\d$/);
  assert.equal(await exists('#net-resume'), false, 'only the one who paused resumes early');
  await d.screenshot('online-opponent-dropped-390x844.png');
  await d.tap('#back');
  await waitFor('the Online screen after leaving', () => exists('#screen-online'));
});

test('the app closes mid-game; opened again, it takes its seat back and plays on', async () => {
  const { code, black } = await chessAgainstBot('none');
  await move('e2', 'e4');
  await black.cmd('play e7e5');
  await waitFor('the reply', async () => (await plies()) === 2);
  await d.close();
  await d.open(390, 844);
  await waitFor('the menu', () => exists('#menu-online'));
  await d.tap('#menu-online');
  const offer = await waitFor('the kept room', () => textOf('#net-rejoin'));
  assert.equal(offer, `Rejoin room ${code}`);
  await d.tap('#net-rejoin');
  await waitFor('the game as the server has it', async () => (await plies()) === 2);
  assert.equal(await textOf('#status'), 'Your move');
  await move('g1', 'f3');
  await black.waitLine('the bot sees Nf3', /^moved 2 g1f3$/);
  await d.tap('#back');
  await waitFor('the Online screen after leaving', () => exists('#screen-online'));
  assert.equal(await exists('#net-rejoin'), false, 'a left room is no longer offered');
});

test('a premove in the opponent\'s time is played the moment our turn comes (issue 20, item 7)', async () => {
  const { black } = await chessAgainstBot('none');
  await move('e2', 'e4');
  await black.waitLine('the bot sees e2e4', /^moved 0 e2e4$/);
  // Black to move: our knight to f3 is set as a premove, marked, and not sent.
  await d.tap('g.sq[data-square="g1"] > rect');
  await d.tap('g.sq[data-square="f3"] > rect');
  assert.equal(await d.script('return document.querySelectorAll("#board .hl-premove").length;'), 2, 'the premove is marked');
  assert.equal(await attr('[data-piece-square="g1"]', 'data-piece'), 'white-knight', 'not played in the opponent\'s time');
  assert.equal(await plies(), 1);
  await black.cmd('play e7e5');
  await black.waitLine('the premove reaches the server as our move', /^moved 2 g1f3$/);
  await waitFor('the premove on the board', async () => (await attr('[data-piece-square="f3"]', 'data-piece')) === 'white-knight');
  assert.equal(await plies(), 3);
  assert.equal(await d.script('return document.querySelectorAll("#board .hl-premove").length;'), 0, 'the mark goes');
  await black.cmd('resign');
  assert.equal(await waitFor('the result', () => textOf('#net-result-title')), 'White wins');
  await d.tap('#net-result-close');
  await d.tap('#back');
  await waitFor('the Online screen after leaving', () => exists('#screen-online'));
});

test('a finished online game opens on the analysis board with an evaluation and a best line', async () => {
  const { black } = await chessAgainstBot('none');
  await move('f2', 'f3');
  await black.cmd('play e7e5');
  await waitFor('the reply', async () => (await plies()) === 2);
  await move('g2', 'g4');
  await black.waitLine('the bot sees g2g4', /^moved 2 g2g4$/);
  await black.cmd('play d8h4');
  await waitFor('the result dialog', () => textOf('#net-result-title'));
  await d.tap('#net-result-close');
  await d.tap('#net-analyse');
  await waitFor('the analysis board', () => exists('#screen-analysis #board'));
  const sans = await d.script('return [...document.querySelectorAll("#tree .san")].map((b) => b.dataset.san);');
  assert.deepEqual(sans, ['f3', 'e5', 'g4', 'Qh4#'], 'the network game\'s moves');
  await waitFor('the game over note', () => exists('#engine-over'));
  // One move back the engine finds the mate the opponent played.
  await d.tap('#an-back');
  const best = () => d.script('const pv = document.querySelector("#engine-lines .engine-line .pv"); return pv ? pv.textContent.split(" ")[0] : null;');
  await waitFor('a best line', async () => (await best()) === 'Qh4#', 30000);
  assert.match(await attr('#eval-bar', 'aria-valuetext'), /^#−\d+$/, 'the bar gives Black the mate');
  await d.screenshot('analysis-online-390x844.png');
  await d.tap('#back');
  await waitFor('the menu', () => exists('#menu-online'));
});
