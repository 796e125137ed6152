// Issue #18 in Chromium at phone sizes with touch: the Online screen's four tabs (Lobby, Play now,
// Watch, Join by code) against a real maharajah-server (loopback) through the web shell: the
// player's name picked, a challenge posted and listed, the quick-pairing wait; each tab passes the
// shared layout check (tests/layout.mjs) at 360×640 and 390×844.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { artifacts, launch, phone, startServer, startShell, waitFor } from './shell.mjs';
import { layoutProblems } from '../layout.mjs';

let shell;
let browser;
let server;
let serverUrl;

before(async () => {
  await mkdir(artifacts, { recursive: true });
  server = await startServer();
  serverUrl = server.url;
  shell = await startShell();
  browser = await launch();
});

after(async () => {
  await browser?.close();
  shell?.stop();
  server?.stop();
});

for (const [width, height] of [[360, 640], [390, 844]]) {
  test(`the Online tabs fit at ${width}×${height}: lobby with a challenge, play now waiting, watch, join by code`, async () => {
    const { page, context, errors } = await phone(browser, shell.url, width, height);
    // What the page looked like when a step failed.
    const failed = () => page.screenshot({ path: path.join(artifacts, `chromium-online-failed-${width}x${height}.png`), fullPage: true }).catch(() => {});
    try {
      await steps(page, width, height);
    } catch (error) {
      await failed();
      throw error;
    }
    assert.deepEqual(errors, []);
    await context.close();
  });
}

async function steps(page, width, height) {
  {
    await page.tap('#menu-online');
    await page.waitForSelector('#server-url');
    await page.fill('#server-url', serverUrl);
    // The second size finds the lobby open already (the shell is one app): Connect may be gone.
    await page.waitForSelector('#lobby-connect, #online-player-name');
    if (await page.$('#lobby-connect')) await page.tap('#lobby-connect');
    // One shell, one identity: the first size picks the name, the second finds it.
    await page.waitForSelector('#online-name, #online-player-name', { timeout: 20000 });
    if (await page.$('#online-name')) {
      await page.fill('#online-name', 'Phone_Player');
      await page.tap('#online-name-go');
    }
    await page.waitForSelector('#online-player-name');
    await page.tap('#lobby-create');
    await page.waitForSelector('#lobby-list li.mine');
    const found = [];
    const check = async (name) => {
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.waitForTimeout(100);
      for (const problem of await page.evaluate(layoutProblems, {})) found.push(`${name}: ${problem}`);
      await page.screenshot({ path: path.join(artifacts, `chromium-online-${name}-${width}x${height}.png`), fullPage: true });
    };
    await check('lobby');
    await page.tap('#online-tab-play');
    await page.waitForSelector('#play-now');
    await page.tap('#play-now');
    await page.waitForSelector('#play-now-waiting');
    await check('play');
    await page.tap('#play-now-cancel');
    await page.waitForSelector('#play-now');
    await page.tap('#online-tab-watch');
    await page.waitForSelector('#watch-code');
    await check('watch');
    await page.tap('#online-tab-code');
    await page.waitForSelector('#create-room');
    await check('code');
    // Back in the lobby, our challenge is withdrawn with its Cancel.
    await page.tap('#online-tab-lobby');
    const mine = await page.getAttribute('#lobby-list li.mine', 'data-id');
    await page.tap(`#lobby-cancel-${mine}`);
    await waitFor('our challenge withdrawn', async () => !(await page.$('#lobby-list li.mine')));
    assert.deepEqual(found, [], `layout problems at ${width}×${height}`);
  }
}
