/**
 * `assistant … | head`: a reader that closes the pipe early must not make the CLI print an unhandled
 * EPIPE stack trace.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BIN, CHILD_TIMEOUT_MS } from '../support/cli.js';
import { tempDir } from '../support/temp.js';

test('a reader that closes stdout early (| head) ends the command quietly: exit 0 and no EPIPE stack trace', async () => {
  const home = tempDir('assistant-pipe-');
  const child = spawn(process.execPath, [BIN, '--sandbox', 'gpucloud', 'list', 'instance-types', '-o', 'json'], {
    env: { PATH: process.env.PATH, HOME: home, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // The reader goes away before the command writes its result.
  child.stdout.destroy();
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), CHILD_TIMEOUT_MS);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearTimeout(timer);
  assert.is(code, 0, stderr);
  assert.not.match(stderr, /EPIPE|Unhandled 'error' event|\n\s+at /);
});

test.run();
