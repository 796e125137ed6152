// End-to-end test of the real app: the built `maharajah` binary in its WebKitGTK web view, driven
// by tauri-driver + WebKitWebDriver under Xvfb. Run through `./x test` (which builds the app and
// provides the display); needs MAHARAJAH_APP (path of the binary) and TAURI_DRIVER.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { root, startDriver, waitFor, tempDir } from './webdriver.mjs';

/** The engine version as Cargo sees it: what About must show. */
function expectedEngineVersion() {
  const metadata = JSON.parse(execFileSync('cargo', ['metadata', '--format-version', '1', '--no-deps', '--offline'], { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 }));
  const engine = metadata.packages.find((p) => p.name === 'maharajah-engine');
  assert.ok(engine, 'maharajah-engine is a workspace member');
  return engine.version;
}

let d;
let find;
let findAll;
let click;
let text;
let script;
let screenshot;

before(async () => {
  const dataDir = await tempDir('app');
  d = await startDriver({ MAHARAJAH_DATA_DIR: dataDir });
  await d.open(390, 844);
  ({ find, findAll, click, text, script, screenshot } = d);
});

after(async () => {
  if (d) await d.stop();
});

test('the start screen shows the whole menu at phone size', async () => {
  await waitFor('the menu', async () => (await findAll('.menu-item')).length === 10);
  const width = await script('return document.documentElement.clientWidth;');
  assert.ok(width <= 400, `window is phone-sized (viewport ${width}px wide)`);
  const overflow = await script('return document.documentElement.scrollWidth - document.documentElement.clientWidth;');
  assert.equal(overflow, 0, 'no horizontal scrolling at phone size');
  const classic = await text(await find('#menu-classic'));
  assert.match(classic, /New classic game/);
  assert.doesNotMatch(classic, /Not available yet/, 'the classic game has landed');
  const unready = await script('return [...document.querySelectorAll(".menu-item[data-ready=false]")].map((b) => b.id);');
  for (const id of unready) assert.match(await text(await find(`#${id}`)), /Not available yet/, 'features that have not landed say so');
  const online = await text(await find('#menu-online'));
  assert.doesNotMatch(online, /Not available yet/, 'online play has landed');
  const about = await text(await find('#menu-about'));
  assert.doesNotMatch(about, /Not available yet/);
  await waitFor('the logo to load', () => script('const img = document.querySelector("img.logo"); return img.complete && img.naturalWidth > 0;'), 5000);
  await screenshot('menu-390x844.png');
});

test('About shows the engine version read from the backend', async () => {
  await click(await find('#menu-about'));
  const engineVersion = await waitFor('the engine version', async () => text(await find('#engine-version')));
  assert.equal(engineVersion, expectedEngineVersion());
  const appVersion = await text(await find('#app-version'));
  assert.match(appVersion, /^\d+\.\d+\.\d+/);
  const file = await screenshot('about-390x844.png');
  console.log(`screenshot: ${file}`);
  await click(await find('#back'));
  await waitFor('the menu again', async () => (await findAll('.menu-item')).length === 10);
});

test('a feature that has not landed says so plainly', async () => {
  const unready = await script('return [...document.querySelectorAll(".menu-item[data-ready=false]")].map((b) => b.id);');
  if (unready.length === 0) return; // everything in the menu has landed
  await click(await find(`#${unready[0]}`));
  const note = await waitFor('the note', async () => text(await find('#soon-note')));
  assert.match(note, /not been built yet/);
  await click(await find('#back'));
});
