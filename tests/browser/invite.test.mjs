// Issue #20 item 7 in Chromium at 360×640 with touch: an online room created on a real
// maharajah-server (loopback) shows its room code, the QR code of its maharajah://join/ link and
// the link itself, all inside the screen (no sideways scrolling, the QR code whole and square),
// and "Copy code and link" puts the code and the link on the clipboard with a visible "Copied"
// (Chromium on Linux has no Web Share API, as Android's WebView).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { artifacts, launch, phone, startServer, startShell, waitFor } from './shell.mjs';

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

test('the online room code screen shows its QR code and join link, whole, at 360×640', async () => {
  const { page, context, errors } = await phone(browser, shell.url, 360, 640);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: shell.url });
  await page.tap('#menu-online');
  await page.waitForSelector('#server-url');
  await page.fill('#server-url', serverUrl);
  await page.tap('#online-tab-code');
  await page.tap('#create-room');
  await page.waitForSelector('#net-qr', { timeout: 20000 });
  const code = (await page.textContent('#room-code')).trim();
  assert.match(code, /^[2-9A-HJ-NP-Z]{8}$/, 'an 8-character room code');
  const link = (await page.textContent('#net-invite-url')).trim();
  const prefix = `maharajah://join/${code}?server=`;
  assert.ok(link.startsWith(prefix), link);
  assert.ok(decodeURIComponent(link.slice(prefix.length)).startsWith(serverUrl.replace(/\/$/, '')), `the link names the room's server: ${link}`);

  const layout = await page.evaluate(() => {
    const box = (id) => { const r = document.getElementById(id).getBoundingClientRect(); return { left: r.left, right: r.right, width: r.width, height: r.height }; };
    const qr = document.getElementById('net-qr');
    return {
      scrollWidth: document.documentElement.scrollWidth,
      width: window.innerWidth,
      qr: box('net-qr'),
      link: box('net-invite-url'),
      button: box('copy-code'),
      size: Number(qr.dataset.size),
      squares: (qr.querySelector('path').getAttribute('d').match(/M/g) ?? []).length,
    };
  });
  assert.ok(layout.scrollWidth <= layout.width, `no sideways scrolling (${layout.scrollWidth} > ${layout.width})`);
  for (const [name, r] of Object.entries({ qr: layout.qr, link: layout.link, button: layout.button })) {
    assert.ok(r.left >= 0 && r.right <= layout.width + 0.5, `${name} inside the screen: ${JSON.stringify(r)}`);
  }
  assert.ok(Math.abs(layout.qr.width - layout.qr.height) < 1, 'the QR code is square');
  // A module must stay at least ~3 CSS px for a phone's camera at arm's length.
  assert.ok(layout.qr.width / (layout.size + 8) >= 3, `modules large enough: ${layout.qr.width} px for ${layout.size} modules`);
  assert.ok(layout.squares > layout.size, 'the matrix is drawn');
  await page.screenshot({ path: path.join(artifacts, 'chromium-online-invite-360x640.png'), fullPage: true });

  assert.equal(await page.evaluate(() => typeof navigator.share), 'undefined', "as Android's WebView: no share sheet");
  assert.equal((await page.textContent('#copy-code')).trim(), 'Copy code and link');
  await page.tap('#copy-code');
  await waitFor('"Copied"', async () => (await page.textContent('#copy-code-flash')).trim() === 'Copied');
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  assert.ok(copied.includes(code) && copied.includes(link), `the clipboard has the code and the link: ${copied}`);
  assert.deepEqual(errors, [], 'no script errors');
  await context.close();
});
