import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EMULATOR_DEFAULT_SSH_KEY_ID } from '../../emulator/index.js';
import { cliInThisProcess, runCli as runCliDefault, type RunCliOptions, tempHome, withEmulator } from '../support/cli.js';
import { startOpenAiServer } from '../support/openai-server.js';
import { tempDir } from '../support/temp.js';
import { createInstanceStep, gpucloudPlan } from '../support/plans.js';
import { within } from '../support/wait.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

/** Children get a generous timeout: CI is a busy 2-core box and these start the CLI many times. */
const runCli = (args: string[], opts: RunCliOptions = {}) => runCliDefault(args, { timeoutMs: 120_000, ...opts });

test('sandbox: ask --maker writes a plan with the built-in planner, and ask --apply runs it', async () => {
  const home = tempHome();
  const made = await runCli(['--sandbox', 'ask', '--maker', 'create a 1V100.6V instance called maker-1 in FIN-01'], { home });
  assert.is(made.code, 0, made.stderr);
  const plan = JSON.parse(made.stdout);
  assert.is(plan.version, 1);
  assert.is(plan.question, 'create a 1V100.6V instance called maker-1 in FIN-01');
  const applied = await runCli(['--sandbox', 'ask', '--apply', '-o', 'json'], { home, input: made.stdout });
  assert.is(applied.code, 0, applied.stderr);
  assert.is(JSON.parse(applied.stdout).status, 'succeeded');
  const list = await runCli(['--sandbox', 'gpucloud', 'list', 'instances', '-o', 'json'], { home });
  assert.ok((JSON.parse(list.stdout) as { hostname: string }[]).some((i) => i.hostname === 'maker-1'));
});

test('ask --maker refuses a destructive request without --destroyer (exit 3) and allows it with it', async () => {
  const home = tempHome();
  const refused = await runCli(['--sandbox', 'ask', '--maker', 'delete the instance demo-cpu'], { home });
  assert.is(refused.code, 3);
  assert.is(refused.stdout, '', 'nothing on stdout');
  const allowed = await runCli(['--sandbox', 'ask', '--maker', '--destroyer', 'delete the instance demo-cpu'], { home });
  assert.is(allowed.code, 0, allowed.stderr);
  assert.is(JSON.parse(allowed.stdout).commands[0].args[3].action, 'delete', 'the body (written as an object) deletes');
});

test('a request outside the built-in grammar is exit 2 with how to configure an AI provider', async () => {
  const r = await runCli(['--sandbox', 'ask', '--maker', 'make me a sandwich']);
  assert.is(r.code, 2);
  assert.match(r.stderr, /default_provider/);
});

/** A config using the built-in planner against the test emulator (optionally without a default SSH key). */
function builtinConfig(extraGpucloud = `  default_ssh_key_id: ${EMULATOR_DEFAULT_SSH_KEY_ID}\n`): string {
  const dir = tempDir('assistant-builtin-');
  writeFileSync(join(dir, 'c.yaml'), `gpucloud:\n  default_location: FIN-01\n${extraGpucloud}ai:\n  default_provider: builtin\n`, { mode: 0o600 });
  return join(dir, 'c.yaml');
}

test('built-in maker: "create a volume and attach it to X" waits until the new volume is ready, then attaches (applied against the emulator)', async () => {
  // Volumes stay "ordered" for 1.5 s here: an attach sent at once would be refused by the API.
  await withEmulator(
    async ({ env }) => {
      const config = builtinConfig();
      const made = await runCli(['--config', config, 'ask', '--maker', 'create a 50GB volume called scratch and attach it to demo-cpu'], { env });
      assert.is(made.code, 0, made.stderr);
      const plan = JSON.parse(made.stdout);
      assert.equal(plan.commands.map((c: { args: string[] }) => c.args.slice(0, 3)), [
        ['gpucloud-api', 'POST', '/v1/volumes'],
        ['gpucloud-wait', 'volumes', '<VOLUME_ID>'],
        ['gpucloud-api', 'PUT', '/v1/volumes'],
      ]);
      const applied = await runCli(['--config', config, 'ask', '--apply', '-o', 'json'], { env, input: made.stdout });
      assert.is(applied.code, 0, applied.stderr);
      const volumes = JSON.parse((await runCli(['--config', config, 'gpucloud', 'list', 'volumes', '-o', 'json'], { env })).stdout) as { name: string; status: string }[];
      assert.is(volumes.find((v) => v.name === 'scratch')?.status, 'attached');
    },
    { lifecycleMs: 1500 },
  );
});

test('built-in maker: attaching to a running instance is refused before anything is sent (exit 2, says to shut it down)', async () => {
  await withEmulator(async ({ env }) => {
    const r = await runCli(['--config', builtinConfig(), 'ask', '--maker', 'create a 50GB volume called scratch and attach it to demo-a100'], { env });
    assert.is(r.code, 2, r.stderr);
    assert.is(r.stdout, '');
    assert.match(r.stderr, /error: builtin_instance_running: demo-a100 is running/);
    assert.match(r.stderr, /hint: shut it down first \(assistant gpucloud action shutdown demo-a100\)/);
  });
});

test('built-in maker: "… and shut it down first" plans the shutdown and waits for it before attaching (applied against the emulator)', async () => {
  await withEmulator(async ({ env }) => {
    const config = builtinConfig();
    const made = await runCli(['--config', config, 'ask', '--maker', 'create a 50GB volume called scratch and attach it to demo-a100, shut it down first'], { env });
    assert.is(made.code, 0, made.stderr);
    const steps = JSON.parse(made.stdout).commands.map((c: { args: string[] }) => c.args.slice(0, 2).join(' '));
    assert.equal(steps, ['gpucloud-api PUT', 'gpucloud-wait instances', 'gpucloud-api POST', 'gpucloud-wait volumes', 'gpucloud-api PUT']);
    const applied = await runCli(['--config', config, 'ask', '--apply', '-o', 'json'], { env, input: made.stdout });
    assert.is(applied.code, 0, applied.stderr);
    const volumes = JSON.parse((await runCli(['--config', config, 'gpucloud', 'list', 'volumes', '-o', 'json'], { env })).stdout) as { name: string; status: string }[];
    assert.is(volumes.find((v) => v.name === 'scratch')?.status, 'attached');
  });
});

test('built-in maker refuses instead of planning something else: unknown location (valid ones listed), 1000 instances, a poem, a rename, "and then delete it"', async () => {
  const home = tempHome();
  const ask = (q: string) => runCli(['--sandbox', 'ask', '--maker', q], { home });
  const moon = await ask('create a 1H200.141S.44V instance in the moon datacenter');
  assert.is(moon.code, 2, moon.stderr);
  assert.match(moon.stderr, /error: unknown_location: location "MOON" is not in the gpucloud catalogue/);
  assert.match(moon.stderr, /hint: valid locations: FIN-01, FIN-02, FIN-03, ICE-01/);
  const many = await ask('create 1000 H200 instances in the moon datacenter');
  assert.is(many.code, 2);
  assert.match(many.stderr, /error: too_many: the built-in planner creates at most 10 instances per request; 1000 were asked for/);
  for (const q of ['write me a poem about GPUs', 'rename demo-a100 to trainer', 'create a 1V100.6V instance called t9 in FIN-01 and then delete it']) {
    const r = await ask(q);
    assert.is(r.code, 2, `${q}: ${r.stderr}`);
    assert.is(r.stdout, '', q);
    assert.match(r.stderr, /error: not_understood: /, q);
    assert.match(r.stderr, /default_provider: openai/, q);
    assert.match(r.stderr, /--ai-profile <name>/, q);
  }
});

test('built-in maker: "two … called a1 and a2" creates both, and a CPU type gets a CPU image from the live catalogue', async () => {
  const home = tempHome();
  const made = await runCli(['--sandbox', 'ask', '--maker', 'create two CPU.8V.32G instances called a1 and a2 in FIN-01'], { home });
  assert.is(made.code, 0, made.stderr);
  const bodies = JSON.parse(made.stdout).commands.map((c: { args: [string, string, string, Record<string, unknown>] }) => c.args[3]); // written as objects
  assert.equal(bodies.map((b: { hostname: string }) => b.hostname), ['a1', 'a2']);
  const types = JSON.parse((await runCli(['--sandbox', 'gpucloud', 'list', 'instance-types', '-o', 'json'], { home })).stdout) as { instance_type: string; supported_os: string[] }[];
  const supported = types.find((t) => t.instance_type === 'CPU.8V.32G')!.supported_os;
  for (const b of bodies) {
    assert.ok(supported.includes(b.image), `${b.image} runs on CPU.8V.32G`);
    assert.not.match(b.image, /cuda/);
  }
  const applied = await runCli(['--sandbox', 'ask', '--apply', '-o', 'json'], { home, input: made.stdout });
  assert.is(applied.code, 0, applied.stderr);
  const hosts = (JSON.parse((await runCli(['--sandbox', 'gpucloud', 'list', 'instances', '-o', 'json'], { home })).stdout) as { hostname: string }[]).map((i) => i.hostname);
  assert.ok(hosts.includes('a1') && hosts.includes('a2'), hosts.join(', '));
});

test('built-in maker without gpucloud.default_ssh_key_id says which key to set and how to list keys (exit 2)', async () => {
  await withEmulator(async ({ env }) => {
    const r = await runCli(['--config', builtinConfig(''), 'ask', '--maker', 'create a 1V100.6V instance called k1 in FIN-01'], { env });
    assert.is(r.code, 2, r.stderr);
    assert.match(r.stderr, /error: missing_default_ssh_key: .*gpucloud\.default_ssh_key_id is not set/);
    assert.match(r.stderr, /assistant gpucloud list ssh-keys/);
    assert.not.match(r.stderr, /invalid plan/);
  });
});

test('ask --maker with a configured OpenAI-compatible provider: the model gets the schema, the plan is validated and printed', async () => {
  const srv = await startOpenAiServer();
  try {
    await withEmulator(async ({ env }) => {
      const plan = gpucloudPlan(createInstanceStep('ai-1', { reason: 'create it', produces: true }));
      srv.reply({ text: JSON.stringify({ ...plan, produce: {} }) }, { text: JSON.stringify(plan) }); // a typo first: repaired on attempt 2
      const dir = tempDir('assistant-ai-');
      const config = `gpucloud:\n  default_ssh_key_id: ${EMULATOR_DEFAULT_SSH_KEY_ID}\nai:\n  default_provider: openai\n  providers:\n    openai:\n      model: test-model\n      api_key_env: TEST_AI_KEY\n      local_model_inference_url: ${srv.baseURL}\n`;
      writeFileSync(join(dir, 'c.yaml'), config, { mode: 0o600 });
      const r = await runCli(['--config', join(dir, 'c.yaml'), 'ask', '--maker', 'a V100 box called ai-1 in FIN-01'], { env: { ...env, TEST_AI_KEY: 'sk-test-key-123456' } });
      assert.is(r.code, 0, r.stderr);
      assert.is(JSON.parse(r.stdout).commands[0].produces.INSTANCE_ID, '$.id');
      const chats = srv.chatRequests();
      assert.is(chats.length, 2, 'the invalid first answer was sent back once');
      assert.match(JSON.stringify(chats[1]!.body), /produce/);
      assert.not.match(r.stdout + r.stderr, /sk-test-key-123456/);
    });
  } finally {
    await srv.close();
  }
});

test('ask --maker --timeout ends a model that never answers: exit 1 with the timeout, its request cancelled, nothing on stdout', async () => {
  const srv = await startOpenAiServer();
  try {
    await withEmulator(async ({ env }) => {
      srv.setDefault({ text: '{}', delayMs: 600_000 });
      const dir = tempDir('assistant-ai-');
      const config = `gpucloud:\n  default_ssh_key_id: ${EMULATOR_DEFAULT_SSH_KEY_ID}\nai:\n  default_provider: openai\n  providers:\n    openai:\n      model: test-model\n      api_key_env: TEST_AI_KEY\n      local_model_inference_url: ${srv.baseURL}\n`;
      writeFileSync(join(dir, 'c.yaml'), config, { mode: 0o600 });
      const cancelled = srv.nextCancelled();
      // The deadline must fall while the model is being asked. A loaded machine may spend the first one
      // before the CLI reaches the model (it then times out without asking it, and nothing is ever
      // cancelled): that run is repeated with a longer deadline, a bounded number of times.
      let r: Awaited<ReturnType<typeof runCli>> | undefined;
      for (const seconds of [3, 10, 30]) {
        r = await runCli(['--config', join(dir, 'c.yaml'), '--timeout', String(seconds), 'ask', '--maker', 'a V100 box called ai-1 in FIN-01'], { env: { ...env, TEST_AI_KEY: 'sk-test-key-123456' } });
        if (srv.chatRequests().length) break;
      }
      assert.ok(srv.chatRequests().length > 0, `no run reached the model before its deadline:\n${r!.stderr}`);
      assert.is(r!.code, 1, r!.stderr);
      assert.match(r!.stderr, /error: timeout/);
      assert.is(r!.stdout, '');
      assert.is((await within(cancelled, 'the model request was cancelled')).path, '/v1/chat/completions');
    });
  } finally {
    await srv.close();
  }
});

test.run();
