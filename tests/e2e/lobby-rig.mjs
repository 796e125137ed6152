// What the lobby's end-to-end files share: a real maharajah-server on loopback (in memory), the
// real app on a data folder of its own at phone size, and scripted players
// (maharajah-netbot --lobby NAME) whose stdout lines are collected.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { application, startDriver, waitFor, tempDir } from './webdriver.mjs';

const bin = path.dirname(application);
const serverBinary = process.env.MAHARAJAH_SERVER ?? path.join(bin, 'maharajah-server');
const botBinary = process.env.MAHARAJAH_NETBOT ?? path.join(bin, 'maharajah-netbot');

/** Starts a process whose stdout lines are collected; `waitLine` waits for a matching one and
 * `cmd` sends a bot command and waits for its `ok` (consumed, so it can be sent again). */
function launch(file, args, children) {
  const child = spawn(file, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  children.push(child);
  const lines = [];
  readline.createInterface({ input: child.stdout }).on('line', (line) => lines.push(line));
  const p = {
    child,
    lines,
    async waitLine(what, pattern, timeoutMs = 15000) {
      return waitFor(what, async () => lines.find((l) => pattern.test(l)), timeoutMs);
    },
    async cmd(line) {
      const name = line.split(' ')[0];
      child.stdin.write(`${line}\n`);
      const answer = await p.waitLine(`the bot's answer to ${line}`, new RegExp(`^(ok|err) ${name}\\b`));
      lines.splice(lines.indexOf(answer), 1);
      assert.match(answer, /^ok /, `${line}: ${answer}`);
    },
  };
  return p;
}

/** The server, then the app at 390×844 on a fresh data folder named after `name`. */
export async function startRig(name) {
  const children = [];
  const server = launch(serverBinary, ['--memory', '--listen', '127.0.0.1:0'], children);
  const line = await server.waitLine('the server to listen', /listening on /);
  const serverUrl = `ws://${line.split('listening on ')[1].trim()}/`;
  const dataDir = await tempDir(name);
  const d = await startDriver({ MAHARAJAH_DATA_DIR: dataDir });
  await d.open(390, 844);
  return {
    d,
    serverUrl,
    /** A scripted lobby player called `player` on this server. */
    bot: (player) => launch(botBinary, [serverUrl, '--lobby', player], children),
    async stop() {
      for (const c of children) c.kill('SIGKILL');
      await d.stop();
    },
  };
}

/** Page queries on the driver `driver()` gives (read when called, after `before` set it). */
export function queries(driver) {
  return {
    exists: (css) => driver().script('return Boolean(document.querySelector(arguments[0]));', [css]),
    textOf: (css) => driver().script('const n = document.querySelector(arguments[0]); return n ? n.textContent : null;', [css]),
    attr: (css, name) => driver().script('const n = document.querySelector(arguments[0]); return n ? n.getAttribute(arguments[1]) : null;', [css, name]),
  };
}
