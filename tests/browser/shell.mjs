// Starts the web shell (src-tauri/examples/web_shell.rs: the app's command set on Tauri's mock
// runtime, ui/ over HTTP, the IPC over a WebSocket) and Debian's Chromium through playwright-core.
import { spawn } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const root = fileURLToPath(new URL('../../', import.meta.url));
const SHELL = process.env.MAHARAJAH_WEB_SHELL
  ?? path.join(process.env.CARGO_TARGET_DIR ?? path.join(root, 'target'), 'debug/examples/web_shell');
const SERVER = process.env.MAHARAJAH_SERVER
  ?? path.join(process.env.CARGO_TARGET_DIR ?? path.join(root, 'target'), 'debug/maharajah-server');
const CHROMIUM = process.env.MAHARAJAH_CHROMIUM ?? '/usr/bin/chromium';
export const artifacts = path.join(root, 'tests/artifacts');

/** A running shell on a fresh data folder: { url, stop }. */
export async function startShell() {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'maharajah-browser-'));
  const child = spawn(SHELL, [], {
    env: { ...process.env, MAHARAJAH_DATA_DIR: dataDir, MAHARAJAH_EXPORT_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`the web shell (${SHELL}) did not start in 60 s: ${out}`)), 60000);
    child.on('error', (error) => { clearTimeout(timer); reject(new Error(`cannot run ${SHELL}: ${error.message}`)); });
    child.on('exit', (code) => { clearTimeout(timer); reject(new Error(`the web shell exited (${code}): ${out}`)); });
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const found = /listening on (http:\/\/\S+)/.exec(out);
      if (found) { clearTimeout(timer); resolve(found[1]); }
    });
  });
  return { url, dataDir, stop: () => child.kill('SIGTERM') };
}

/** Chromium as the probe starts it: headless, no sandbox (root), no background network. */
export function launch() {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
}

/** A phone-like page (touch, mobile viewport) of `width`×`height` on the shell at `url`. */
export async function phone(browser, url, width, height) {
  const context = await browser.newContext({
    viewport: { width, height }, hasTouch: true, isMobile: true, deviceScaleFactor: 2, locale: 'en-US',
  });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(url);
  await page.waitForSelector('#screen-menu .menu-item');
  return { page, context, errors };
}

/** Waits until `probe()` returns a truthy value, or fails naming `what`. */
export async function waitFor(what, probe, ms = 15000) {
  const until = Date.now() + ms;
  let last;
  while (Date.now() < until) {
    try {
      last = await probe();
      if (last) return last;
    } catch (error) {
      last = error;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what} (last: ${last})`);
}

// Steps the browser tests share, each taking a page from `phone`.

/** How many elements match `css` now. */
export const count = (page, css) => page.evaluate((c) => document.querySelectorAll(c).length, css);

/** The builder's points spent (null: not on the builder). */
export const spent = (page) => page.evaluate(() => { const b = document.querySelector('#budget'); return b && Number(b.dataset.spent); });

/** Closes dialogs and goes back until the menu shows. */
export async function toMenu(page) {
  await waitFor('the menu', async () => {
    if (await count(page, '#screen-menu') === 1) return true;
    await page.evaluate(() => {
      for (const id of ['#result-close', '#export-close', '#discard-leave']) document.querySelector(id)?.click();
      document.querySelector('#back')?.click();
    });
    await page.waitForTimeout(150);
    return false;
  });
}

/** Taps `square` on the board `board`. */
export async function tapSquare(page, square, board = '#board') {
  await page.tap(`${board} g.sq[data-square="${square}"] > rect`);
}

/** Plays from→to by two taps and waits for the move list to grow. */
export async function move(page, from, to) {
  const before = await count(page, '#moves .san');
  await tapSquare(page, from);
  await waitFor(`${from} selected`, () => page.evaluate((s) => document.querySelector(`g.sq[data-square="${s}"]`)?.getAttribute('aria-pressed') === 'true', from));
  await tapSquare(page, to);
  await waitFor(`${from}-${to} played`, async () => (await count(page, '#moves .san')) > before);
}

/** Opens the setup screen of menu entry `entry`. */
export async function openSetup(page, entry) {
  await toMenu(page);
  await page.tap(`#menu-${entry}`);
  await page.waitForSelector('#start-game');
}

/** A real maharajah-server on a free loopback port, in memory: { url, stop }. */
export async function startServer() {
  const server = spawn(SERVER, ['--memory', '--listen', '127.0.0.1:0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = [];
  readline.createInterface({ input: server.stdout }).on('line', (line) => lines.push(line));
  const line = await waitFor(`${SERVER} to listen`, async () => lines.find((l) => /listening on /.test(l)), 30000);
  return { url: `ws://${line.split('listening on ')[1].trim()}/`, stop: () => server.kill('SIGTERM') };
}
