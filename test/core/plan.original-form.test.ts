/**
 * Plans of the original tool, and request bodies written as JSON objects (issue 39 §1, §9), through the
 * real CLI and MCP against the emulator. The original's plan type (bgdnvk/clanker internal/maker/plan.go):
 * `version`, `createdAt`, `provider`, `question`, `summary`, `commands[{args, reason?, produces?, stdin?}]`,
 * `notes`, `capabilities`; its GPU cloud plans name the provider `verda` and the verb `verda-api`.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cliInThisProcess, runCli, tempHome, withEmulator } from '../support/cli.js';
import { callTool, connectStdio, textOf } from '../support/mcp.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

const CREATE_BODY = { instance_type: '1V100.6V', image: 'ubuntu-24.04-cuda-12.8-open-docker', hostname: 'orig-1', description: '', location_code: 'FIN-01', ssh_key_ids: [] as string[] };

/** A plan as the original tool's maker writes it: every extra key it knows, a step without a reason, an empty stdin. */
function originalPlan(hostname = 'orig-1'): Record<string, unknown> {
  return {
    version: 1,
    createdAt: '2026-11-20T10:00:00Z',
    provider: 'verda',
    question: 'create a V100 box called orig-1',
    summary: 'one instance',
    commands: [
      { args: ['verda-api', 'GET', '/v1/instance-types', ''], reason: 'what types exist', stdin: '' },
      { args: ['verda-api', 'POST', '/v1/instances', JSON.stringify({ ...CREATE_BODY, hostname })], produces: { INSTANCE_ID: '$.id' } },
    ],
    notes: ['made by the original tool'],
    capabilities: { provider: 'verda', required_steps: ['create'] },
  };
}

function write(home: string, name: string, value: unknown): string {
  const path = join(home, name);
  writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value, null, 2));
  return path;
}

test("plan validate reads the original tool's plan with one warning naming what it read leniently; --strict refuses it", async () => {
  const home = tempHome();
  const file = write(home, 'orig.json', originalPlan());
  const lenient = await runCli(['--sandbox', 'plan', 'validate', file], { home });
  assert.is(lenient.code, 0, lenient.stderr);
  const warnings = lenient.stderr.split('\n').filter((l) => l.startsWith('warning:'));
  assert.is(warnings.length, 1, lenient.stderr);
  for (const word of ['createdAt', 'capabilities', 'stdin', 'reason', 'verda', 'verda-api', 'plan convert']) assert.match(warnings[0]!, word);
  const strict = await runCli(['--sandbox', 'plan', 'validate', '--strict', file], { home });
  assert.is(strict.code, 2, strict.stderr);
  assert.match(strict.stderr, /createdAt|capabilities/);
});

test('a plan without version is read as version 1 with a warning; a non-empty stdin stays an error (it would change what runs)', async () => {
  const home = tempHome();
  const { version: _v, ...noVersion } = originalPlan();
  const a = await runCli(['--sandbox', 'plan', 'validate', write(home, 'nov.json', noVersion)], { home });
  assert.is(a.code, 0, a.stderr);
  assert.match(a.stderr, /no "version" \(read as 1\)/);
  const withStdin = originalPlan();
  (withStdin.commands as Record<string, unknown>[])[0]!.stdin = 'yes\n';
  const b = await runCli(['--sandbox', 'plan', 'validate', write(home, 'stdin.json', withStdin)], { home });
  assert.is(b.code, 2, b.stderr);
  assert.match(b.stderr, /command 0 \(stdin\)/);
});

test("the original tool's plan dry-runs and applies against the emulator, and its derived reason says what it sends", async () => {
  await withEmulator(async ({ emu, env }) => {
    const home = tempHome();
    const file = write(home, 'orig.json', originalPlan('orig-apply'));
    const dry = await runCli(['ask', '--apply', '--dry-run', '--plan-file', file, '-o', 'json'], { home, env });
    assert.is(dry.code, 0, dry.stderr);
    assert.ok(emu.requests().every((r) => r.method === 'GET' || r.path.includes('oauth2')), 'a dry run sends only reads');
    const run = await runCli(['ask', '--apply', file, '-o', 'json'], { home, env });
    assert.is(run.code, 0, run.stderr);
    const creates = emu.requests().filter((r) => r.method === 'POST' && r.path === '/v1/instances');
    assert.is(creates.length, 1);
    const report = JSON.parse(run.stdout) as { steps: { reason?: string; description?: string }[] };
    assert.match(JSON.stringify(report), /\(no reason given\) gpucloud-api POST \/v1\/instances/);
  });
});

test('a body written as a JSON object validates, hashes and applies like the same body as a JSON string', async () => {
  await withEmulator(async ({ emu, env }) => {
    const home = tempHome();
    const body = { ...CREATE_BODY, hostname: 'obj-1' };
    const asObject = { version: 1, provider: 'gpucloud', commands: [{ args: ['gpucloud-api', 'POST', '/v1/instances', body], reason: 'create obj-1' }] };
    const asString = { version: 1, provider: 'gpucloud', commands: [{ args: ['gpucloud-api', 'POST', '/v1/instances', JSON.stringify(body)], reason: 'create obj-1' }] };
    const first = await runCli(['ask', '--apply', '--plan-file', write(home, 'object.json', asObject)], { home, env });
    assert.is(first.code, 0, first.stderr);
    const sent = emu.requests().filter((r) => r.method === 'POST' && r.path === '/v1/instances');
    assert.is(sent.length, 1);
    assert.equal(JSON.parse(sent[0]!.body ?? ''), body);
    // The same plan with the body as a string is the same plan: the journal knows it was applied.
    const again = await runCli(['ask', '--apply', '--plan-file', write(home, 'string.json', asString)], { home, env });
    assert.is(again.code, 3, again.stderr);
    assert.match(again.stderr, /already applied/);
    assert.is(emu.requests().filter((r) => r.method === 'POST' && r.path === '/v1/instances').length, 1, 'nothing was created twice');
  });
});

test('plan convert writes the original plan in this form (bodies as objects, one field a line) and round-trips through --body string', async () => {
  const home = tempHome();
  const orig = write(home, 'orig.json', originalPlan());
  const toObject = await runCli(['--sandbox', 'plan', 'convert', orig], { home });
  assert.is(toObject.code, 0, toObject.stderr);
  const converted = JSON.parse(toObject.stdout) as { provider: string; commands: { args: unknown[]; reason: string }[]; createdAt?: unknown; created_at?: string };
  assert.is(converted.provider, 'gpucloud');
  assert.is(converted.commands[1]!.args[0], 'gpucloud-api');
  assert.equal(converted.commands[1]!.args[3], { ...CREATE_BODY });
  assert.is(converted.createdAt, undefined);
  assert.is(converted.created_at, '2026-11-20T10:00:00Z');
  assert.match(toObject.stdout, /\n {10}"hostname": "orig-1",\n/, "one field a line");
  // Converted, it is strict: no warning, and --strict accepts it.
  const objFile = write(home, 'converted.json', toObject.stdout);
  const strict = await runCli(['--sandbox', 'plan', 'validate', '--strict', objFile], { home });
  assert.is(strict.code, 0, strict.stderr);
  assert.not.match(strict.stderr, /warning/);
  const toString = await runCli(['--sandbox', 'plan', 'convert', objFile, '--body', 'string'], { home });
  assert.is(toString.code, 0, toString.stderr);
  const strings = JSON.parse(toString.stdout) as { commands: { args: unknown[] }[] };
  assert.is(strings.commands[1]!.args[3], JSON.stringify(CREATE_BODY));
  const back = await runCli(['--sandbox', 'plan', 'convert', '-'], { home, input: toString.stdout });
  assert.is(back.stdout, toObject.stdout, 'object → string → object is the same text');
});

test("an original cloud plan names provider aws: it is read as cloud_a with the aws verb unchanged", async () => {
  const home = tempHome();
  const plan = { version: 1, createdAt: '2026-11-20T10:00:00Z', provider: 'aws', question: 'q', summary: 's', commands: [{ args: ['aws', 'ec2', 'describe-vpcs'], reason: 'look' }] };
  const r = await runCli(['plan', 'show', '--plan-file', write(home, 'aws.json', plan), '-o', 'json'], { home });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stderr, /provider "aws" → "cloud_a"/);
});

test('every plan reader takes the plan the same ways: the argument, --plan-file, or stdin; two plans at once is a usage error', async () => {
  const home = tempHome();
  const file = write(home, 'p.json', originalPlan());
  for (const args of [['plan', 'validate', '--plan-file', file], ['plan', 'show', file], ['plan', 'show', '-'], ['plan', 'validate']]) {
    const r = await runCli(['--sandbox', ...args], { home, input: JSON.stringify(originalPlan()) });
    assert.is(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
  }
  const both = await runCli(['--sandbox', 'plan', 'validate', file, '--plan-file', join(home, 'other.json')], { home });
  assert.is(both.code, 2, both.stderr);
  assert.match(both.stderr, /two plans given/);
  const applyTwo = await runCli(['--sandbox', 'ask', '--apply', file, 'extra'], { home });
  assert.is(applyTwo.code, 2, applyTwo.stderr);
  assert.match(applyTwo.stderr, /one plan file/);
});

test("MCP plan_validate reads the original tool's plan and a body object like the CLI does", async () => {
  const home = tempHome();
  const { client } = await connectStdio({ home, globalArgs: ['--sandbox'] });
  try {
    const orig = await callTool(client, 'assistant_plan_validate', { plan: originalPlan() });
    assert.not.ok(orig.isError, textOf(orig));
    assert.match(textOf(orig), /valid plan/);
    const withStdin = originalPlan();
    (withStdin.commands as Record<string, unknown>[])[0]!.stdin = 'y';
    const refused = await callTool(client, 'assistant_plan_validate', { plan: withStdin });
    assert.ok(refused.isError, textOf(refused));
    assert.match(textOf(refused), /stdin/);
  } finally {
    await client.close();
  }
});

test.run();
