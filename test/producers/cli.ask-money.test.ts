/**
 * Questions about money and counts through the CLI, offline (no AI model): `assistant ask` with no AI
 * configured answers with the built-in answers and says so in one notice line; `--sandbox ask` and
 * `--sandbox talk` answer from the sandbox. Every figure expected is read from the same account through
 * the commands that own it (`cost summary -o json`, the cost capability; `gpucloud list instances -o
 * json`, the catalogue), never written in the test. Declines exit 2, name the command that answers, and
 * take at most 3 lines.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EMULATOR_DEFAULT_SSH_KEY_ID } from '../../emulator/index.js';
import { cliInThisProcess, runCli, tempHome, withEmulator } from '../support/cli.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

type Rec = Record<string, unknown>;
interface CostResource {
  kind: string;
  name: string;
  status: string;
  hourly_cost: number | null;
  gpus?: number;
}
interface Summary {
  hourly_cost: number;
  balance: number | null;
  runway_hours: number | null;
  resources: CostResource[];
}

const NO_AI = { OPENAI_API_KEY: undefined, ANTHROPIC_API_KEY: undefined, GEMINI_API_KEY: undefined, GOOGLE_API_KEY: undefined };
const NOTICE = /^notice: no AI provider is configured, so the built-in answers reply/m;

/** Instances whose names are also words ("big", "small", "data"), beside the emulator's demo ones. */
const createPlan = () => ({
  version: 1,
  provider: 'gpucloud',
  commands: [
    ['big', '8A100.176V'],
    ['small', '1V100.6V'],
    ['data', '1A100.22V'],
  ].map(([hostname, type]) => ({
    args: ['gpucloud-api', 'POST', '/v1/instances', JSON.stringify({ instance_type: type, image: 'ubuntu-24.04-cuda-12.8-open-docker', hostname, description: '', location_code: 'FIN-01', ssh_key_ids: [EMULATOR_DEFAULT_SSH_KEY_ID] })],
    reason: `create ${hostname}`,
  })),
});

/** The account's true figures, from the commands that own them. */
async function truth(args: string[], env: Record<string, string | undefined>, home?: string): Promise<{ summary: Summary; instances: Rec[] }> {
  const s = await runCli([...args, '-o', 'json', 'cost', 'summary'], { env, ...(home ? { home } : {}) });
  assert.is(s.code, 0, s.stderr);
  const i = await runCli([...args, '-o', 'json', 'gpucloud', 'list', 'instances'], { env, ...(home ? { home } : {}) });
  assert.is(i.code, 0, i.stderr);
  return { summary: JSON.parse(s.stdout) as Summary, instances: JSON.parse(i.stdout) as Rec[] };
}

/** With no AI configured, against an emulator that also runs the createPlan instances: the environment and the account's true figures. */
async function withWordInstances(fn: (at: { e: Record<string, string | undefined>; s: Summary; instances: Rec[] }) => Promise<void>): Promise<void> {
  await withEmulator(async ({ env }) => {
    const e = { ...env, ...NO_AI };
    const made = await runCli(['ask', '--apply'], { env: e, input: JSON.stringify(createPlan()) });
    assert.is(made.code, 0, made.stderr);
    const { summary: s, instances } = await truth([], e);
    await fn({ e, s, instances });
  });
}

const gpusOf = (r: Rec) => Number((r.gpu as Rec | undefined)?.number_of_gpus ?? 0);
const rateOf = (s: Summary, name: string) => s.resources.find((r) => r.name === name)!.hourly_cost!;
const escape = (t: string) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A decline as a person sees it: exit 2, nothing on stdout, the error and hint in at most 3 lines naming the command. */
function assertDeclined(r: { code: number | null; stdout: string; stderr: string }, command: RegExp): void {
  assert.is(r.code, 2, r.stderr);
  assert.is(r.stdout, '');
  const lines = r.stderr.split('\n').filter((l) => l && !/^(notice|sandbox): /.test(l));
  assert.ok(lines.length <= 3, `at most 3 lines:\n${lines.join('\n')}`);
  assert.match(lines[0]!, /^error: builtin_cannot_answer: /);
  assert.match(r.stderr, command);
}

test('with no AI configured, ask answers money and GPU questions from the cost capability and the catalogue, with one notice line', async () => {
  await withWordInstances(async ({ e, s, instances }) => {
    const ask = (q: string) => runCli(['ask', q], { env: e });

    let r = await ask('how much am I spending?');
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`^You are spending ${escape(s.hourly_cost.toFixed(4))} USD per hour \\(${escape((s.hourly_cost * 24).toFixed(2))} per day`));
    assert.is(r.stderr.match(new RegExp(NOTICE.source, 'gm'))?.length, 1, r.stderr);
    assert.is(r.stderr.trim().split('\n').length, 1, 'the notice is the one line on stderr');

    r = await ask('what do I spend per hour?');
    assert.match(r.stdout, new RegExp(`^You are spending ${escape(s.hourly_cost.toFixed(4))} USD per hour`), 'the burn, not the balance');
    assert.not.match(r.stdout, /^Your balance is/m);

    const running = instances.filter((i) => i.status === 'running');
    const gpus = running.reduce((n, i) => n + gpusOf(i), 0);
    assert.ok(gpus > running.length, 'the account has more GPUs than running instances (the count would show a mix-up)');
    r = await ask('how many GPUs are running?');
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`^${gpus} GPUs are running, on ${running.length} instances:`));

    const top = [...s.resources].filter((x) => x.hourly_cost !== null).sort((a, b) => b.hourly_cost! - a.hourly_cost!)[0]!;
    r = await ask('what costs the most?');
    assert.match(r.stdout, new RegExp(`^Instance ${escape(top.name)} costs the most of what bills now: ${escape(top.hourly_cost!.toFixed(2))} USD/hour`, 'i'));

    const dear = s.resources.filter((x) => x.kind === 'instance' && (x.hourly_cost ?? 0) > 1).map((x) => x.name).sort();
    r = await ask('which instances cost more than 1 USD per hour?');
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`^${dear.length} instances cost more than 1 USD per hour: `));
    const listed = [...r.stdout.matchAll(/([\w-]+) [\d.]+ USD\/hour/g)].map((m) => m[1]).sort();
    assert.equal(listed, dear);

    r = await ask('how much does big cost per day?');
    assert.is(r.stdout.trim(), `big costs ${rateOf(s, 'big').toFixed(2)} USD/hour (${(rateOf(s, 'big') * 24).toFixed(2)} USD per day).`);

    r = await ask('what is the IP of big?');
    assert.is(r.stdout.trim(), `big's IP address is ${String(instances.find((i) => i.hostname === 'big')!.ip)}.`);

    r = await ask('how long will my balance last?');
    assert.match(r.stdout, new RegExp(`^Your balance of ${escape(s.balance!.toFixed(2))} USD lasts ${escape(s.runway_hours!.toFixed(1))} hours`, 'm'));

    assertDeclined(await ask('how much did I pay last month?'), /`assistant cost summary`/);
    assertDeclined(await ask('which instances cost more than 2?'), /`assistant cost summary`/);
    assertDeclined(await ask('what is my burn in euros?'), /`assistant cost summary`/);
  });
});

test('--sandbox ask answers from the sandbox by its cost summary; a question naming no resource is declined naming the list and cost commands', async () => {
  const home = tempHome('assistant-money-');
  const { summary: s, instances } = await truth(['--sandbox'], {}, home);
  const ask = (q: string) => runCli(['--sandbox', 'ask', q], { home });
  let r = await ask("what's my burn rate");
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, new RegExp(`^You are spending ${escape(s.hourly_cost.toFixed(4))} USD per hour`));
  assert.not.match(r.stderr, NOTICE, 'the sandbox answers offline by default: no notice');
  const offline = s.resources.filter((x) => x.kind === 'instance' && x.status === 'offline');
  r = await ask('what are my instances costing me?');
  const billing = s.resources.filter((x) => x.kind === 'instance');
  assert.match(r.stdout, new RegExp(`^Your ${billing.length} instances that bill now cost ${escape(billing.reduce((n, x) => n + x.hourly_cost!, 0).toFixed(4))} USD/hour in total`));
  assert.ok(offline.length > 0 && offline.every((x) => r.stdout.includes(x.name)), 'offline instances bill and are counted');
  r = await ask('how many GPUs do I have?');
  assert.match(r.stdout, new RegExp(`^You have ${instances.reduce((n, i) => n + gpusOf(i), 0)} GPUs?, on `));
  assertDeclined(await ask('what is the weather like?'), /`assistant gpucloud list <kind>`.*`assistant cost summary`/);
});

test('talk keeps the last answer’s subjects offline: "which of them…" and "how much do they cost" follow the list before', async () => {
  await withWordInstances(async ({ e, s, instances }) => {
    const input = ['which instances have more than 1 GPU?', 'how much do they cost per day?', 'which of them are running?', 'what costs the most?', 'how much does it cost per week?'].join('\n') + '\n';
    const r = await runCli(['talk'], { env: e, input });
    assert.is(r.code, 0, r.stderr);
    const lines = r.stdout.trim().split('\n');
    assert.is(lines.length, 5, r.stdout);
    const many = instances.filter((i) => gpusOf(i) > 1).map((i) => String(i.hostname)).sort();
    assert.ok(many.length >= 1);
    assert.match(lines[0]!, new RegExp(`^${many.length} instances? ha(s|ve) more than 1 GPU: ${many.map(escape).join(', ')}\\.$`));
    const perDay = many.reduce((n, name) => n + rateOf(s, name), 0) * 24;
    assert.match(lines[1]!, new RegExp(`cost[s]? ${escape(perDay.toFixed(2))} USD per day`), 'the follow-up priced only the instances of the answer before');
    const runningMany = instances.filter((i) => gpusOf(i) > 1 && i.status === 'running').map((i) => String(i.hostname));
    assert.match(lines[2]!, new RegExp(`${runningMany.length} instances? (is|are) running: ${runningMany.map(escape).join(', ')}\\.$`), r.stdout);
    const top = [...s.resources].filter((x) => x.hourly_cost !== null).sort((a, b) => b.hourly_cost! - a.hourly_cost!)[0]!;
    assert.match(lines[3]!, new RegExp(`^Instance ${escape(top.name)} costs the most`, 'i'));
    assert.match(lines[4]!, new RegExp(`${escape((top.hourly_cost! * 168).toFixed(2))} USD per week`));
    assert.is(r.stderr.match(new RegExp(NOTICE.source, 'gm'))?.length ?? 0, 1, `one notice for the whole session:\n${r.stderr}`);
  });
});

test('a dry run says the runway at the current burn and with the plan added, from the cost summary’s burn', async () => {
  await withEmulator(async ({ env }) => {
    const { summary: s } = await truth([], env);
    const r = await runCli(['ask', '--apply', '--dry-run', '-o', 'json'], { env, input: JSON.stringify(createPlan()) });
    assert.is(r.code, 0, r.stderr);
    const preview = JSON.parse(r.stdout);
    const added = preview.total_per_hour as number;
    assert.ok(Math.abs(preview.runway.current_per_hour - s.hourly_cost) < 1e-9, `${preview.runway.current_per_hour} vs ${s.hourly_cost}`);
    assert.ok(Math.abs(preview.runway.after_per_hour - (s.hourly_cost + added)) < 1e-9);
    assert.ok(Math.abs(preview.runway.hours_now - s.runway_hours!) < 1e-6);
    assert.ok(Math.abs(preview.runway.hours_after - s.balance! / (s.hourly_cost + added)) < 1e-6);
    const t = await runCli(['ask', '--apply', '--dry-run'], { env, input: JSON.stringify(createPlan()) });
    assert.is(t.code, 0, t.stderr);
    assert.match(t.stdout, new RegExp(`^Runway: ${escape(s.balance!.toFixed(2))} USD lasts ${escape(s.runway_hours!.toFixed(1))} hours .* at the current burn .*, ${escape((s.balance! / (s.hourly_cost + added)).toFixed(1))} hours .* with this plan added`, 'm'));
  });
});

test.run();
