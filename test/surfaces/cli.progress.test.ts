/**
 * Progress on stderr through an injected Io: a live spinner on a terminal, nothing or plain lines
 * elsewhere (the CLI's child-process tests never have a terminal, so the terminal case is driven here).
 */
import { waitNotice } from '../../engine/providers/gpucloud/types.js';
import { PassThrough } from 'node:stream';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Io } from '../../commands/context.js';
import { createPhaseSpinner, createStepProgress, createWaitNotices } from '../../commands/progress.js';

function io(tty: boolean): { io: Io; stderr: () => string } {
  const err = new PassThrough();
  let text = '';
  err.on('data', (d: Buffer) => (text += d.toString('utf8')));
  const out = new PassThrough();
  return {
    io: { stdout: out, stderr: err, stdin: new PassThrough(), stdoutIsTTY: tty, stderrIsTTY: tty, stdinIsTTY: false, columns: 80, color: false },
    stderr: () => text,
  };
}

test('on a terminal the phase spinner rewrites one line and clears it when stopped', async () => {
  const t = io(true);
  const spinner = createPhaseSpinner(t.io)!;
  spinner.phase('reading gpucloud');
  await new Promise((r) => setTimeout(r, 250));
  spinner.phase('writing the answer');
  spinner.stop();
  await new Promise((r) => setImmediate(r));
  const written = t.stderr();
  assert.match(written, /\r\x1b\[2K. reading gpucloud/);
  assert.match(written, /\r\x1b\[2K. writing the answer/);
  assert.ok(written.endsWith('\r\x1b[2K'), 'the line is cleared at the end');
  assert.not.match(written, /\n/, 'never more than the one line');
  assert.ok((written.match(/reading gpucloud/g) ?? []).length >= 2, 'repainted while waiting');
});

test('on a terminal a plan step shows elapsed time in place and ends with a ✓ line; elsewhere plain lines', async () => {
  const step = { type: 'step-done' as const, index: 0, total: 2, status: 202, produced: { INSTANCE_ID: 'i-1' }, durationMs: 12 };
  const t = io(true);
  const live = createStepProgress(t.io, 2);
  live.start(0, 'POST /v1/instances', 'create it');
  await new Promise((r) => setTimeout(r, 150));
  live.done(step);
  assert.match(t.stderr(), /\r\x1b\[2K. \[1\/2\] POST \/v1\/instances — create it  \d+\.\ds/);
  assert.ok(t.stderr().endsWith('\r\x1b[2K✓ [1/2] POST /v1/instances — create it  HTTP 202 in 12 ms INSTANCE_ID=i-1\n'));

  const p = io(false);
  const plain = createStepProgress(p.io, 2);
  plain.start(0, 'POST /v1/instances', 'create it');
  plain.done(step);
  plain.stop();
  await new Promise((r) => setImmediate(r));
  assert.is(p.stderr(), '[1/2] POST /v1/instances — create it\n      done: HTTP 202 in 12 ms INSTANCE_ID=i-1\n');
});

test('without a terminal there is no spinner at all', () => {
  assert.is(createPhaseSpinner(io(false).io), undefined);
});

test('wait notices: one line per kind of wait per 10 s (a queue of creates is not a line each), short waits unmentioned', async () => {
  const t = io(false);
  let now = 0;
  const notices = createWaitNotices(t.io, () => now);
  const wait = (waitMs: number) => ({ type: 'rate-limit-wait' as const, method: 'POST', path: '/v1/instances', waitMs });
  for (let i = 0; i < 50; i++) notices(waitNotice(wait(42_000)));
  notices(waitNotice({ type: 'retry', method: 'GET', path: '/v1/balance?x=1', attempt: 1, waitMs: 12_000, reason: 'rate_limit_exceeded' }));
  notices(waitNotice({ type: 'retry', method: 'GET', path: '/v1/locations', attempt: 1, waitMs: 250, reason: 'server_error' }));
  now = 10_001;
  notices(waitNotice(wait(30_500)));
  const poll = (message: string) => ({ reason: 'poll' as const, waitMs: 5_000, message });
  notices(poll('waiting for cluster c-1 to be running (status provisioning, 35 s)'));
  notices(poll('waiting for cluster c-1 to be running (status provisioning, 40 s)'));
  await new Promise((r) => setImmediate(r));
  assert.equal(t.stderr().split('\n').filter(Boolean), [
    'waiting 42 s for the rate limit of POST /v1/instances',
    'waiting 12 s (Retry-After) for the rate limit of GET /v1/balance',
    'waiting 31 s for the rate limit of POST /v1/instances',
    'waiting for cluster c-1 to be running (status provisioning, 35 s)',
  ]);
});

test.run();
