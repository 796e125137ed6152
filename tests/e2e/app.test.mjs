// End-to-end test of the real app: the built `maharajah` binary in its WebKitGTK web view, driven
// by tauri-driver + WebKitWebDriver under Xvfb. Run through `./x test` (which builds the app and
// provides the display); needs MAHARAJAH_APP (path of the binary) and TAURI_DRIVER.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const artifacts = path.join(root, 'tests', 'artifacts');
const application = process.env.MAHARAJAH_APP ?? path.join(root, 'target', 'debug', 'maharajah');
const driverBinary = process.env.TAURI_DRIVER ?? 'tauri-driver';

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** The engine version as Cargo sees it: what About must show. */
function expectedEngineVersion() {
  const metadata = JSON.parse(execFileSync('cargo', ['metadata', '--format-version', '1', '--no-deps', '--offline'], { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 }));
  const engine = metadata.packages.find((p) => p.name === 'maharajah-engine');
  assert.ok(engine, 'maharajah-engine is a workspace member');
  return engine.version;
}

let driver;
let base;
let session;

async function wd(method, route, body) {
  const response = await fetch(`${base}${route}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await response.json();
  if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${JSON.stringify(json.value)}`);
  return json.value;
}

async function waitFor(what, probe, timeoutMs = 15000) {
  const deadline = Date.now() + timeoutMs;
  let lastError;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (error) {
      lastError = error;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}${lastError ? `: ${lastError.message}` : ''}`);
}

/** The id inside a W3C element reference (its one key starts with "element-"). */
function elementId(reference) {
  const key = Object.keys(reference).find((k) => k.startsWith('element-'));
  assert.ok(key, `not an element reference: ${JSON.stringify(reference)}`);
  return reference[key];
}
const find = async (css) => elementId(await wd('POST', `/session/${session}/element`, { using: 'css selector', value: css }));
const findAll = async (css) => (await wd('POST', `/session/${session}/elements`, { using: 'css selector', value: css })).map(elementId);
const click = (id) => wd('POST', `/session/${session}/element/${id}/click`, {});
const text = (id) => wd('GET', `/session/${session}/element/${id}/text`);
const script = (source, args = []) => wd('POST', `/session/${session}/execute/sync`, { script: source, args });

async function screenshot(name) {
  const png = await wd('GET', `/session/${session}/screenshot`);
  await mkdir(artifacts, { recursive: true });
  const file = path.join(artifacts, name);
  await writeFile(file, Buffer.from(png, 'base64'));
  return file;
}

before(async () => {
  const port = await freePort();
  const nativePort = await freePort();
  base = `http://127.0.0.1:${port}`;
  driver = spawn(driverBinary, ['--port', String(port), '--native-port', String(nativePort)], { stdio: ['ignore', 'inherit', 'inherit'] });
  driver.on('error', (error) => { throw error; });
  await waitFor('tauri-driver to listen', async () => (await fetch(`${base}/status`)).ok);
  const created = await wd('POST', '/session', {
    capabilities: { alwaysMatch: { browserName: 'wry', 'tauri:options': { application } } },
  });
  session = created.sessionId;
  // Phone size first: the menu must work at 390×844.
  await wd('POST', `/session/${session}/window/rect`, { width: 390, height: 844 });
});

after(async () => {
  if (session) await wd('DELETE', `/session/${session}`).catch(() => {});
  if (driver) driver.kill('SIGTERM');
});

test('the start screen shows the whole menu at phone size', async () => {
  await waitFor('the menu', async () => (await findAll('.menu-item')).length === 10);
  const width = await script('return document.documentElement.clientWidth;');
  assert.ok(width <= 400, `window is phone-sized (viewport ${width}px wide)`);
  const overflow = await script('return document.documentElement.scrollWidth - document.documentElement.clientWidth;');
  assert.equal(overflow, 0, 'no horizontal scrolling at phone size');
  const classic = await text(await find('#menu-classic'));
  assert.match(classic, /New classic game/);
  assert.match(classic, /Not available yet/, 'features that have not landed say so');
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
  await click(await find('#menu-online'));
  const note = await waitFor('the note', async () => text(await find('#soon-note')));
  assert.match(note, /not been built yet/);
  await click(await find('#back'));
});
