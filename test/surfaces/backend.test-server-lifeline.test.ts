/**
 * The test harness's backend servers (test/support/backend.ts) do not outlive the test process that
 * started them: a test file killed by the runner (kill -9 on its timeout) used to leave `backend serve`
 * processes running, holding ports and data directories, until someone killed them by hand.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { processAlive } from '../../engine/core/process/probe.js';
import { tempHome } from '../support/cli.js';
import { until, within } from '../support/wait.js';

const BACKEND = new URL('../support/backend.js', import.meta.url).href;

test('a backend server a test process started stops when that process is killed with -9', async () => {
  // A stand-in test process: starts a server, says its pid, then does nothing until it is killed.
  const script = `const { startBackendProcess } = await import(${JSON.stringify(BACKEND)}); const b = await startBackendProcess({ home: process.argv[1] }); console.log(b.pid); setInterval(() => undefined, 1 << 30);`;
  // Its HOME is made here, so this file removes it (the killed process cannot).
  const holder = spawn(process.execPath, ['--input-type=module', '-e', script, tempHome('assistant-backend-')], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  holder.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  holder.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  const exited = once(holder, 'exit');
  await until(() => /^\d+\n/.test(out) || holder.exitCode !== null, 'the stand-in test process started its server', 240_000);
  const pid = Number(out.trim());
  assert.ok(pid > 0, `no server pid: ${out}\n${err}`);
  assert.ok(processAlive(pid), 'the server runs while its test process does');
  holder.kill('SIGKILL');
  await within(exited, 'the stand-in test process ended');
  try {
    await until(() => !processAlive(pid), 'the orphaned server stopped');
  } finally {
    if (processAlive(pid)) process.kill(pid, 'SIGKILL'); // not left running by a failure either
  }
});

test.run();
