// Issue 20 item 1 in the real app: two people at one board give their names in the setup; the
// player bars, the result dialog ("Bruno wins"), the PGN and the history list use them, the next
// setup offers them again, a name that is too long is refused with its sentence, and all of it
// survives closing and opening the app.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { exists, menuShown, newGame, setValue, toMenu, typeMoves } from './steps.mjs';
import { startDriver, waitFor, tempDir } from './webdriver.mjs';

let d;

before(async () => {
  const dataDir = await tempDir('names');
  const exportDir = await tempDir('names-export');
  d = await startDriver({ MAHARAJAH_DATA_DIR: dataDir, MAHARAJAH_EXPORT_DIR: exportDir });
  await d.open(390, 844);
});

after(async () => {
  if (d) await d.stop();
});

const value = (css) => d.script('return document.querySelector(arguments[0])?.value ?? null;', [css]);
const textOf = async (css) => d.text(await d.find(css));
const names = () => d.script('return ["white", "black"].map((c) => document.querySelector(`#player-${c} .name`)?.textContent);');

/** The history list's rows as text, once it has some. */
async function historyRows() {
  await toMenu(d);
  await d.tap('#menu-history');
  return waitFor('the list', async () => {
    const texts = await d.script('return [...document.querySelectorAll("#history-list .history-item")].map((b) => b.textContent);');
    return texts.length ? texts : null;
  });
}

test("two named players: Fool's mate by typed moves ends in \"Bruno wins\"", async () => {
  await newGame(d, 'classic', async () => {
    assert.equal(await value('#name-white'), '', 'no names before the first game');
    assert.equal(await d.script('return document.querySelector("#name-black").placeholder;'), 'Black');
    await d.typeInto('#name-white', 'Ana');
    await d.typeInto('#name-black', ' Bruno ');
    await d.screenshot('names-setup-390x844.png');
  });
  assert.deepEqual(await names(), ['Ana', 'Bruno'], 'the player bars name them (trimmed)');
  assert.equal(await textOf('#status'), 'Ana to move');
  await typeMoves(d, 'f3', 'e5', 'g4', 'Qh4#');
  const title = await waitFor('the result dialog', async () => textOf('#result-dialog h2'));
  assert.equal(title, 'Bruno wins');
  assert.equal(await textOf('#result-reason'), 'by checkmate');
  assert.equal(await d.script('return document.getElementById("announcer").textContent;'), 'Bruno wins, by checkmate');
  await d.screenshot('names-result-390x844.png');
  await d.tap('#result-export');
  const pgn = await waitFor('the PGN', () => d.script('return document.querySelector("#pgn-text")?.value;'));
  assert.match(pgn, /\[Round "\?"\]\n\[White "Ana"\]\n\[Black "Bruno"\]\n\[Result "0-1"\]/);
  await d.tap('#export-close');
});

test('the history names the players and the winner; the next setup offers the names again', async () => {
  const rows = await historyRows();
  assert.ok(rows.some((t) => /Chess · Ana vs Bruno.*Bruno wins · by checkmate/.test(t)), rows.join('\n'));
  await d.screenshot('names-history-390x844.png');
  await toMenu(d);
  await d.tap('#menu-horde');
  await waitFor('the setup screen', () => d.find('#start-game'));
  assert.deepEqual([await value('#name-white'), await value('#name-black')], ['Ana', 'Bruno']);
  await toMenu(d);
  await d.tap('#menu-computer');
  await waitFor('the setup screen', () => d.find('#start-game'));
  assert.equal(await exists(d, '#setup-names'), false, 'against the computer nobody is asked a name');
});

test('a name that is too long is refused with its sentence, and no game starts', async () => {
  await toMenu(d);
  await d.tap('#menu-classic');
  await waitFor('the setup screen', () => d.find('#start-game'));
  // The field stops at 20 characters; a pasted or scripted value past it reaches the backend.
  assert.equal(await d.script('return document.querySelector("#name-white").maxLength;'), 20);
  await setValue(d, '#name-white', 'Anastasia Alexandrovna');
  await d.tap('#start-game');
  const error = await waitFor('the refusal', async () => ((await exists(d, '#screen-setup .error')) ? textOf('#screen-setup .error') : null));
  assert.match(error, /^A player’s name has at most 20 characters/);
  assert.equal(await exists(d, '#screen-setup'), true, 'still on the setup');
  // Emptied, the side is called by its colour.
  await setValue(d, '#name-white', '');
  await d.tap('#start-game');
  await waitFor('the board', () => d.find('#board .piece'));
  assert.deepEqual(await names(), ['White', 'Bruno']);
});

test('a custom game checks the names before the armies are built, and builds by name', async () => {
  await toMenu(d);
  await d.tap('#menu-custom');
  await waitFor('the setup screen', () => d.find('#start-game'));
  await setValue(d, '#name-black', 'Tab\there');
  await d.tap('#start-game');
  const error = await waitFor('the refusal', async () => ((await exists(d, '#screen-setup .error')) ? textOf('#screen-setup .error') : null));
  assert.match(error, /^A player’s name has at most 20 characters and no line breaks, tabs/);
  assert.equal(await exists(d, '#screen-builder'), false, 'nobody builds under a refused name');
  await d.typeInto('#name-white', 'Carla');
  await d.typeInto('#name-black', 'Dani');
  await d.tap('#hide-army');
  await waitFor('hide checked', () => d.script('return document.querySelector("#hide-army").checked;'));
  await d.tap('#start-game');
  await waitFor('White builds', async () => /Carla builds \(White\)/.test(await textOf('#screen-builder h1')));
  await d.tap('#preset-orthodox');
  await waitFor('a full army', async () => !(await d.script('return document.querySelector("#lock-in").disabled;')));
  await d.tap('#lock-in');
  await waitFor('the hand-over screen', () => d.find('#handover-go'));
  assert.match(await textOf('#handover'), /Pass the device to Dani, who plays Black\./);
  assert.equal(await textOf('#handover-go'), 'I am Dani: build my army');
  await d.tap('#handover-go');
  await waitFor('Black builds', async () => /Dani builds \(Black\)/.test(await textOf('#screen-builder h1')));
  await d.tap('#preset-orthodox');
  await waitFor('a full army', async () => !(await d.script('return document.querySelector("#lock-in").disabled;')));
  await d.tap('#lock-in');
  await waitFor('the board', () => d.find('#board .piece'));
  assert.deepEqual(await names(), ['Carla', 'Dani']);
  await d.tap('#resign');
  await d.tap('#resign-confirm');
  assert.equal(await waitFor('the result dialog', async () => textOf('#result-dialog h2')), 'Dani wins');
  await d.tap('#result-close');
  // The names of this game are the ones the next setup offers.
  await toMenu(d);
  await d.tap('#menu-classic');
  await waitFor('the setup screen', () => d.find('#start-game'));
  assert.deepEqual([await value('#name-white'), await value('#name-black')], ['Carla', 'Dani']);
  // Back to the names the restart below expects.
  await setValue(d, '#name-white', '');
  await setValue(d, '#name-black', 'Bruno');
  await d.tap('#start-game');
  await waitFor('the board', () => d.find('#board .piece'));
  assert.deepEqual(await names(), ['White', 'Bruno']);
});

test('the names survive closing and opening the app', async () => {
  await d.close();
  await d.open(390, 844);
  await menuShown(d);
  const rows = await historyRows();
  assert.ok(rows.some((t) => /Chess · Ana vs Bruno.*Bruno wins · by checkmate/.test(t)), rows.join('\n'));
  assert.ok(rows.some((t) => /Chess · White vs Bruno.*in progress/.test(t)), rows.join('\n'));
  const id = await d.script('const b = [...document.querySelectorAll("#history-list .history-item")].find((b) => /Ana vs Bruno/.test(b.textContent)); return b && b.dataset.game;');
  await d.tap(`.history-item[data-game="${id}"]`);
  await waitFor('the board', () => d.find('#board .piece'));
  assert.deepEqual(await names(), ['Ana', 'Bruno']);
  assert.equal(await textOf('#status'), 'Bruno wins — by checkmate');
  await toMenu(d);
  await d.tap('#menu-classic');
  await waitFor('the setup screen', () => d.find('#start-game'));
  assert.deepEqual([await value('#name-white'), await value('#name-black')], ['', 'Bruno'], 'the last names used');
});
