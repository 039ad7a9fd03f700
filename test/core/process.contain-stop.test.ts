/**
 * A contained child is stopped whole, whenever the stop comes. CI once saw `ask --timeout 2
 * --terraform-plan` print its timeout and then hang: the deadline had fired while bwrap was still
 * making the sandbox, the SIGTERM to bwrap's group killed bwrap alone, and the sandbox's first process
 * (a namespace's init, in a session of its own, not yet bound to die with bwrap) went on running the
 * program, which held our pipes. Here the stop comes at once after the spawn and at a few moments
 * after it; each time the child's pipes must close and nothing of the program may be left running.
 */
import { spawnSync } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { contain, sandboxAvailability } from '../../engine/core/process/contain.js';
import { killGroup } from '../../engine/core/process/group.js';
import { testWhen } from '../support/skip.js';

const sandboxMissing = () => {
  const a = sandboxAvailability(process.env);
  return a.ok ? undefined : a.why;
};
const whenSandboxed = testWhen(test, sandboxMissing);

/** A marker no other process has on its command line: what is left running of this test's programs. */
const MARKER = `contain-stop-${process.pid}`;
const leftRunning = () => spawnSync('pgrep', ['-f', MARKER], { encoding: 'utf8' }).stdout.trim();

/** Starts `sleep` in a sandbox and stops it after `afterMs` (0: in the same tick); resolves when its pipes closed, or says it did not. */
async function stopAfter(afterMs: number, signal: NodeJS.Signals): Promise<'closed' | 'still open'> {
  const c = contain({ what: 'a sleeper', command: 'sh', args: ['-c', `exec sleep 600 # ${MARKER}`], env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, network: false });
  const child = c.spawn(['ignore', 'pipe', 'pipe']);
  child.stdout!.resume();
  child.stderr!.resume();
  const closed = new Promise<'closed'>((resolve) => child.on('close', () => resolve('closed')));
  if (afterMs === 0) killGroup(child, signal);
  else setTimeout(() => killGroup(child, signal), afterMs);
  // Far longer than any stop takes; a child that outlives it is one the stop did not reach.
  let timer: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([closed, new Promise<'still open'>((resolve) => (timer = setTimeout(() => resolve('still open'), 20_000)))]);
  clearTimeout(timer);
  c.dispose();
  return outcome;
}

test.after(() => {
  spawnSync('pkill', ['-9', '-f', MARKER]);
});

whenSandboxed('a SIGTERM in the same tick as the spawn, before bwrap made the sandbox, stops the program and closes its pipes', async () => {
  for (let i = 0; i < 5; i++) {
    assert.is(await stopAfter(0, 'SIGTERM'), 'closed', `round ${i}`);
    assert.is(leftRunning(), '', `round ${i}: the program is still running`);
  }
});

whenSandboxed('a SIGTERM at any moment of the setup or after it stops the program and closes its pipes', async () => {
  for (const ms of [1, 3, 5, 10, 20, 50, 200]) {
    assert.is(await stopAfter(ms, 'SIGTERM'), 'closed', `after ${ms} ms`);
    assert.is(leftRunning(), '', `after ${ms} ms: the program is still running`);
  }
});

whenSandboxed('a SIGKILL (the last resort after the grace period) stops it too', async () => {
  for (const ms of [0, 5, 200]) {
    assert.is(await stopAfter(ms, 'SIGKILL'), 'closed', `after ${ms} ms`);
    assert.is(leftRunning(), '', `after ${ms} ms: the program is still running`);
  }
});

test.run();
