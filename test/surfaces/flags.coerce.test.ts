/**
 * Flags coerced by zod at the cac boundary (issue 23 item 4): a bad value is one line
 * `error: invalid_input: --flag: expected …` with a hint, exit 2, before anything is read or sent;
 * good values arrive typed (durations in seconds, enums canonical). Unknown flags keep their did-you-mean.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { coerceFlags, flag } from '../../commands/flag-spec.js';
import { InvalidInputError } from '../../engine/core/errors.js';
import { durationSeconds } from '../../commands/flag-coerce.js';
import { cliInThisProcess, runCli } from '../support/cli.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

test('--timeout abc: exit 2, error: invalid_input: --timeout: expected a duration like 30s, and a hint', async () => {
  const r = await runCli(['--timeout', 'abc', 'config', 'path']);
  assert.is(r.code, 2);
  assert.match(r.stderr, /^error: invalid_input: --timeout: expected a duration like 30s \(got "abc"\)\nhint: .*--timeout 30s/m);
  assert.is(r.stdout, '');
});

test('--timeout takes seconds or a duration (90, 1m30s)', async () => {
  for (const value of ['90', '1m30s', '2h']) {
    const r = await runCli(['--timeout', value, 'config', 'path']);
    assert.is(r.code, 0, `${value}: ${r.stderr}`);
  }
  const zero = await runCli(['--timeout', '0', 'config', 'path']);
  assert.is(zero.code, 2);
});

test('k8s flags: a bad port, duration or sort key is invalid_input (exit 2) before any kubeconfig is read', async () => {
  const port = await runCli(['k8s', 'deploy', 'nginx:1', '--name', 'web', '--port', '70000']);
  assert.is(port.code, 2, port.stderr);
  assert.match(port.stderr, /^error: invalid_input: --port: expected a port from 1 to 65535 \(got "70000"\)\nhint: run 'assistant k8s deploy --help'/m);
  const since = await runCli(['k8s', 'logs', 'web-1', '--since', '5x']);
  assert.match(since.stderr, /^error: invalid_input: --since: expected a duration like 30s \(got "5x"\)/m);
  const sort = await runCli(['k8s', 'stats', 'pods', '--sort-by', 'cpux']);
  assert.is(sort.code, 2);
  assert.match(sort.stderr, /^error: invalid_input: --sort-by: expected cpu or memory \(got "cpux"\); did you mean "cpu"\?/m);
});

test('an unknown flag still gets did-you-mean', async () => {
  const r = await runCli(['k8s', 'logs', 'web-1', '--sincee', '5m']);
  assert.is(r.code, 2);
  assert.match(r.stderr, /did you mean "--since"\?/);
});

test('coerceFlags: typed values out, absent flags absent, nothing loaded when nothing is given', async () => {
  const spec = { port: flag.port(), wait: flag.duration(), mode: flag.oneOf(['fast', 'safe']), count: flag.int(0, 10), on: flag.bool() };
  const out = await coerceFlags({ port: '8080', wait: '1m30s', mode: 'SAFE', count: 3, on: 'yes', other: 'x' } as Record<string, unknown>, spec, 'hint');
  assert.equal(out, { port: 8080, wait: 90, mode: 'safe', count: 3, on: true, other: 'x' });
  const none = { other: 1 };
  assert.is(await coerceFlags(none, spec, 'hint'), none);
  for (const [bad, message] of [
    [{ count: '11' }, /--count: expected a whole number from 0 to 10/],
    [{ count: '2.5' }, /--count: expected a whole number/],
    [{ port: true }, /--port: needs a value/],
    [{ on: 'maybe' }, /--on: expected true or false/],
  ] as const) {
    try {
      await coerceFlags(bad as Record<string, unknown>, spec, 'see help');
      assert.unreachable(`${JSON.stringify(bad)} was accepted`);
    } catch (err) {
      assert.instance(err, InvalidInputError);
      assert.is((err as InvalidInputError).code, 'invalid_input');
      assert.match((err as Error).message, message);
    }
  }
});

test('durations: s, m, h, d, ms and plain seconds; zero and junk refused', () => {
  assert.is(durationSeconds('30s'), 30);
  assert.is(durationSeconds('5m'), 300);
  assert.is(durationSeconds('1h30m'), 5400);
  assert.is(durationSeconds('2d'), 172_800);
  assert.is(durationSeconds('1500ms'), 1.5);
  assert.is(durationSeconds('45'), 45);
  for (const bad of ['0', '0s', '', 'abc', '5x', '-3', '1e9']) assert.is(durationSeconds(bad), undefined, bad);
});

test.run();
