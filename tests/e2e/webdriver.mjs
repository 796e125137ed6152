// Raw WebDriver over fetch for the end-to-end tests: starts tauri-driver on free ports (with the
// environment a test wants the app to see), opens sessions on the real app, finds and clicks.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { closeSync, openSync, rmSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../../', import.meta.url));
export const artifacts = path.join(root, 'tests', 'artifacts');
export const application = process.env.MAHARAJAH_APP ?? path.join(root, 'target', 'debug', 'maharajah');
const driverBinary = process.env.TAURI_DRIVER ?? 'tauri-driver';
/** How long opening a session (starting the app) may take before tauri-driver is relaunched. */
const SESSION_MS = 90_000;

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

export async function waitFor(what, probe, timeoutMs = 15000) {
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

/** Signals a whole process group; a group that is already gone is fine. */
function killGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
  } catch (error) {
    if (error.code !== 'ESRCH') throw error;
  }
}

const tempDirs = [];
process.on('exit', () => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

/**
 * A fresh directory `maharajah-e2e-<name>-…` under the system's temporary directory (a data
 * directory for the app, a folder for exports), removed when this test file's process exits:
 * after every reopen of the app that needs it, and so runs do not pile up in /tmp.
 */
export async function tempDir(name) {
  const dir = await mkdtemp(path.join(os.tmpdir(), `maharajah-e2e-${name}-`));
  tempDirs.push(dir);
  return dir;
}

/**
 * Starts tauri-driver; `env` is added to the app's environment (e.g. MAHARAJAH_DATA_DIR).
 * @returns a driver with session helpers; call `stop()` when done.
 */
export async function startDriver(env = {}) {
  // A web view profile of its own for each driver (each test file): the page's local storage
  // (the language, the LAN name) starts as on a fresh install, never as an earlier file left it.
  // WebKit writes local storage lazily, so a setting put back just before that app was closed
  // (a Spanish pass ending in English) may never have reached the disk. Reopening the app within
  // a file keeps the profile, as a restart on a phone does.
  const profile = await mkdtemp(path.join(os.tmpdir(), 'maharajah-e2e-webview-'));
  // tauri-driver on free ports; launched again (same profile, same environment) when a session
  // will not open, so one stuck WebKitWebDriver does not fail every test after it.
  let child;
  let base;
  async function launch() {
    const port = await freePort();
    const nativePort = await freePort();
    base = `http://127.0.0.1:${port}`;
    // Own process group, so stop() ends tauri-driver, WebKitWebDriver and the app together;
    // output goes to a log file, so a straggler can never hold the test runner's pipes open.
    await mkdir(artifacts, { recursive: true });
    const log = openSync(path.join(artifacts, `tauri-driver-${port}.log`), 'a');
    child = spawn(driverBinary, ['--port', String(port), '--native-port', String(nativePort)], {
      stdio: ['ignore', log, log],
      env: { ...process.env, XDG_DATA_HOME: profile, ...env },
      detached: true,
    });
    closeSync(log);
    child.on('error', (error) => { throw error; });
    await waitFor('tauri-driver to listen', async () => (await fetch(`${base}/status`)).ok);
  }
  async function end() {
    killGroup(child.pid, 'SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 300));
    killGroup(child.pid, 'SIGKILL');
  }

  async function wd(method, route, body, timeoutMs) {
    const response = await fetch(`${base}${route}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: timeoutMs === undefined ? undefined : AbortSignal.timeout(timeoutMs),
    });
    const json = await response.json();
    if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${JSON.stringify(json.value)}`);
    return json.value;
  }
  await launch();

  const d = {
    session: null,
    /** tauri-driver's process id (the app and its WebKit processes descend from it). */
    get pid() {
      return child.pid;
    },
    wd,
    /**
     * Launches the app (a new process) at phone size. A session that does not open within
     * `SESSION_MS` (seen once in CI: WebKitWebDriver never answered, and undici gave up after
     * five minutes) is tried once more on a freshly launched tauri-driver.
     */
    async open(width = 390, height = 844) {
      const capabilities = { alwaysMatch: { browserName: 'wry', 'tauri:options': { application } } };
      let created;
      try {
        created = await wd('POST', '/session', { capabilities }, SESSION_MS);
      } catch (error) {
        console.error(`# no session (${error.message}): launching tauri-driver again`);
        await end();
        await launch();
        created = await wd('POST', '/session', { capabilities }, SESSION_MS);
      }
      d.session = created.sessionId;
      await wd('POST', `/session/${d.session}/window/rect`, { width, height });
    },
    /** Quits the app. */
    async close() {
      if (d.session) await wd('DELETE', `/session/${d.session}`).catch(() => {});
      d.session = null;
    },
    async stop() {
      await d.close();
      await end();
      // The profile is this driver's alone: gone with it, so runs do not pile up in /tmp.
      await rm(profile, { recursive: true, force: true });
    },
    find: async (css) => elementId(await wd('POST', `/session/${d.session}/element`, { using: 'css selector', value: css })),
    findAll: async (css) => (await wd('POST', `/session/${d.session}/elements`, { using: 'css selector', value: css })).map(elementId),
    click: (id) => wd('POST', `/session/${d.session}/element/${id}/click`, {}),
    text: (id) => wd('GET', `/session/${d.session}/element/${id}/text`),
    type: (id, value) => wd('POST', `/session/${d.session}/element/${id}/value`, { text: value }),
    script: (source, args = []) => wd('POST', `/session/${d.session}/execute/sync`, { script: source, args }),
    /** Clicks the element matching `css` once it exists (found again if a re-render replaced it). */
    async tap(css, timeoutMs = 10000) {
      await waitFor(`${css} to be clicked`, async () => {
        await d.click(await d.find(css));
        return true;
      }, timeoutMs);
    },
    /** Types into the element matching `css` (found again if a re-render replaced it). */
    /**
     * Replaces the text of the field `css` with `value`. Each try clears the field first and
     * reads it back: a re-render in the middle of typing can leave part of the text, and a
     * retry that only typed again would append to it (seen as "ws://ws://…" in a server field).
     */
    async typeInto(css, value, timeoutMs = 10000) {
      const plain = (text) => String(text ?? '').toLowerCase().replace(/[^0-9a-z]/g, '');
      await waitFor(`${css} to take text`, async () => {
        const field = await d.find(css);
        await wd('POST', `/session/${d.session}/element/${field}/clear`, {});
        await d.type(field, value);
        const now = await d.script('const n = document.querySelector(arguments[0]); return n ? n.value : null;', [css]);
        return plain(now) === plain(value);
      }, timeoutMs);
    },
    async screenshot(name) {
      const png = await wd('GET', `/session/${d.session}/screenshot`);
      await mkdir(artifacts, { recursive: true });
      const file = path.join(artifacts, name);
      await writeFile(file, Buffer.from(png, 'base64'));
      return file;
    },
  };
  return d;
}
