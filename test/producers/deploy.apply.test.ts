/**
 * `deploy --apply` (issue 15 §4) against the emulator: the same apply path as `ask --apply` (journal,
 * progress, report), the URL in the report, redeploys that update instead of duplicating, the dry-run
 * cost preview, and secret values that reach gpucloud but no output, plan or journal.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EMULATOR_DEFAULT_SSH_KEY_ID } from '../../emulator/index.js';
import { cliInThisProcess, runCli, tempHome, withEmulator } from '../support/cli.js';
import { COMPOSE_IMAGE, FASTAPI_TORCH, httpRepoUrl, makeRepo, NODE_DOCKER, type TestRepo } from '../support/git-repos.js';
import { emulatorDefaultsConfig } from '../support/emulator.js';
import { tempDir } from '../support/temp.js';

// `runCli` runs the CLI in this process (test/support/cli.ts): git takes the command's environment (ctx.env).
cliInThisProcess();

const T = { timeoutMs: 120_000 };

const config = emulatorDefaultsConfig;

const servers: { close(): Promise<void> }[] = [];
/** The repository over git's smart HTTP: an instance must be able to fetch what it deploys (a file:// URL is refused). */
async function httpUrl(repo: TestRepo): Promise<string> {
  const served = await httpRepoUrl(repo);
  servers.push(served);
  return served.url;
}
test.after(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

const posts = (emu: { requests(): { method: string; path: string; body?: string }[] }, path: string) => emu.requests().filter((q) => q.method === 'POST' && q.path === path);

test('deploy --apply creates the startup script and the instance, waits until it runs, and the report shows http://<ip>:<port>', async () => {
  const repo = makeRepo('fastapi-gpu', FASTAPI_TORCH);
  const url = await httpUrl(repo);
  await withEmulator(async ({ emu, env }) => {
    const home = tempHome();
    const r = await runCli(['--config', config(), 'deploy', url, '--apply'], { ...T, env, home });
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stdout, /^succeeded: 3\/3 step\(s\) completed/);
    assert.match(r.stdout, /\nurl: http:\/\/\d+\.\d+\.\d+\.\d+:8000\n/);
    assert.match(r.stderr, /\[1\/3\] POST \/v1\/scripts/, 'progress on stderr, as ask --apply shows it');
    const [script] = posts(emu, '/v1/scripts');
    const [instance] = posts(emu, '/v1/instances');
    assert.ok(script && instance);
    assert.is(JSON.parse(instance.body!).instance_type, '1A6000.10V');
    assert.is(JSON.parse(instance.body!).ssh_key_ids[0], EMULATOR_DEFAULT_SSH_KEY_ID);
    // The same journal as ask --apply.
    assert.is(readdirSync(join(home, '.assistant', 'runs')).filter((f) => f.endsWith('.jsonl')).length, 1);

    const json = await runCli(['--config', config(), 'deploy', url, '--apply', '-o', 'json'], { ...T, env, home });
    assert.is(json.code, 0, json.stderr);
    const report = JSON.parse(json.stdout);
    assert.is(report.status, 'succeeded');
    assert.match(report.url, /^http:\/\/\d+\.\d+\.\d+\.\d+:8000$/);
  });
});

test('redeploying the same name: the same commit changes nothing, a new commit is an update with a new startup script, never a second instance', async () => {
  const repo = makeRepo('node-web', NODE_DOCKER);
  const url = await httpUrl(repo);
  await withEmulator(async ({ emu, env }) => {
    const home = tempHome();
    const first = await runCli(['--config', config(), 'deploy', url, '--apply'], { ...T, env, home });
    assert.is(first.code, 0, first.stderr);
    const again = await runCli(['--config', config(), 'deploy', url, '--apply'], { ...T, env, home });
    assert.is(again.code, 0, again.stderr);
    assert.match(again.stderr, /already deployed: node-web already runs/);
    assert.match(again.stdout, /succeeded: 1\/1/);
    const newSha = repo.commit({ 'server.js': "require('express')().listen(3000);\n" }, 'v2');
    const plan = await runCli(['--config', config(), 'deploy', url], { ...T, env, home });
    assert.is(plan.code, 0, plan.stderr);
    const commands = JSON.parse(plan.stdout).commands as { args: string[] }[];
    assert.equal(commands.map((c) => c.args.slice(0, 3).join(' ')), ['gpucloud-api POST /v1/scripts', `gpucloud-wait instances ${commands[1]!.args[2]}`]);
    assert.match(plan.stderr, new RegExp(`note: update: node-web keeps running; .*assistant-deploy-node-web ${newSha}`));
    const update = await runCli(['--config', config(), 'deploy', url, '--apply'], { ...T, env, home });
    assert.is(update.code, 0, update.stderr);
    assert.is(posts(emu, '/v1/instances').length, 1, 'one instance, created once');
    assert.is(posts(emu, '/v1/scripts').length, 2, 'a startup script per commit');
    assert.ok(JSON.parse(posts(emu, '/v1/scripts')[1]!.body!).script.includes(newSha));
    // Applying the update again does not create its script twice: it exists, so the plan reuses it.
    const twice = await runCli(['--config', config(), 'deploy', url, '--apply'], { ...T, env, home });
    assert.is(twice.code, 0, twice.stderr);
    assert.is(posts(emu, '/v1/scripts').length, 2);
  });
});

test('an instance of that name that deploy did not make is refused (exit 2), not taken over', async () => {
  const repo = makeRepo('demo-cpu', NODE_DOCKER);
  const url = await httpUrl(repo);
  await withEmulator(async ({ emu, env }) => {
    const r = await runCli(['--config', config(), 'deploy', url, '--apply'], { ...T, env });
    assert.is(r.code, 2, r.stderr);
    assert.match(r.stderr, /error: name_taken: an instance named "demo-cpu" exists and was not made by deploy/);
    assert.match(r.stderr, /hint: deploy under another name with --name/);
    assert.is(emu.requests().filter((q) => q.method !== 'GET' && q.path !== '/v1/oauth2/token').length, 0);
  });
});

test('container deploy: the secret value reaches gpucloud but no output, plan or journal; redeploying PATCHes the deployment', async () => {
  const repo = makeRepo('compose-img', COMPOSE_IMAGE);
  const url = await httpUrl(repo);
  const secret = 'sh0rt-lived-api-key-77';
  const envFile = join(tempDir('deploy-env-'), 'prod.env');
  writeFileSync(envFile, `API_KEY=${secret}\nLOG_LEVEL=info\n`, { mode: 0o600 });
  await withEmulator(async ({ emu, env }) => {
    const home = tempHome();
    const r = await runCli(['--config', config(), '--debug', 'deploy', url, '--env-file', envFile, '--apply', '-o', 'json'], { ...T, env, home });
    assert.is(r.code, 0, r.stderr);
    const [created] = posts(emu, '/v1/secrets');
    assert.equal(JSON.parse(created!.body!), { name: 'compose-img-api-key', value: secret }, 'gpucloud got the value');
    const report = JSON.parse(r.stdout);
    assert.is(report.url, 'https://containers.datacrunch.io/compose-img');
    assert.not.ok('DEPLOY_SECRET_API_KEY' in report.bindings);
    const journals = readdirSync(join(home, '.assistant', 'runs')).map((f) => readFileSync(join(home, '.assistant', 'runs', f), 'utf8')).join('');
    for (const [what, text] of [['stdout', r.stdout], ['stderr (--debug)', r.stderr], ['journal', journals]] as const) assert.not.ok(text.includes(secret), `the secret is in ${what}`);
    const plan = await runCli(['--config', config(), 'deploy', url, '--env-file', envFile], { ...T, env, home });
    assert.not.ok(plan.stdout.includes(secret));
    const commands = JSON.parse(plan.stdout).commands as { args: string[] }[];
    assert.equal(commands.map((c) => c.args.slice(0, 3).join(' ')), ['gpucloud-api PATCH /v1/container-deployments/compose-img'], 'an update, not a second create');
    assert.match(plan.stderr, /secret compose-img-api-key exists and is referenced as it is/);
    const update = await runCli(['--config', config(), 'deploy', url, '--env-file', envFile, '--apply'], { ...T, env, home });
    assert.is(update.code, 0, update.stderr);
    assert.is(emu.requests().filter((q) => q.method === 'PATCH').length, 1);
    assert.is(posts(emu, '/v1/container-deployments').length, 1);
  });
});

test('deploy --apply --dry-run sends only GETs and prices the instance it would create', async () => {
  const repo = makeRepo('node-web', NODE_DOCKER);
  const url = await httpUrl(repo);
  await withEmulator(async ({ emu, env }) => {
    const r = await runCli(['--config', config(), 'deploy', url, '--apply', '--dry-run', '-o', 'json'], { ...T, env });
    assert.is(r.code, 0, r.stderr);
    const preview = JSON.parse(r.stdout);
    const instance = preview.costs.find((c: { kind: string }) => c.kind === 'instance');
    assert.is(instance.type, 'CPU.4V.16G');
    assert.is(instance.per_hour, 0.0279);
    assert.is(instance.available, true);
    assert.equal([...new Set(emu.requests().filter((q) => q.path !== '/v1/oauth2/token').map((q) => q.method))], ['GET']);
  });
});


test('a local path or file:// repository deployed to an instance is refused (exit 2) before anything is priced or sent', async () => {
  const repo = makeRepo('local-only', NODE_DOCKER);
  await withEmulator(async ({ emu, env }) => {
    for (const where of [repo.dir, repo.url]) {
      for (const extra of [[], ['--dry-run']]) {
        const r = await runCli(['--config', config(), 'deploy', where, '--target', 'instance', '--apply', ...extra], { ...T, env });
        assert.is(r.code, 2, r.stderr);
        assert.match(r.stderr, /^error: repository_unreachable: .* is a path on this machine: the instance clones the repository itself/m);
        assert.match(r.stderr, /^hint: push it to a repository host/m);
      }
    }
    assert.equal(emu.requests().filter((q) => q.path !== '/v1/oauth2/token'), [], 'nothing priced or sent');
  });
});

test.run();
