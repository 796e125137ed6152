// End-to-end custom setup in the real app at phone size: the army builder's refusals (over
// budget, a rank beyond a gap), two variant armies built by taps in hidden pass-and-play (White's
// pieces never in the page while Black builds), a compound piece's move, the computer building
// its own army, a saved army kept across a restart, Learn's reach diagram, Spanish, and the
// ways back: a preset undone, and Back on the hand-over asking first.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startDriver, waitFor, tempDir } from './webdriver.mjs';

let d;

before(async () => {
  const dataDir = await tempDir('custom');
  d = await startDriver({ MAHARAJAH_DATA_DIR: dataDir });
  await d.open(390, 844);
});

after(async () => {
  if (d) await d.stop();
});

const spent = () => d.script('const b = document.querySelector("#budget"); return b && Number(b.dataset.spent);');
const pieceAt = (square) => d.script('const p = document.querySelector(`[data-piece-square="${arguments[0]}"]`); return p && p.getAttribute("data-piece");', [square]);
const whitePiecesInPage = () => d.script('return document.querySelectorAll("[data-piece^=\'white-\']").length;');

/** Goes back until the menu shows. One press at a time, each given time to re-render, so a
 * press is never aimed at a Back button that the previous press already took away. */
async function toMenu() {
  await waitFor('the menu', async () => {
    if (await d.script('return Boolean(document.querySelector("#screen-menu"));')) return true;
    await d.script('document.querySelector("#back")?.click();');
    await new Promise((resolve) => setTimeout(resolve, 250));
    return false;
  }, 15000);
  await waitFor('the menu', async () => (await d.findAll('.menu-item')).length === 10);
}

/** Taps `square` on the builder board and waits until the budget or refusal changes. */
async function tapSquare(square) {
  const before = await d.script('return document.querySelector("#budget").dataset.spent + "|" + (document.querySelector("#build-refusal")?.textContent ?? "");');
  await d.tap(`#builder-board g.sq[data-square="${square}"] > rect`);
  await waitFor(`${square} answered`, async () => (await d.script('return document.querySelector("#budget").dataset.spent + "|" + (document.querySelector("#build-refusal")?.textContent ?? "");')) !== before);
}

async function pick(role) {
  await d.tap(`#palette-${role}`);
  await waitFor(`${role} picked`, async () => (await d.script('return document.querySelector(`#palette-${arguments[0]}`).getAttribute("aria-pressed");', [role])) === 'true');
}

async function preset(name, expectSpent) {
  await d.tap(`#preset-${name}`);
  await waitFor(`${name} preset`, async () => (await spent()) === expectSpent);
}

/** Orthodox minus four wing pawns, the queen turned Maharajah: 39 points, a variant side. */
async function buildVariant(rank2) {
  await preset('orthodox', 39);
  if (await d.script('return document.querySelector(".palette-item.on") !== null;')) await d.tap('.palette-item.on');
  for (const file of ['a', 'b', 'g', 'h']) await tapSquare(`${file}${rank2}`);
  assert.equal(await spent(), 35);
  await pick('maharajah');
  await tapSquare(`d${rank2 === 2 ? 1 : 8}`);
  assert.equal(await spent(), 39);
  assert.equal(await d.script('return document.querySelector("#army-status").dataset.status;'), 'variant');
  assert.equal(await d.script('return document.querySelector("#lock-in").disabled;'), false);
}

async function openCustom(choose = async () => {}) {
  await toMenu();
  await d.tap('#menu-custom');
  await waitFor('the custom setup', () => d.find('#start-game'));
  await choose();
  await d.tap('#start-game');
  await waitFor('the builder', async () => (await spent()) !== null);
}

test('the builder refuses an over-budget army and a rank beyond a gap, naming the rule', async () => {
  await openCustom();
  assert.equal(await spent(), 0, 'the builder starts with the king alone');
  assert.equal(await pieceAt('e1'), 'white-king');
  await preset('orthodox', 39);
  await pick('maharajah');
  const placeable = await d.script('return [...document.querySelectorAll("#builder-board g.mark-place")].map((g) => g.dataset.square).sort().join(" ");');
  assert.equal(placeable, '', 'a full budget shows no placeable squares');
  await tapSquare('d1');
  const refusal = await d.text(await d.find('#build-refusal'));
  assert.equal(refusal, 'White spends 43 of 39 points');
  assert.equal(await pieceAt('d1'), 'white-queen', 'the refused placement changed nothing');
  // The queen swapped for a knight leaves 6 points: with ranks 1-2 full, rank 3 is next.
  await pick('knight');
  await tapSquare('d1');
  assert.equal(await spent(), 33);
  await pick('pawn');
  const next = await d.script('return [...document.querySelectorAll("#builder-board g.mark-place")].map((g) => g.dataset.square).sort().join(" ");');
  assert.equal(next, 'a3 b3 c3 d3 e3 f3 g3 h3', 'with ranks 1-2 full, rank 3 is placeable next');
  await preset('orthodox', 39);
  await pick('maharajah');
  assert.ok(await d.script('return document.querySelector("#budget .error") === null;'));
  await d.screenshot('builder-over-budget-390x844.png');
  await d.script('window.scrollTo(0, 0);');
  await d.screenshot('builder-top-390x844.png');

  await d.tap('#palette-maharajah'); // unpick
  await tapSquare('a2');
  await tapSquare('b2');
  assert.equal(await spent(), 37);
  await pick('pawn');
  const marked = await d.script('return [...document.querySelectorAll("#builder-board g.mark-place")].map((g) => g.dataset.square).sort();');
  assert.deepEqual(marked, ['a2', 'b2'], 'the squares placeable now come from the backend');
  await tapSquare('a3');
  assert.equal(await d.text(await d.find('#build-refusal')), 'White: piece on a3 while rank 2 has empty squares: a2, b2');
  const refused = await d.script('return [...document.querySelectorAll("#builder-board g.mark-refused")].map((g) => g.dataset.square).sort();');
  assert.deepEqual(refused, ['a2', 'a3', 'b2'], 'the refusal highlights the squares');
  assert.equal(await d.script('return document.querySelector("#lock-in").disabled;'), true, 'no lock-in at 37 points');
  await d.screenshot('builder-fill-from-home-390x844.png');
  await tapSquare('e1');
  assert.equal(await d.text(await d.find('#build-refusal')), 'White: the king is fixed on e1');

  // A piece dragged from the palette onto a square is placed there.
  await preset('empty', 0);
  await d.script(`
    const button = document.querySelector('#palette-knight');
    const from = button.getBoundingClientRect();
    const to = document.querySelector('#builder-board g.sq[data-square="c1"] > rect').getBoundingClientRect();
    const at = (r) => ({ clientX: r.left + r.width / 2, clientY: r.top + r.height / 2, pointerId: 7, bubbles: true });
    button.dispatchEvent(new PointerEvent('pointerdown', at(from)));
    button.dispatchEvent(new PointerEvent('pointerup', at(to)));`);
  await waitFor('the knight dropped on c1', async () => (await pieceAt('c1')) === 'white-knight');
  assert.equal(await spent(), 3);
  // A placed piece dragged to another square moves there.
  await d.script(`
    const rect = (sq) => document.querySelector('#builder-board g.sq[data-square="' + sq + '"] > rect');
    const at = (r) => ({ clientX: r.getBoundingClientRect().left + 20, clientY: r.getBoundingClientRect().top + 20, pointerId: 8, bubbles: true });
    rect('c1').dispatchEvent(new PointerEvent('pointerdown', at(rect('c1'))));
    rect('c1').dispatchEvent(new PointerEvent('pointerup', at(rect('a1'))));`);
  await waitFor('the knight moved to a1', async () => (await pieceAt('a1')) === 'white-knight');
  assert.equal(await pieceAt('c1'), null);
});

test('hidden pass-and-play: two variant armies, White hidden while Black builds, then a Maharajah move', async () => {
  await openCustom(async () => {
    await d.tap('#hide-army');
    await waitFor('hide checked', () => d.script('return document.querySelector("#hide-army").checked;'));
    await d.screenshot('custom-setup-390x844.png');
  });
  await buildVariant(2);
  await d.screenshot('builder-white-variant-390x844.png');
  await d.tap('#lock-in');
  await waitFor('the hand-over screen', () => d.find('#handover-go'));
  assert.equal(await whitePiecesInPage(), 0, 'the hand-over screen shows no White piece');
  await d.screenshot('builder-handover-390x844.png');
  await d.tap('#handover-go');
  await waitFor('Black builds', async () => (await d.script('return document.querySelector(".builder")?.dataset.side;')) === 'black');
  assert.equal(await whitePiecesInPage(), 0, 'White\'s pieces are not in the page while Black builds');
  assert.equal(await d.script('return document.querySelector("#preset-mirror");'), null, 'no mirroring a hidden army');
  await buildVariant(7);
  assert.equal(await whitePiecesInPage(), 0);
  await d.screenshot('builder-black-hidden-390x844.png');
  await d.tap('#lock-in');
  await waitFor('the game', () => d.find('#board'));
  assert.equal(await pieceAt('d1'), 'white-maharajah', 'both armies revealed together');
  assert.equal(await pieceAt('d8'), 'black-maharajah');
  assert.equal(await d.text(await d.find('#side-statuses')), 'White: Variant side · Black: Variant side');
  await d.tap('g.sq[data-square="d1"] > rect');
  await waitFor('d1 selected', async () => (await d.script('return document.querySelector(\'g.sq[data-square="d1"]\').getAttribute("aria-pressed");')) === 'true');
  const dests = await d.script('return [...document.querySelectorAll("g.sq.target")].map((g) => g.dataset.square).sort();');
  assert.ok(dests.includes('c3') && dests.includes('b2'), `the Maharajah leaps like a knight: ${dests}`);
  await d.tap('g.sq[data-square="c3"] > rect');
  await waitFor('the Maharajah moved', async () => (await pieceAt('c3')) === 'white-maharajah');
  assert.match(await d.script('return document.querySelector("#moves").textContent;'), /Mc3/);
  await new Promise((resolve) => setTimeout(resolve, 300)); // let the move's slide finish
  await d.screenshot('custom-game-390x844.png');
});

test('against the computer its army appears only after mine is locked in', async () => {
  await openCustom(async () => {
    await d.tap('#opponent-computer');
    await waitFor('level choice', () => d.find('#level-1'));
    await d.tap('#color-white');
    await d.tap('#level-1');
  });
  assert.equal(await d.script('return document.querySelectorAll("[data-piece^=\'black-\']").length;'), 0, 'nothing of the computer\'s army before lock-in');
  await preset('random', 39);
  assert.equal(await d.script('return document.querySelector("#lock-in").disabled;'), false, 'a random army is legal');
  await d.tap('#lock-in');
  await waitFor('the game', () => d.find('#board'));
  const black = await d.script('return document.querySelectorAll("#board [data-piece^=\'black-\']").length;');
  assert.ok(black > 1, `the computer built its own army (${black} pieces)`);
  assert.equal(await pieceAt('e8'), 'black-king');
});

test('a saved army survives a restart; rename and delete', async () => {
  await openCustom();
  await buildVariant(2);
  await d.typeInto('#save-name', 'Wing gap');
  await d.tap('#save-army');
  await waitFor('saved', async () => (await d.findAll('.saved-army')).length === 1);
  await d.close();
  await d.open(390, 844);
  await openCustom();
  await waitFor('the saved army', async () => (await d.script('return document.querySelector(".saved-name")?.textContent;')) === 'Wing gap');
  await d.tap('.saved-load');
  await waitFor('loaded', async () => (await pieceAt('d1')) === 'white-maharajah');
  await d.tap('.saved-rename');
  await waitFor('rename field', () => d.find('.rename-input'));
  await d.typeInto('.rename-input', 'Renamed');
  await d.tap('.rename button');
  await waitFor('renamed', async () => (await d.script('return document.querySelector(".saved-name")?.textContent;')) === 'Renamed');
  await d.tap('.saved-delete');
  await waitFor('deleted', async () => (await d.findAll('.saved-army')).length === 0);

  // Without hiding, Black sees White's army and may mirror it.
  await d.tap('#lock-in');
  await waitFor('Black builds', async () => (await d.script('return document.querySelector(".builder")?.dataset.side;')) === 'black');
  assert.equal(await pieceAt('d1'), 'white-maharajah', 'White\'s army is shown when not hidden');
  await d.tap('#preset-mirror');
  await waitFor('mirrored', async () => (await pieceAt('d8')) === 'black-maharajah');
  assert.equal(await spent(), 39);
  await d.tap('#lock-in');
  await waitFor('the game', () => d.find('#board'));
});

test('Learn shows the Maharajah reaching 35 squares from d4, fewer with a blocker', async () => {
  await toMenu();
  await d.tap('#menu-learn');
  const count = () => d.script('const c = document.querySelector("#reach-count"); return c && [Number(c.dataset.total), Number(c.dataset.slide), Number(c.dataset.leap)];');
  await waitFor('the reach', async () => (await count())?.[0] === 35);
  assert.deepEqual(await count(), [35, 27, 8]);
  assert.equal(await d.script('return document.querySelectorAll("#learn-board .hl-leap").length;'), 8);
  await d.screenshot('learn-390x844.png');
  await d.tap('#tool-blocker');
  await d.tap('#learn-board g.sq[data-square="d6"] > rect');
  await waitFor('the blocker', async () => (await count())?.[0] === 33);
  assert.deepEqual(await count(), [33, 25, 8], 'd7 and d8 are cut off; the leaps are not');
  await d.screenshot('learn-blocker-390x844.png');
  await d.tap('#learn-page-rules');
  await waitFor('the rules', () => d.find('#rules-army'));
  await d.screenshot('learn-rules-390x844.png');
  await d.tap('#learn-page-path');
  await waitFor('the learning path', () => d.find('#learning-path'));
});

test('in Spanish the builder speaks Spanish', async () => {
  await toMenu();
  await d.tap('#menu-settings');
  await d.tap('#language-es');
  await waitFor('Spanish', async () => (await d.script('return document.documentElement.lang;')) === 'es');
  await openCustom();
  assert.equal(await d.text(await d.find('#screen-builder h1')), 'Forman las blancas');
  await preset('orthodox', 39);
  await pick('maharajah');
  await tapSquare('d1');
  assert.equal(await d.text(await d.find('#build-refusal')), 'Blancas: gasta 43 de 39 puntos');
  await d.screenshot('builder-es-390x844.png');
  await toMenu();
  await d.tap('#menu-settings');
  await d.tap('#language-en');
});

test('a preset can be undone, and Back on the hand-over asks before White\'s army is lost', async () => {
  await openCustom(async () => {
    await d.tap('#hide-army');
    await waitFor('hide checked', () => d.script('return document.querySelector("#hide-army").checked;'));
  });
  await pick('knight');
  await tapSquare('b1');
  assert.equal(await spent(), 3);
  await preset('orthodox', 39);
  await d.tap('#preset-undo');
  await waitFor('the army before Orthodox', async () => (await spent()) === 3 && (await pieceAt('b1')) === 'white-knight');
  assert.equal(await d.script('return document.querySelector("#preset-undo");'), null, 'one undo');
  await preset('empty', 0);
  await d.tap('#preset-undo');
  await waitFor('the army before Clear', async () => (await spent()) === 3);
  await preset('orthodox', 39);
  await d.tap('#lock-in');
  await waitFor('the hand-over screen', () => d.find('#handover-go'));
  await d.tap('#back');
  await waitFor('the question', () => d.find('#discard-dialog'));
  await d.tap('#discard-stay');
  await waitFor('still on the hand-over', async () => !(await d.script('return Boolean(document.querySelector("#discard-dialog"));')));
  assert.ok(await d.find('#handover-go'), 'White\'s army is still locked in');
  await d.tap('#back');
  await d.tap('#discard-leave');
  await waitFor('the menu', async () => (await d.findAll('.menu-item')).length === 10);
});

test('"Play the computer" offers Maharajah: I build, the computer builds its own army', async () => {
  await toMenu();
  await d.tap('#menu-computer');
  await waitFor('the setup', () => d.find('#variant-maharajah'));
  await d.tap('#variant-maharajah');
  await waitFor('the custom rules', async () => /computer builds its own/.test(await d.text(await d.find('#setup-custom-rules'))));
  await d.tap('#color-white');
  await d.tap('#start-game');
  await waitFor('the builder', async () => (await spent()) !== null);
  await preset('orthodox', 39);
  await d.tap('#lock-in');
  await waitFor('the game', () => d.find('#screen-game'));
  const black = await d.script('return document.querySelectorAll("[data-piece^=\'black-\']").length;');
  assert.ok(black > 1, `the computer's army is on the board (${black} black pieces)`);
});

test('hidden pass-and-play: an army White saves during the setup is not offered to Black', async () => {
  await openCustom(async () => {
    await d.tap('#hide-army');
    await waitFor('hide checked', () => d.script('return document.querySelector("#hide-army").checked;'));
  });
  const names = () => d.script('return [...document.querySelectorAll(".saved-name")].map((e) => e.textContent);');
  const before = await names();
  await buildVariant(2);
  await d.typeInto('#save-name', 'White secret');
  await d.tap('#save-army');
  await waitFor('saved', async () => (await names()).includes('White secret'));
  await d.tap('#lock-in');
  await waitFor('the hand-over screen', () => d.find('#handover-go'));
  await d.tap('#handover-go');
  await waitFor('Black builds', async () => (await d.script('return document.querySelector(".builder")?.dataset.side;')) === 'black');
  await waitFor('Black\'s list', () => d.find('#saved-armies'));
  assert.deepEqual(await names(), before, 'Black is offered only what was saved before this setup');
  assert.equal(await whitePiecesInPage(), 0);
  // After the reveal the army is there for the next setup.
  await buildVariant(7);
  await d.tap('#lock-in');
  await waitFor('the game', () => d.find('#board'));
  await openCustom();
  await waitFor('the saved army', async () => (await names()).includes('White secret'));
});
