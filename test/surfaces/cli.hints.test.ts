/** Hints that fit the failure (issue 10 §2): the token endpoint's 503, DNS failures, unknown flags as typed. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cliInThisProcess, runCli, withEmulator } from '../support/cli.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

test('a 503 from the token endpoint says the auth service is unavailable, not that GPU capacity is exhausted', async () => {
  await withEmulator(async ({ emu, env }) => {
    emu.addFault({ method: 'POST', path: '/v1/oauth2/token', status: 503, code: 'service_unavailable', message: 'try later', times: -1 });
    const r = await runCli(['gpucloud', 'list', 'instances'], { env, timeoutMs: 60_000 });
    assert.is(r.code, 1, r.stderr);
    assert.match(r.stderr, /error: service_unavailable: /);
    assert.match(r.stderr, /hint: .*authentication service is unavailable/);
    assert.not.match(r.stderr, /capacity is probably exhausted/);
  });
});

test('a 503 from an API path still hints at capacity', async () => {
  await withEmulator(async ({ emu, env }) => {
    emu.addFault({ method: 'GET', path: '/v1/instances', status: 503, code: 'service_unavailable', message: 'no capacity', times: -1 });
    const r = await runCli(['gpucloud', 'list', 'instances'], { env, timeoutMs: 60_000 });
    assert.is(r.code, 1, r.stderr);
    assert.match(r.stderr, /hint: capacity is probably exhausted/);
  });
});

test('a host name that does not resolve is tried once, and the hint names the base URL settings', async () => {
  // .invalid never resolves (RFC 2606); offline machines answer EAI_AGAIN instead of ENOTFOUND, both count.
  // https: the client secret never goes over plain http to another host (secret-origins.ts).
  const env = { GPUCLOUD_BASE_URL: 'https://gpucloud-api.invalid', GPUCLOUD_CLIENT_ID: 'id', GPUCLOUD_CLIENT_SECRET: 'secret-for-dns-test' };
  const r = await runCli(['--debug', 'gpucloud', 'list', 'instances'], { env, timeoutMs: 60_000 });
  assert.is(r.code, 1, r.stderr);
  assert.match(r.stderr, /error: network_error: .*(ENOTFOUND|EAI_AGAIN)/);
  assert.match(r.stderr, /hint: .*could not be resolved.*GPUCLOUD_BASE_URL/);
  const attempts = r.stderr.match(/✗ (ENOTFOUND|EAI_AGAIN)/g) ?? [];
  assert.is(attempts.length, 1, `one attempt, no retries:\n${r.stderr}`);
  assert.not.ok(r.stderr.includes('secret-for-dns-test'));
});

test('an unknown flag is echoed as typed, not camel-cased', async () => {
  const a = await runCli(['gpucloud', 'list', 'instances', '--foo-bar']);
  assert.is(a.code, 2);
  assert.match(a.stderr, /error: usage: Unknown option "--foo-bar"/);
  const b = await runCli(['gpucloud', 'list', 'instances', '--no-such-thing=1']);
  assert.is(b.code, 2);
  assert.match(b.stderr, /Unknown option "--no-such-thing"/);
  const c = await runCli(['plan', 'validate', '--dryRunX']);
  assert.match(c.stderr, /Unknown option "--dryRunX"/);
});

test('a misspelt flag, subcommand or command gets "did you mean" with the one it most likely meant (exit 2)', async () => {
  const flag = await runCli(['ask', '--rout-only', 'list my instances']);
  assert.is(flag.code, 2);
  assert.match(flag.stderr, /^error: usage: Unknown option "--rout-only"; did you mean "--route-only"\?$/m);
  assert.match(flag.stderr, /^hint: run 'assistant ask --help'$/m);
  const prefix = await runCli(['k8s', 'create', 'gpucloud', 'c1', '--dry']);
  assert.match(prefix.stderr, /Unknown option "--dry"; did you mean "--dry-run"\?/);
  assert.match(prefix.stderr, /hint: run 'assistant k8s create gpucloud --help'/);
  const global = await runCli(['gpucloud', 'list', 'instances', '--sandbx']);
  assert.match(global.stderr, /Unknown option "--sandbx"; did you mean "--sandbox"\?/);
  const sub = await runCli(['gpucloud', 'lsit', 'instances']);
  assert.match(sub.stderr, /unknown subcommand "lsit" for "assistant gpucloud"; did you mean "list"\?/);
  const command = await runCli(['gpuclod', 'list', 'instances']);
  assert.is(command.code, 2);
  assert.match(command.stderr, /unknown command "gpuclod"; did you mean "gpucloud"\?/);
  const far = await runCli(['gpucloud', 'list', 'instances', '--zzz']);
  assert.not.match(far.stderr, /did you mean/, 'nothing close: no guess');
});

test.run();
