/**
 * `deploy <repo_url>` (issue 15) through the real CLI against the emulator: small real repositories
 * built with git, the analysis, the exact plan steps, GPU vs CPU type, containers with secrets that
 * never appear in the plan, and the unknowns refused in a pipe naming the flag that settles them.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PassThrough } from 'node:stream';
import { commandContext, type CommandContext } from '../../commands/context.js';
import { run as runDeploy } from '../../commands/deploy.js';
import { cliInThisProcess, runCli, tempHome, withEmulator } from '../support/cli.js';
import { COMPOSE_IMAGE, FASTAPI_TORCH, makeRepo, NODE_DOCKER, NOTHING } from '../support/git-repos.js';
import { emulatorDefaultsConfig } from '../support/emulator.js';
import { tempDir } from '../support/temp.js';
import { capturedStreams } from '../support/in-process.js';

// `runCli` runs the CLI in this process (test/support/cli.ts): git takes the command's environment (ctx.env).
cliInThisProcess();

const T = { timeoutMs: 120_000 };

const config = emulatorDefaultsConfig;

type Cmd = { args: unknown[]; reason: string; produces?: Record<string, string> };
/** The plan is written with its bodies as JSON objects. */
const body = (c: Cmd) => c.args[3] as Record<string, any>;
const shape = (commands: Cmd[]) => commands.map((c) => c.args.slice(0, 3).join(' '));

test('a FastAPI app with torch in its requirements: a GPU Python service, planned as script → cheapest fitting GPU instance → wait', async () => {
  const repo = makeRepo('fastapi-gpu', FASTAPI_TORCH);
  await withEmulator(async ({ env }) => {
    const r = await runCli(['--config', config(), 'deploy', repo.url, '-o', 'json'], { ...T, env });
    assert.is(r.code, 0, r.stderr);
    const { stack, plan } = JSON.parse(r.stdout);
    assert.is(stack.language, 'python');
    assert.is(stack.framework, 'fastapi');
    assert.is(stack.port, 8000);
    assert.is(stack.start, 'uvicorn app.main:app --host 0.0.0.0 --port $PORT');
    assert.is(stack.gpu.needed, true);
    assert.ok(stack.gpu.reasons.some((x: string) => x.startsWith('torch')), stack.gpu.reasons);
    assert.is(stack.gpu.memoryGb, 20, 'Llama-3.1-8B at 16 bits plus a fifth');
    assert.equal(stack.env, [{ name: 'MODEL_ID', secret: false }, { name: 'HF_TOKEN', secret: true }, { name: 'LOG_LEVEL', secret: false }]);
    assert.is(stack.commit, repo.sha);
    assert.is(plan.provider, 'gpucloud');
    assert.equal(shape(plan.commands), ['gpucloud-api POST /v1/scripts', 'gpucloud-api POST /v1/instances', 'gpucloud-wait instances <INSTANCE_ID>']);
    assert.equal(plan.commands[2].args, ['gpucloud-wait', 'instances', '<INSTANCE_ID>', 'running']);
    assert.equal(plan.commands.map((c: Cmd) => c.produces), [{ SCRIPT_ID: '$.id' }, { INSTANCE_ID: '$.id' }, { INSTANCE_IP: '$.ip' }]);
    const script = body(plan.commands[0]);
    assert.match(script.name, new RegExp(`^deploy-fastapi-gpu-${repo.sha.slice(0, 7)}-[0-9a-f]{6}$`));
    assert.ok(script.script.includes(`/usr/local/sbin/assistant-deploy-fastapi-gpu ${repo.sha}`), 'the script checks out the resolved commit');
    assert.ok(script.script.includes('exec uvicorn app.main:app'));
    assert.ok(script.script.includes('systemctl restart'));
    const instance = body(plan.commands[1]);
    // 20 GB of GPU memory: the 16 GB V100 is too small; the cheapest 48 GB type available in FIN-01 is the A6000.
    assert.equal(instance, {
      instance_type: '1A6000.10V',
      image: 'ubuntu-24.04-cuda-12.8-open-docker',
      hostname: 'fastapi-gpu',
      description: `deploy of ${repo.url} at ${repo.sha.slice(0, 7)}`,
      location_code: 'FIN-01',
      ssh_key_ids: ['<DEFAULT_SSH_KEY_ID>'],
      startup_script_id: '<SCRIPT_ID>',
    });
    assert.match(r.stderr, /the repository is a local path/);
  });
});

test('a GPU service without a declared model gets the cheapest GPU type; --location picks where', async () => {
  const { ['.env.example']: _drop, ...files } = FASTAPI_TORCH;
  const repo = makeRepo('torch-small', files);
  await withEmulator(async ({ env }) => {
    const r = await runCli(['--config', config(), 'deploy', repo.url], { ...T, env });
    assert.is(r.code, 0, r.stderr);
    assert.is(body(JSON.parse(r.stdout).commands[1]).instance_type, '1V100.6V');
    const ice = await runCli(['--config', config(), 'deploy', repo.url, '--location', 'ICE-01'], { ...T, env });
    assert.is(ice.code, 0, ice.stderr);
    assert.is(body(JSON.parse(ice.stdout).commands[1]).instance_type, '1H100.80S.22V', 'the cheapest GPU sold in ICE-01');
  });
});

test('a Node app with a Dockerfile: a CPU service built and run in docker on the cheapest CPU type, with a CPU image', async () => {
  const repo = makeRepo('node-web', NODE_DOCKER);
  await withEmulator(async ({ env }) => {
    const r = await runCli(['--config', config(), 'deploy', repo.url, '-o', 'json'], { ...T, env });
    assert.is(r.code, 0, r.stderr);
    const { stack, plan } = JSON.parse(r.stdout);
    assert.is(stack.language, 'node');
    assert.is(stack.framework, 'express');
    assert.is(stack.runtime, 'docker');
    assert.is(stack.port, 3000);
    assert.is(stack.gpu.needed, false);
    assert.equal(stack.dockerfile, { from: ['node:20-slim'], expose: [3000], cmd: 'node server.js' });
    const instance = body(plan.commands[1]);
    assert.is(instance.instance_type, 'CPU.4V.16G');
    assert.is(instance.image, 'ubuntu-24.04');
    const script = body(plan.commands[0]).script as string;
    assert.ok(script.includes('docker build -t "assistant-deploy/$APP:$COMMIT" .'));
    assert.ok(script.includes('-p "$PORT:$PORT"'));
    assert.not.ok(script.includes('--gpus all'));
  });
});

test('--instance-type overrides the choice and is checked against the catalogue and availability (exit 2, nothing created)', async () => {
  const repo = makeRepo('node-web', NODE_DOCKER);
  await withEmulator(async ({ emu, env }) => {
    const ok = await runCli(['--config', config(), 'deploy', repo.url, '--instance-type', 'CPU.8V.32G'], { ...T, env });
    assert.is(ok.code, 0, ok.stderr);
    assert.is(body(JSON.parse(ok.stdout).commands[1]).instance_type, 'CPU.8V.32G');
    const unknown = await runCli(['--config', config(), 'deploy', repo.url, '--instance-type', 'NOPE.1V'], { ...T, env });
    assert.is(unknown.code, 2);
    assert.match(unknown.stderr, /error: unknown_instance_type: instance type "NOPE.1V" is not in the gpucloud catalogue/);
    const soldOut = await runCli(['--config', config(), 'deploy', repo.url, '--instance-type', '1H100.80S.22V'], { ...T, env });
    assert.is(soldOut.code, 2);
    assert.match(soldOut.stderr, /1H100.80S.22V is not available in FIN-01/);
    assert.not.ok(emu.requests().some((q) => q.method !== 'GET' && q.path !== '/v1/oauth2/token'), 'only reads were sent');
  });
});

test('a compose file naming an image plans a container deployment; secret env values become gpucloud secrets, referenced and never in the plan', async () => {
  const repo = makeRepo('compose-img', COMPOSE_IMAGE);
  const secret = 'k3y-value-that-must-not-leak';
  const envFile = join(tempDir('deploy-env-'), 'prod.env');
  writeFileSync(envFile, `API_KEY="${secret}"\nLOG_LEVEL=debug\n`, { mode: 0o600 });
  await withEmulator(async ({ env }) => {
    const r = await runCli(['--config', config(), 'deploy', repo.url, '--env-file', envFile, '--name', 'Inference API'], { ...T, env });
    assert.is(r.code, 0, r.stderr);
    assert.not.ok(r.stdout.includes(secret) || r.stderr.includes(secret), 'the secret value is nowhere in the output');
    const plan = JSON.parse(r.stdout);
    assert.equal(shape(plan.commands), ['gpucloud-api POST /v1/secrets', 'gpucloud-api POST /v1/container-deployments']);
    assert.equal(body(plan.commands[0]), { name: 'inference-api-api-key', value: '<DEPLOY_SECRET_API_KEY>' });
    const d = body(plan.commands[1]);
    assert.is(d.name, 'inference-api');
    assert.equal(d.compute, { name: 'General Compute', size: 1 });
    assert.equal(d.scaling.min_replica_count, 1);
    assert.equal(d.scaling.max_replica_count, 3);
    assert.equal(d.containers, [
      {
        image: 'ghcr.io/acme/inference:1.4.2',
        exposed_port: 9000,
        healthcheck: { enabled: true, port: 9000, path: '/' },
        env: [
          { type: 'secret', name: 'API_KEY', value_or_reference_to_secret: 'inference-api-api-key' },
          { type: 'plain', name: 'LOG_LEVEL', value_or_reference_to_secret: 'debug' },
        ],
      },
    ]);
    assert.match(r.stderr, /image: +ghcr\.io\/acme\/inference:1\.4\.2/);
  });
});

test('instance target: plain env values go into the startup script, secret ones never (the plan says where to put them); an unpinned image is refused', async () => {
  const repo = makeRepo('fastapi-gpu', FASTAPI_TORCH);
  const token = 'hf_abcdefghijklmnopqrstuvwxyz012345';
  const envFile = join(tempDir('deploy-env-'), 'prod.env');
  writeFileSync(envFile, `HF_TOKEN=${token}\nLOG_LEVEL=debug\nMODEL_ID=meta-llama/Llama-3.1-8B-Instruct\n`, { mode: 0o600 });
  await withEmulator(async ({ emu, env }) => {
    const r = await runCli(['--config', config(), 'deploy', repo.url, '--env-file', envFile], { ...T, env });
    assert.is(r.code, 0, r.stderr);
    assert.not.ok((r.stdout + r.stderr).includes(token));
    const script = body(JSON.parse(r.stdout).commands[0]).script as string;
    assert.ok(script.includes('LOG_LEVEL=debug\nMODEL_ID=meta-llama/Llama-3.1-8B-Instruct\n'));
    assert.match(r.stderr, /note: secret variables are not put on the instance by this plan .*: add HF_TOKEN to \/etc\/assistant-deploy\/fastapi-gpu.env/);
    const latest = await runCli(['--config', config(), 'deploy', repo.url, '--image', 'ghcr.io/acme/api:latest'], { ...T, env });
    assert.is(latest.code, 2);
    assert.match(latest.stderr, /error: image_not_pinned: image "ghcr.io\/acme\/api:latest" has no version tag/);
    assert.not.ok(emu.requests().some((q) => q.method !== 'GET' && q.path !== '/v1/oauth2/token'));
  });
});

test('a repository with nothing to run is refused in a pipe naming --start; an unknown port names --port (exit 2, nothing sent)', async () => {
  const nothing = makeRepo('notes', NOTHING);
  const twoPorts = makeRepo('two-ports', { Dockerfile: 'FROM python:3.12-slim\nEXPOSE 8000 9090\nCMD ["python", "serve.py"]\n' });
  await withEmulator(async ({ emu, env }) => {
    const r = await runCli(['--config', config(), 'deploy', nothing.url], { ...T, env });
    assert.is(r.code, 2);
    assert.match(r.stderr, /error: start_unknown: nothing to run found/);
    assert.match(r.stderr, /hint: say it with --start "<command>"/);
    assert.is(r.stdout, '');
    const noPort = await runCli(['--config', config(), 'deploy', nothing.url, '--start', './serve'], { ...T, env });
    assert.is(noPort.code, 2);
    assert.match(noPort.stderr, /error: port_unknown: no port found/);
    assert.match(noPort.stderr, /hint: say it with --port <port>/);
    const ambiguous = await runCli(['--config', config(), 'deploy', twoPorts.url], { ...T, env });
    assert.is(ambiguous.code, 2);
    assert.match(ambiguous.stderr, /several ports \(8000, 9090\)/);
    assert.is(emu.requests().length, 0, 'nothing was sent, not even a token request');
    const settled = await runCli(['--config', config(), 'deploy', nothing.url, '--start', './serve --fast', '--port', '7000'], { ...T, env });
    assert.is(settled.code, 0, settled.stderr);
    const script = body(JSON.parse(settled.stdout).commands[0]).script as string;
    assert.ok(script.includes('exec ./serve --fast'));
    assert.ok(script.includes('PORT=7000'));
  });
});

test('on a terminal the unknowns are asked instead: the start command, then the port (a wrong answer is asked again)', async () => {
  const nothing = makeRepo('notes', NOTHING);
  await withEmulator(async ({ env }) => {
    const stdin = new PassThrough();
    const { stdout, stderr, out, err } = capturedStreams();
    const home = tempHome();
    const ctx: CommandContext = commandContext({
      io: { stdout, stderr, stdin, stdoutIsTTY: false, stderrIsTTY: true, stdinIsTTY: true, columns: 120, color: false },
      env: { ...env, HOME: home },
      home,
      globals: { config: config(), output: 'table', outputExplicit: false, debug: false, yes: false, sandbox: false },
    });
    const answer = async (prompt: string, text: string) => {
      for (let i = 0; !err().includes(prompt) && i < 1200; i++) await new Promise((r) => setTimeout(r, 50));
      stdin.write(text);
    };
    const done = runDeploy([nothing.url], ctx);
    await answer('Command that starts the service:', './serve --fast\n');
    await answer('Port the service listens on:', 'eighty\n');
    await answer('a port is a number from 1 to 65535', '7000\n');
    assert.is(await done, 0, err());
    assert.match(err(), /nothing to run found/);
    const script = body(JSON.parse(out()).commands[0]).script as string;
    assert.ok(script.includes('exec ./serve --fast'));
    assert.ok(script.includes('PORT=7000'));
  });
});

test('an unknown --provider is refused (exit 2); a URL with credentials in it is refused', async () => {
  const repo = makeRepo('node-web', NODE_DOCKER);
  const r = await runCli(['deploy', repo.url, '--provider', 'cloud_z'], T);
  assert.is(r.code, 2);
  assert.match(r.stderr, /error: usage: unknown --provider "cloud_z" \(deploy supports gpucloud and cloud_a\)/);
  const creds = await runCli(['deploy', 'https://me:hunter2-password@example.invalid/me/app.git'], T);
  assert.is(creds.code, 2);
  assert.match(creds.stderr, /carries credentials/);
  assert.not.ok(creds.stderr.includes('hunter2'));
});

test.run();
