/**
 * `box manifest` → `plan validate` → `ask --apply --sandbox`: the real CLI in child processes; the
 * sandbox emulator's state shows the container deployment with its secrets as references. The token
 * stays in ~/.assistant/box; plans, output and journals hold only its SHA-256.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cliInThisProcess, runCli, tempHome } from '../support/cli.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();


const home = () => tempHome('assistant-box-manifest-');

/** Every file under a directory, recursively. */
function filesUnder(dir: string): string[] {
  let out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    out = statSync(p).isDirectory() ? [...out, ...filesUnder(p)] : [...out, p];
  }
  return out;
}

test('manifest → plan validate → dry run with its price → ask --apply --sandbox creates the deployment with secrets as references', async () => {
  const h = home();
  const m = await runCli(['--sandbox', 'box', 'manifest', '--agent', 'assistant', '--secret', 'OPENAI_API_KEY=openai-key'], { home: h });
  assert.is(m.code, 0, m.stderr);
  const plan = JSON.parse(m.stdout);
  assert.is(plan.version, 1);
  assert.is(plan.provider, 'gpucloud');
  const tokenPath = join(h, '.assistant', 'box', 'box-assistant.token');
  const token = readFileSync(tokenPath, 'utf8').trim();
  assert.match(token, /^abx_[A-Za-z0-9_-]{43}$/);
  assert.is(statSync(tokenPath).mode & 0o777, 0o600);
  assert.is(statSync(join(h, '.assistant', 'box')).mode & 0o777, 0o700);
  assert.not.ok(m.stdout.includes(token) || m.stderr.includes(token), 'the token is printed nowhere');
  const digest = createHash('sha256').update(token).digest('hex');
  const [secretStep, deployStep] = plan.commands;
  assert.equal(secretStep.args.slice(0, 3), ['gpucloud-api', 'POST', '/v1/secrets']);
  assert.equal(JSON.parse(secretStep.args[3]), { name: 'box-assistant-token-sha256', value: digest });
  const body = JSON.parse(deployStep.args[3]);
  assert.is(body.name, 'box-assistant');
  assert.equal(body.compute, { name: 'General Compute', size: 1 });
  assert.equal([body.scaling.min_replica_count, body.scaling.max_replica_count, body.scaling.concurrent_requests_per_replica], [0, 1, 1]);
  const [container] = body.containers;
  assert.match(container.image, /^ghcr\.io\/assistant-cli\/assistant-box:\d+\.\d+\.\d+/);
  assert.is(container.exposed_port, 8080);
  assert.equal(container.healthcheck, { enabled: true, port: 8080, path: '/healthz' });
  assert.equal(container.entrypoint_overrides, { enabled: true, entrypoint: ['assistant', 'box', 'serve'], cmd: ['--agent', 'assistant', '--listen', '0.0.0.0:8080'] });
  assert.equal(container.env, [
    { type: 'plain', name: 'PORT', value_or_reference_to_secret: '8080' },
    { type: 'secret', name: 'ASSISTANT_BOX_TOKEN_SHA256', value_or_reference_to_secret: 'box-assistant-token-sha256' },
    { type: 'secret', name: 'OPENAI_API_KEY', value_or_reference_to_secret: 'openai-key' },
  ]);
  assert.match(m.stderr, /warning: gpucloud secret\(s\) openai-key do not exist yet/);

  const v = await runCli(['plan', 'validate'], { home: h, input: m.stdout });
  assert.is(v.code, 0, v.stderr);
  assert.match(v.stdout, /plan is valid: 2 command\(s\)/);

  // Without the referenced secret the emulator refuses the deployment, as gpucloud does: make the plan without it.
  const plain = await runCli(['--sandbox', 'box', 'manifest', '--agent', 'assistant', '--name', 'box-one'], { home: h });
  assert.is(plain.code, 0, plain.stderr);
  const dry = await runCli(['--sandbox', 'ask', '--apply', '--dry-run'], { home: h, input: plain.stdout });
  assert.is(dry.code, 0, dry.stderr);
  assert.match(dry.stdout, /step 1: container General Compute\s+0\.04\/hour\s+28\.80\/30 days\s+available now/);
  assert.match(dry.stderr, /scales to zero/);

  const applied = await runCli(['--sandbox', 'ask', '--apply', '-o', 'json'], { home: h, input: plain.stdout });
  assert.is(applied.code, 0, applied.stderr);
  const report = JSON.parse(applied.stdout);
  assert.is(report.status, 'succeeded');
  // The sandbox's endpoints are on this machine, never a vendor's host (issue 38 item 3).
  assert.is(report.bindings.ENDPOINT, 'http://127.0.0.1:9/containers/box-one');

  const list = await runCli(['--sandbox', 'gpucloud', 'list', 'containers', '-o', 'json'], { home: h });
  const deployed = JSON.parse(list.stdout).find((d: any) => d.name === 'box-one');
  assert.ok(deployed, list.stdout);
  assert.equal(deployed.containers[0].env.find((e: any) => e.name === 'ASSISTANT_BOX_TOKEN_SHA256'), { type: 'secret', name: 'ASSISTANT_BOX_TOKEN_SHA256', value_or_reference_to_secret: 'box-one-token-sha256' });
  const secrets = JSON.parse((await runCli(['--sandbox', 'gpucloud', 'list', 'secrets', '-o', 'json'], { home: h })).stdout);
  assert.ok(secrets.some((s: any) => s.name === 'box-one-token-sha256'));
  const state = readFileSync(join(h, '.assistant', 'sandbox', 'state.json'), 'utf8');
  const oneToken = readFileSync(join(h, '.assistant', 'box', 'box-one.token'), 'utf8').trim();
  assert.ok(state.includes(createHash('sha256').update(oneToken).digest('hex')), 'the secret holds the digest');
  for (const file of filesUnder(join(h, '.assistant')).filter((f) => !f.endsWith('.token'))) {
    const text = readFileSync(file, 'utf8');
    assert.not.ok(text.includes(oneToken) || text.includes(token), `no token in ${file}`);
  }

  const again = await runCli(['--sandbox', 'box', 'manifest', '--agent', 'assistant', '--name', 'box-one'], { home: h });
  assert.is(again.code, 2, again.stderr);
  assert.match(again.stderr, /^error: name_taken: a container deployment named "box-one" exists already/m);
});

test('the same name keeps its token: a second manifest is the same plan', async () => {
  const h = home();
  const a = await runCli(['--sandbox', 'box', 'manifest', '--agent', 'empty'], { home: h });
  const b = await runCli(['--sandbox', 'box', 'manifest', '--agent', 'empty'], { home: h });
  assert.is(a.code, 0, a.stderr);
  assert.match(a.stderr, /token: generated and kept/);
  assert.match(b.stderr, /token: kept in/);
  assert.is(a.stdout, b.stdout);
});

test('an unknown agent, region or size is exit 2 with the valid list; nothing is generated', async () => {
  const h = home();
  const agent = await runCli(['--sandbox', 'box', 'manifest', '--agent', 'nope'], { home: h });
  assert.is(agent.code, 2);
  assert.match(agent.stderr, /^error: unknown_agent: unknown agent "nope"/m);
  assert.match(agent.stderr, /^hint: valid agents: assistant, empty, claude-code, codex, gemini, goose, opencode$/m);
  const region = await runCli(['--sandbox', 'box', 'manifest', '--agent', 'assistant', '--region', 'MARS-01'], { home: h });
  assert.is(region.code, 2);
  assert.match(region.stderr, /^error: unknown_region: region "MARS-01"/m);
  assert.match(region.stderr, /^hint: valid regions: FIN-01, FIN-02, FIN-03, ICE-01$/m);
  const size = await runCli(['--sandbox', 'box', 'manifest', '--agent', 'assistant', '--region', 'FIN-01', '--size', 'H100'], { home: h });
  assert.is(size.code, 2);
  assert.match(size.stderr, /^error: unknown_size: size "H100" is not offered in FIN-01/m);
  assert.match(size.stderr, /^hint: valid sizes in FIN-01: "General Compute", "A100"$/m);
  const none = await runCli(['--sandbox', 'box', 'manifest'], { home: h });
  assert.is(none.code, 2);
  assert.match(none.stderr, /needs --agent/);
  for (const r of [agent, region, size, none]) assert.is(r.stdout, '');
  assert.throws(() => statSync(join(h, '.assistant', 'box')), 'no token was generated');
});

test('region and size pick the compute; --format container-spec prints the container alone', async () => {
  const h = home();
  const m = await runCli(['--sandbox', 'box', 'manifest', '--agent', 'assistant', '--region', 'fin-02', '--size', 'l40s', '--port', '9000', '--allow-apply', '--env', 'LOG_LEVEL=debug'], { home: h });
  assert.is(m.code, 0, m.stderr);
  const body = JSON.parse(JSON.parse(m.stdout).commands[1].args[3]);
  assert.equal(body.compute, { name: 'L40S', size: 1 });
  assert.is(body.scaling.scaling_triggers.gpu_utilization.enabled, true);
  assert.equal(body.containers[0].entrypoint_overrides.cmd, ['--agent', 'assistant', '--listen', '0.0.0.0:9000', '--allow-apply']);
  assert.ok(body.containers[0].env.some((e: any) => e.name === 'LOG_LEVEL' && e.type === 'plain' && e.value_or_reference_to_secret === 'debug'));
  assert.match(JSON.parse(m.stdout).summary, /region FIN-02/);

  const spec = await runCli(['--sandbox', 'box', 'manifest', '--agent', 'claude-code', '--image', 'ghcr.io/me/box-claude:1.0', '--format', 'container-spec'], { home: h });
  assert.is(spec.code, 0, spec.stderr);
  const container = JSON.parse(spec.stdout);
  assert.is(container.image, 'ghcr.io/me/box-claude:1.0');
  assert.equal(container.env.find((e: any) => e.name === 'ANTHROPIC_API_KEY'), { type: 'secret', name: 'ANTHROPIC_API_KEY', value_or_reference_to_secret: 'anthropic-api-key' });
  assert.not.ok('commands' in container);
  assert.match(spec.stderr, /set ASSISTANT_BOX_TOKEN_SHA256 in the container from a secret holding [0-9a-f]{64}/);
});

test('secret values never go in plain: a secret-looking --env, an unpinned image and reserved names are refused (exit 2)', async () => {
  const h = home();
  const cases: [string[], RegExp][] = [
    [['--env', 'OPENAI_API_KEY=sk-live-1234567890abcdef'], /secret_in_plain_env/],
    [['--env', 'PORT=1'], /reserved_env/],
    [['--secret', 'ASSISTANT_BOX_TOKEN'], /reserved_env/],
    [['--image', 'ghcr.io/me/box:latest'], /image_not_pinned/],
    [['--image', 'ghcr.io/me/box'], /image_not_pinned/],
    [['--secret', 'BAD NAME'], /invalid_env_name/],
    [['--format', 'helm'], /error: invalid_input: --format: expected plan or container-spec \(got "helm"\)/],
  ];
  for (const [args, re] of cases) {
    const r = await runCli(['--sandbox', 'box', 'manifest', '--agent', 'assistant', ...args], { home: h });
    assert.is(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, re, args.join(' '));
    assert.not.match(r.stderr, /sk-live-1234567890abcdef/);
    assert.is(r.stdout, '');
  }
});

test('a secret-looking plain --env value is refused with a hint naming --secret; the plan on stdout is never masked', async () => {
  const h = home();
  const values = [
    ['DATABASE_URL', 'postgres://app:hunter2-pw@db:5432/shop'],
    ['GH', 'ghp_abcdefghijklmnopqrstuvwxyz0123'],
    ['MODEL_HUB', 'hf_abcdefghijklmnopqrstuvwxyz'],
    ['OPENAI', 'sk-proj-abcdefghijklmnopqrstu'],
    ['AWS_ID', 'AKIAIOSFODNN7EXAMPLE'],
  ];
  for (const [name, value] of values) {
    const r = await runCli(['--sandbox', 'box', 'manifest', '--agent', 'assistant', '--env', `${name}=${value}`], { home: h });
    assert.is(r.code, 2, `${name}: ${r.stderr}`);
    assert.match(r.stderr, new RegExp(`^error: secret_in_plain_env: --env ${name}=…: the value looks like a secret`, 'm'));
    assert.match(r.stderr, new RegExp(`^hint: .*--secret ${name}=<secret-name>`, 'm'));
    assert.not.ok(r.stderr.includes(value), 'the value is not repeated');
    assert.is(r.stdout, '');
  }
  // What is accepted goes into the plan as it is: the default output is the same document as -o json,
  // and nothing in it was masked (the note telling how to call the box keeps its `Bearer $(cat …)`).
  const manifest = (...more: string[]) => runCli(['--sandbox', 'box', 'manifest', '--agent', 'assistant', '--name', 'box-plain', '--env', 'LOG_LEVEL=debug', ...more], { home: h });
  const table = await manifest();
  const json = await manifest('-o', 'json');
  assert.is(table!.code, 0, table!.stderr);
  assert.equal(JSON.parse(table!.stdout), JSON.parse(json!.stdout));
  assert.not.ok(table!.stdout.includes('***'), table!.stdout);
  assert.match(table!.stdout, /Authorization: Bearer \$\(cat ~\/\.assistant\/box\/box-plain\.token\)/);
});

test.run();
