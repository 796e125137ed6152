// Runs an end-to-end file inside a private network namespace (../shared/notes/lan-testing.md):
// outside, the file registers one test that re-runs the same file under `unshare --net` with only
// `lo` up and checks that the expected number of tests passed in there; inside, `INSIDE` is true
// and the file registers its real tests. So the app's mDNS and the LAN bots never send a packet
// outside the namespace.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Whether this process is the re-run inside the namespace. */
export const INSIDE = process.env.MAHARAJAH_IN_NETNS === '1';

/** Outside the namespace: one test named `title` that runs `fileUrl` in there, expecting `passes`. */
export function runInsidePrivateNetwork(title, fileUrl, passes, timeoutMs) {
  const self = fileURLToPath(fileUrl);
  test(title, () => {
    const probe = spawnSync('unshare', ['--net', 'true']);
    if (probe.status !== 0) {
      const why = `unshare --net is not allowed here: ${String(probe.stderr).trim()}`;
      assert.notEqual(process.env.CI, 'true', `${why} (under CI this must work)`);
      console.log(`SKIPPED: ${why}`);
      return;
    }
    // A fresh test runner in there (without this runner's context, which would make it skip).
    const { NODE_TEST_CONTEXT: _, ...env } = process.env;
    const run = spawnSync('unshare', ['--net', '--', 'sh', '-c',
      'ip link set lo up && exec node --test --test-concurrency=1 --test-reporter=tap "$0"', self], {
      env: { ...env, MAHARAJAH_IN_NETNS: '1' },
      encoding: 'utf8',
      maxBuffer: 16 << 20,
      timeout: timeoutMs,
    });
    console.log(run.stdout);
    console.error(run.stderr);
    assert.equal(run.status, 0, `the tests inside the namespace pass; failed in there:\n${failures(run.stdout)}`);
    assert.match(run.stdout, new RegExp(`^# pass ${passes}$`, 'm'), `all ${passes} ran inside the namespace`);
    assert.match(run.stdout, /^# fail 0$/m);
  });
}

/**
 * The failing subtests of a TAP run with their error blocks (`not ok` up to the next result), so
 * the reason shows in the outer failure even where only the end of a long log is kept.
 */
function failures(tap) {
  const lines = String(tap ?? '').split('\n');
  const out = [];
  let inside = false;
  for (const line of lines) {
    if (/^\s*not ok /.test(line)) inside = true;
    else if (/^\s*ok /.test(line) || /^\s*# Subtest:/.test(line)) inside = false;
    if (inside) out.push(line);
  }
  return out.length ? out.join('\n').slice(0, 6000) : '(no failing subtest reported: the run itself failed or timed out)';
}
