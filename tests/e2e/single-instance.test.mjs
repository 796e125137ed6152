// End-to-end (issue 20, item 7): a `maharajah://join/…` link opened while the desktop app runs goes
// to the running window, not to a second app. The system starts a second process with the link as
// its argument; tauri-plugin-single-instance finds the first one on the D-Bus session bus, hands it
// the arguments (the deep-link plugin turns them into an opened link) and exits. A private session
// bus is started for the test, so nothing outside it is touched.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { application, startDriver, waitFor, tempDir } from './webdriver.mjs';

let d;
let bus;
let busPid;
let env;

before(async () => {
  // `--print-address` and `--print-pid` write one line each before the daemon forks away.
  const printed = execFileSync('dbus-daemon', ['--session', '--fork', '--print-address=1', '--print-pid=1'], { encoding: 'utf8' });
  [bus, busPid] = printed.trim().split('\n');
  assert.match(bus, /^unix:/, `a session bus address, got ${printed}`);
  const dataDir = await tempDir('single');
  env = { MAHARAJAH_DATA_DIR: dataDir, DBUS_SESSION_BUS_ADDRESS: bus };
  d = await startDriver(env);
  await d.open(390, 844);
  await waitFor('the menu', async () => (await d.findAll('.menu-item')).length === 10);
});

after(async () => {
  if (d) await d.stop();
  if (busPid) {
    try {
      process.kill(Number(busPid), 'SIGTERM');
    } catch {
      // Already gone.
    }
  }
});

/** Runs the app binary as the system would for a link; resolves to its exit code (null: killed). */
function openLinkAsSecondStart(link, timeoutMs) {
  return new Promise((resolve) => {
    const second = spawn(application, [link], { env: { ...process.env, ...env }, stdio: 'ignore' });
    const timer = setTimeout(() => second.kill('SIGKILL'), timeoutMs);
    second.on('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

test('a link opened while the app runs reaches the running window, and the second start exits', async () => {
  const server = 'ws://127.0.0.1:1';
  const link = `maharajah://join/ABCD2345?server=${encodeURIComponent(server)}`;
  const started = Date.now();
  const code = await openLinkAsSecondStart(link, 20000);
  assert.equal(code, 0, 'the second start handed its link over and exited by itself (it was killed after 20 s otherwise)');
  assert.ok(Date.now() - started < 20000);
  // The running app follows the link like one typed on the Online screen: the code filled in and,
  // since the link names another server than the one set, that server shown before any join.
  await waitFor('the Online screen with the linked room code', async () =>
    (await d.script('const f = document.querySelector("#join-code"); return f ? f.value : null;')) === 'ABCD2345');
  const named = await d.script('const n = document.querySelector("#online-linked"); return n ? n.textContent : null;');
  assert.ok(named && named.includes(server) && named.includes('ABCD2345'), `the linked room and server are named: ${named}`);
  // Still one app: the session opened first answers.
  assert.equal(await d.script('return 1 + 1;'), 2);
});
