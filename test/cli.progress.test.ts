/**
 * Progress on stderr through an injected Io: a live spinner on a terminal, nothing or plain lines
 * elsewhere (the CLI's child-process tests never have a terminal, so the terminal case is driven here).
 */
import { PassThrough } from 'node:stream';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Io } from '../commands/context.js';
import { createPhaseSpinner } from '../commands/progress.js';

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

test('without a terminal there is no spinner at all', () => {
  assert.is(createPhaseSpinner(io(false).io), undefined);
});

test.run();
