/**
 * A cached token never stands in for unchecked credentials (issue 9 §3): the disk cache is keyed by the
 * secret, and `credentials test gpucloud` always asks the token endpoint.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cliInThisProcess, runCli, tempHome, withEmulator } from '../../support/cli.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

const tokenRequests = (emu: { requests(): { method: string; path: string }[] }) => emu.requests().filter((r) => r.path === '/v1/oauth2/token').length;

test('credentials test requests a fresh token even when a valid one is cached, and reports a wrong secret (exit 1)', async () => {
  await withEmulator(async ({ emu, env }) => {
    const home = tempHome();
    const warm = await runCli(['gpucloud', 'balance'], { env, home, timeoutMs: 60_000 });
    assert.is(warm.code, 0, warm.stderr);
    assert.is(readdirSync(join(home, '.assistant', 'tokens')).filter((f) => f.endsWith('.json')).length, 1, 'a token is cached');

    const ok = await runCli(['credentials', 'test', 'gpucloud'], { env, home, timeoutMs: 60_000 });
    assert.is(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /gpucloud credentials work/);
    assert.is(tokenRequests(emu), 2, 'the test asked the token endpoint although a token was cached');

    const wrong = await runCli(['credentials', 'test', 'gpucloud'], { env: { ...env, GPUCLOUD_CLIENT_SECRET: `${env.GPUCLOUD_CLIENT_SECRET}x` }, home, timeoutMs: 60_000 });
    assert.is(wrong.code, 1, `${wrong.stdout}\n${wrong.stderr}`);
    assert.match(wrong.stderr, /^error: /m);
    assert.not.match(wrong.stdout, /credentials work/);
    assert.not.ok(wrong.stderr.includes(env.GPUCLOUD_CLIENT_SECRET!), 'the secret is not echoed');
  });
});

test('a wrong secret never finds the token cached for the right one: any command fails at the token endpoint', async () => {
  await withEmulator(async ({ emu, env }) => {
    const home = tempHome();
    const warm = await runCli(['gpucloud', 'list', 'instances', '-o', 'json'], { env, home, timeoutMs: 60_000 });
    assert.is(warm.code, 0, warm.stderr);
    const before = tokenRequests(emu);
    const wrong = await runCli(['gpucloud', 'list', 'instances', '-o', 'json'], { env: { ...env, GPUCLOUD_CLIENT_SECRET: 'not-the-secret' }, home, timeoutMs: 60_000 });
    assert.is(wrong.code, 1, wrong.stderr);
    assert.is(wrong.stdout, '');
    assert.ok(tokenRequests(emu) > before, 'the wrong secret went to the token endpoint');
    // The right secret still reuses its own cached token: no new token request.
    const afterWrong = tokenRequests(emu);
    const again = await runCli(['gpucloud', 'list', 'instances', '-o', 'json'], { env, home, timeoutMs: 60_000 });
    assert.is(again.code, 0, again.stderr);
    assert.is(tokenRequests(emu), afterWrong);
  });
});

test.run();
