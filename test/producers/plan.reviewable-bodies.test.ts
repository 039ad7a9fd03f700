/**
 * Plans people can review in git (issue 39 §9), through the real CLI against the emulator: `ask --maker`
 * writes request bodies as JSON objects (keys sorted, one field a line) whether a model or the built-in
 * planner made them; that file and its string form (`plan convert --body string`) are one plan to
 * `plan validate`, `plan diff`, the dry run and `ask --apply` (same plan hash, same canonical requests, same
 * requests sent), and `plan convert --body string` then `--body object` gives back the same bytes.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EMULATOR_DEFAULT_SSH_KEY_ID, type Emulator } from '../../emulator/index.js';
import { cliInThisProcess, runCli as runCliDefault, type RunCliOptions, tempHome, withEmulator } from '../support/cli.js';
import { startOpenAiServer } from '../support/openai-server.js';
import { tempDir } from '../support/temp.js';
import { talkConfig } from '../support/talk.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

/** Children get a generous timeout: CI is a busy 2-core box and these start the CLI many times. */
const runCli = (args: string[], opts: RunCliOptions = {}) => runCliDefault(args, { timeoutMs: 120_000, ...opts });

type Written = { commands: { args: unknown[] }[] };
const CREATE = (emu: Emulator) => emu.requests().filter((r) => r.method === 'POST' && r.path === '/v1/instances').map((r) => ({ method: r.method, path: r.path, body: r.body }));

function config(ai: string): string {
  const dir = tempDir('assistant-bodies-');
  writeFileSync(join(dir, 'c.yaml'), `gpucloud:\n  default_location: FIN-01\n  default_ssh_key_id: ${EMULATOR_DEFAULT_SSH_KEY_ID}\nai:\n${ai}`, { mode: 0o600 });
  return join(dir, 'c.yaml');
}

/** Whether every object in a value has its keys in sorted order. */
function keysSorted(v: unknown): boolean {
  if (Array.isArray(v)) return v.every(keysSorted);
  if (typeof v !== 'object' || v === null) return true;
  const keys = Object.keys(v);
  return keys.join('\n') === [...keys].sort().join('\n') && Object.values(v).every(keysSorted);
}

/** The run journals in a home: `<hash>.jsonl` and the plan hash their `begin` entry names. */
function journals(home: string): { file: string; plan_hash: string }[] {
  const dir = join(home, '.assistant', 'runs');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .map((file) => ({ file, plan_hash: (JSON.parse(readFileSync(join(dir, file), 'utf8').split('\n')[0]!) as { plan_hash: string }).plan_hash }));
}

test("a model's plan written by ask --maker has its body as an object, keys sorted, one field a line, with the canonical request of the model's own text; --body string then object gives the same bytes", async () => {
  const srv = await startOpenAiServer();
  try {
    await withEmulator(async ({ env }) => {
      // As a model writes it: a body string with spaces, keys in its own order.
      const body = `{ "ssh_key_ids": ["<DEFAULT_SSH_KEY_ID>"], "location_code": "FIN-01", "image": "ubuntu-24.04-cuda-12.8-open-docker", "hostname": "rev-ai", "instance_type": "1V100.6V", "description": "" }`;
      const modelPlan = { version: 1, provider: 'gpucloud', summary: 'one box', commands: [{ args: ['gpucloud-api', 'POST', '/v1/instances', body], reason: 'create rev-ai', produces: { INSTANCE_ID: '$.id' } }] };
      srv.reply({ text: JSON.stringify(modelPlan) });
      const cfg = config(`  default_provider: openai\n  providers:\n    openai:\n      model: test-model\n      api_key_env: TEST_AI_KEY\n      local_model_inference_url: ${srv.baseURL}\n`);
      const aiEnv = { ...env, TEST_AI_KEY: 'sk-test-key-123456' };
      const home = tempHome('bodies-ai-');
      const made = await runCli(['--config', cfg, 'ask', '--maker', 'a V100 box called rev-ai'], { env: aiEnv, home });
      assert.is(made.code, 0, made.stderr);
      const written = JSON.parse(made.stdout) as Written;
      const object = written.commands[0]!.args[3] as Record<string, unknown>;
      assert.type(object, 'object');
      assert.equal(Object.keys(object), ['description', 'hostname', 'image', 'instance_type', 'location_code', 'ssh_key_ids']);
      assert.is(made.stdout, `${JSON.stringify(written, null, 2)}\n`, 'two spaces, one field a line');
      assert.match(made.stdout, /\n {10}"hostname": "rev-ai",\n {10}"image": /);

      const file = join(home, 'plan.json');
      writeFileSync(file, made.stdout);
      const asStrings = await runCli(['--config', cfg, 'plan', 'convert', file, '--body', 'string'], { env: aiEnv, home });
      assert.is(asStrings.code, 0, asStrings.stderr);
      assert.is((JSON.parse(asStrings.stdout) as Written).commands[0]!.args[3], JSON.stringify(object));
      const back = await runCli(['--config', cfg, 'plan', 'convert', '-', '--body', 'object'], { env: aiEnv, home, input: asStrings.stdout });
      assert.is(back.code, 0, back.stderr);
      assert.is(back.stdout, made.stdout, 'string form → object form is the maker’s file, byte for byte');

      // The canonical request is the model's: the dry run of its own text and of the written file send the same body.
      writeFileSync(join(home, 'model.json'), JSON.stringify(modelPlan));
      const dry = async (f: string) => {
        const r = await runCli(['--config', cfg, 'ask', '--apply', '--dry-run', '--plan-file', f, '-o', 'json'], { env: aiEnv, home });
        assert.is(r.code, 0, r.stderr);
        return (JSON.parse(r.stdout) as { steps: { request: string; body: unknown }[] }).steps.map((s) => ({ request: s.request, body: s.body }));
      };
      assert.equal(await dry(file), await dry(join(home, 'model.json')));
    });
  } finally {
    await srv.close();
  }
});

test('a built-in maker plan and its string form are one plan: plan validate, plan diff, the dry run and ask --apply agree (same plan hash, canonical requests, requests sent)', async () => {
  const cfg = config('  default_provider: builtin\n');
  const home = tempHome('bodies-builtin-');
  const objectFile = join(home, 'objects.json');
  const stringFile = join(home, 'strings.json');
  const sent: ReturnType<typeof CREATE>[] = [];
  const hashes: string[][] = [];
  await withEmulator(async ({ emu, env }) => {
    const made = await runCli(['--config', cfg, 'ask', '--maker', 'create a 1V100.6V instance called rev-1 in FIN-01'], { env, home });
    assert.is(made.code, 0, made.stderr);
    const written = JSON.parse(made.stdout) as Written;
    assert.ok(written.commands.every((c) => c.args.every((a) => keysSorted(a) && !(typeof a === 'string' && /^\s*[[{]/.test(a)))), made.stdout);
    assert.type(written.commands[0]!.args[3], 'object');
    writeFileSync(objectFile, made.stdout);
    const converted = await runCli(['--config', cfg, 'plan', 'convert', objectFile, '--body', 'string'], { env, home });
    assert.is(converted.code, 0, converted.stderr);
    writeFileSync(stringFile, converted.stdout);

    const validate = await Promise.all([objectFile, stringFile].map((f) => runCli(['--config', cfg, 'plan', 'validate', f, '-o', 'json'], { env, home })));
    for (const v of validate) assert.is(v.code, 0, v.stderr);
    assert.is(validate[0]!.stdout, validate[1]!.stdout);
    const dry = await Promise.all([objectFile, stringFile].map((f) => runCli(['--config', cfg, 'ask', '--apply', '--dry-run', '--plan-file', f, '-o', 'json'], { env, home })));
    for (const d of dry) assert.is(d.code, 0, d.stderr);
    assert.is(dry[0]!.stdout, dry[1]!.stdout, 'the same dry run: requests, bodies, prices');
    const drift = await Promise.all([objectFile, stringFile].map((f) => runCli(['--config', cfg, 'plan', 'diff', f, '-o', 'json'], { env, home })));
    assert.is(drift[0]!.code, drift[1]!.code, drift[0]!.stderr);
    assert.match(drift[0]!.stdout, /rev-1/);
    assert.is(drift[0]!.stdout, drift[1]!.stdout, 'plan diff sees one plan');

    const applied = await runCli(['--config', cfg, '--yes', 'ask', '--apply', objectFile], { env, home });
    assert.is(applied.code, 0, applied.stderr);
    sent.push(CREATE(emu));
    hashes.push(journals(home).map((j) => j.plan_hash));
    // The string form is the same plan: its journal says it was applied, and nothing is sent twice.
    const again = await runCli(['--config', cfg, '--yes', 'ask', '--apply', stringFile], { env, home });
    assert.is(again.code, 3, again.stderr);
    assert.match(again.stderr, /already applied/);
    assert.equal(CREATE(emu), sent[0]);
  });
  // Applied on its own (another emulator, another home), the string form sends the same request under the same hash.
  await withEmulator(async ({ emu, env }) => {
    const other = tempHome('bodies-strings-');
    const applied = await runCli(['--config', cfg, '--yes', 'ask', '--apply', stringFile], { env, home: other });
    assert.is(applied.code, 0, applied.stderr);
    sent.push(CREATE(emu));
    hashes.push(journals(other).map((j) => j.plan_hash));
  });
  assert.is(sent[0]!.length, 1);
  assert.equal(sent[1], sent[0]);
  const reviewed = JSON.stringify((JSON.parse(readFileSync(objectFile, 'utf8')) as Written).commands[0]!.args[3]);
  assert.is(sent[0]![0]!.body, reviewed.replace('<DEFAULT_SSH_KEY_ID>', EMULATOR_DEFAULT_SSH_KEY_ID), 'what was reviewed is what was sent');
  assert.is(hashes[0]!.length, 1);
  assert.equal(hashes[1], hashes[0]);
});

test("talk's /plan save writes the made plan with object bodies, and it is the plan /apply ran: ask --apply of the saved file finds it applied", async () => {
  await withEmulator(async ({ emu, env }) => {
    const home = tempHome('bodies-talk-');
    const input = '/maker create a 1V100.6V instance called rev-t in FIN-01\n/plan save t.json\n/apply\n';
    const talk = await runCli(['--config', talkConfig(), '--yes', 'talk', '--ai-profile', 'builtin'], { home, env, input });
    assert.is(talk.code, 0, talk.stderr);
    const saved = readFileSync(join(home, 't.json'), 'utf8');
    const body = (JSON.parse(saved) as Written).commands[0]!.args[3] as Record<string, unknown>;
    assert.is(body.hostname, 'rev-t');
    assert.ok(keysSorted(body), saved);
    assert.is(CREATE(emu).length, 1);
    const again = await runCli(['--config', talkConfig(), '--yes', 'ask', '--apply', join(home, 't.json')], { home, env });
    assert.is(again.code, 3, again.stderr);
    assert.match(again.stderr, /already applied/);
    assert.is(CREATE(emu).length, 1, 'nothing created twice');
  });
});

test.run();
