/**
 * One options type per command, derived from its flag table and parsed once at the cac boundary (issue 37
 * item 4, gh's Options + run(opts) seam): a bad value of any declared kind is one line `error:
 * invalid_input: --flag: expected …` with the command's help as hint, exit 2, and nothing reaches the
 * cloud (the emulator's request log stays empty). Numbers are written in decimal, as people write an
 * amount or a count: `0x10`, `1e3` and `Infinity` are JavaScript's numbers, not a budget's.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EMULATOR_DEFAULT_SSH_KEY_ID } from '../../emulator/index.js';
import { coerceFlags, flag, withFlags, type OptionsOf } from '../../commands/flag-spec.js';
import { runCli, tempHome, withEmulator } from '../support/cli.js';
import { commandContext } from '../../commands/context.js';
import { runGroup } from '../../commands/group.js';
import { capturedStreams } from '../support/in-process.js';

const create = JSON.stringify({
  version: 1,
  provider: 'gpucloud',
  commands: [
    {
      args: ['gpucloud-api', 'POST', '/v1/instances', JSON.stringify({ instance_type: '1V100.6V', image: 'ubuntu-24.04-cuda-12.8-open-docker', hostname: 'opt-1', description: '', location_code: 'FIN-01', ssh_key_ids: [EMULATOR_DEFAULT_SSH_KEY_ID] })],
      reason: 'create an instance',
    },
  ],
});

/** Per kind: the command line, the flag as typed, what it says was expected, and the help named as the hint. */
const BAD: { kind: string; args: string[]; flag: string; expected: RegExp; help: string; input?: string }[] = [
  { kind: 'number (budget, hex)', args: ['ask', '--apply', '--max-hourly-cost', '0x10'], flag: '--max-hourly-cost', expected: /expected a number greater than 0, in decimal/, help: 'assistant ask', input: create },
  { kind: 'number (budget, exponent)', args: ['ask', '--apply', '--max-hourly-cost', '1e3'], flag: '--max-hourly-cost', expected: /expected a number greater than 0/, help: 'assistant ask', input: create },
  { kind: 'number (budget, Infinity)', args: ['ask', '--apply', '--max-hourly-cost=Infinity'], flag: '--max-hourly-cost', expected: /expected a number greater than 0/, help: 'assistant ask', input: create },
  { kind: 'number (0 or more)', args: ['talk', '--reuse-reads-for', '1e3'], flag: '--reuse-reads-for', expected: /expected a number of 0 or more/, help: 'assistant talk' },
  { kind: 'switch', args: ['ask', '--apply', '--allow-unpriced=maybe'], flag: '--allow-unpriced', expected: /expected true or false/, help: 'assistant ask', input: create },
  { kind: 'path', args: ['ask', '--apply', '--plan-file', ' '], flag: '--plan-file', expected: /expected a path/, help: 'assistant ask' },
  { kind: 'int (hex)', args: ['runs', 'list', '--limit', '0x10'], flag: '--limit', expected: /expected a whole number from 1 to 500/, help: 'assistant runs list' },
  { kind: 'int (range)', args: ['k8s', 'logs', 'web-1', '--tail=-1'], flag: '--tail', expected: /expected a whole number from 0 to/, help: 'assistant k8s logs' },
  { kind: 'port', args: ['deploy', './repo', '--port', '70000'], flag: '--port', expected: /expected a port from 1 to 65535/, help: 'assistant deploy' },
  { kind: 'duration', args: ['k8s', 'create', 'gpucloud', 'c1', '--wait-timeout', '5x'], flag: '--wait-timeout', expected: /expected a duration like 30s/, help: 'assistant k8s create gpucloud' },
  { kind: 'enum', args: ['cost', 'detail', '--sort-by', 'price'], flag: '--sort-by', expected: /expected cost, age or name/, help: 'assistant cost detail' },
];

test('a bad value of each kind of flag is refused: invalid_input naming the flag, the help as hint, exit 2, nothing sent', () =>
  withEmulator(async ({ emu, env }) => {
    for (const c of BAD) {
      const r = await runCli(c.args, { env, input: c.input ?? '', home: tempHome('flags-options-') });
      assert.is(r.code, 2, `${c.kind}: ${r.stderr}`);
      const [error, hint] = r.stderr.trimEnd().split('\n');
      assert.ok(error!.startsWith(`error: invalid_input: ${c.flag}: `), `${c.kind}: ${r.stderr}`);
      assert.match(error!, c.expected, c.kind);
      assert.is(hint, `hint: run '${c.help} --help'`, c.kind);
      assert.is(r.stdout, '', c.kind);
    }
    assert.equal(emu.requests(), [], 'no request reached the cloud');
  }));

test('the same budget written in decimal is taken: a dry run under --max-hourly-cost 1000.5 reports that limit', () =>
  withEmulator(async ({ env }) => {
    const r = await runCli(['ask', '--apply', '--dry-run', '--max-hourly-cost', '1000.5', '-o', 'json'], { env, input: create, home: tempHome('flags-options-') });
    assert.is(r.code, 0, r.stderr);
    assert.is(JSON.parse(r.stdout).budget.max_hourly, 1000.5);
  }));

test('--allow-unpriced=false is off: an unpriced create under a budget is still refused and nothing is sent (the string "false" was truthy)', () =>
  withEmulator(async ({ emu, env }) => {
    const tape = JSON.stringify({ version: 1, provider: 'gpucloud', commands: [{ args: ['gpucloud-api', 'POST', '/v1/volumes', JSON.stringify({ type: 'TAPE', name: 'opt-tape', size: 40, location_code: 'FIN-01' })], reason: 'a volume no price is known for' }] });
    const r = await runCli(['ask', '--apply', '--max-hourly-cost', '100', '--allow-unpriced=false'], { env, input: tape, home: tempHome('flags-options-') });
    assert.is(r.code, 3, r.stderr);
    assert.match(r.stderr, /^error: budget_unpriced: /m);
    assert.equal(emu.requests().filter((q) => q.method !== 'GET' && !q.path.includes('oauth2')), [], 'no create was sent');
  }));

test('a switch written as text is a boolean (--allow-unpriced=false is off, not the truthy string "false")', async () => {
  const spec = { allowUnpriced: flag.bool(), planFile: flag.path(), resume: flag.textOrBare(), secret: flag.list(flag.text()) };
  const out: OptionsOf<typeof spec> = await coerceFlags({ allowUnpriced: 'false', planFile: ' p.json ', resume: true, secret: ['A', 'B=b'] }, spec, 'hint');
  assert.equal(out, { allowUnpriced: false, planFile: 'p.json', resume: true, secret: ['A', 'B=b'] });
  const once: OptionsOf<typeof spec> = await coerceFlags({ secret: 'A' }, spec, 'hint');
  assert.equal(once.secret, ['A'], 'a repeatable flag given once is a list of one');
});

test('the options type has the declared flags and nothing else (checked by the compiler)', () => {
  const spec = { name: flag.text(), port: flag.port(), mode: flag.oneOf(['fast', 'safe']).option('--mode <mode>', 'fast or safe', { default: 'fast' }) };
  const opts: OptionsOf<typeof spec> = { mode: 'fast', port: 8080 };
  // @ts-expect-error a flag the table does not declare is not in the type
  void opts.nmae;
  // @ts-expect-error a port is a number once parsed, not the text cac saw
  const text: string | undefined = opts.port;
  // @ts-expect-error an enum is one of its values
  const other: OptionsOf<typeof spec> = { mode: 'slow' };
  // @ts-expect-error a flag cac fills a default for is always there
  const none: OptionsOf<typeof spec> = {};
  assert.is(opts.mode, 'fast');
  void [text, other, none];
});

test('a flag the table declares but the subcommand does not register is a wiring error, found when the subcommand runs', async () => {
  const home = tempHome();
  const { stdout, stderr } = capturedStreams();
  const ctx = commandContext({
    io: { stdout, stderr, stdin: process.stdin, stdoutIsTTY: false, stderrIsTTY: false, stdinIsTTY: false, columns: 120, color: false },
    env: { HOME: home },
    home,
    globals: { output: 'table', outputExplicit: false, debug: false, yes: false, sandbox: false },
  });
  let ran: unknown;
  const define = (cli: import('cac').CAC, start: (work: () => Promise<number>) => void) => {
    cli.command('go', 'Go').option('--name <name>', 'A name').action((o: unknown) => start(async () => ((ran = o), 0)));
    cli.command('stay', 'Stay').action(() => start(async () => 0));
  };
  // Declared for `go` but registered only elsewhere (as `-A` was for k8s deploy): refused before the work runs.
  const stray = await runGroup('demo', ['go', '--name', 'x'], ctx, { flags: { go: { name: flag.text(), allNamespaces: flag.bool() } } }, define).then(
    () => undefined,
    (err: Error) => err,
  );
  assert.match(String(stray?.message), /internal: assistant demo go declares flags it does not register: allNamespaces/);
  assert.is(ran, undefined, 'the work did not run');
  // The same table without the stray flag: the work gets the typed options.
  assert.is(await runGroup('demo', ['go', '--name', '007'], ctx, { flags: { go: { name: flag.text() } } }, define), 0);
  assert.equal((ran as { name: string }).name, '007');
});

/** A context whose output is collected (in this process: the tests below run a group of their own). */
function collectingContext() {
  const home = tempHome();
  const streams = capturedStreams();
  const ctx = commandContext({
    io: { stdout: streams.stdout, stderr: streams.stderr, stdin: process.stdin, stdoutIsTTY: false, stderrIsTTY: false, stdinIsTTY: false, columns: 120, color: false },
    env: { HOME: home },
    home,
    globals: { output: 'table', outputExplicit: false, debug: false, yes: false, sandbox: false },
  });
  return { ctx, out: streams.out };
}

test('a flag is written once: the table gives cac its spelling, help and default, in table order, and the options their type', async () => {
  const FLAGS = {
    go: {
      replicas: flag.int(0, 10).option('--replicas <n>', 'How many', { default: 1 }),
      namespace: flag.text().option('-n, --namespace <ns>', 'Where'),
      history: flag.bool().option('--no-history', 'Keep nothing'),
    },
  };
  let ran: OptionsOf<typeof FLAGS.go> | undefined;
  const define = (cli: import('cac').CAC, start: (work: () => Promise<number>) => void) => {
    withFlags(cli.command('go', 'Go'), FLAGS.go).action((o: OptionsOf<typeof FLAGS.go>) => start(async () => ((ran = o), 0)));
  };
  const help = collectingContext();
  assert.is(await runGroup('demo', ['go', '--help'], help.ctx, { flags: FLAGS }, define), 0);
  const lines = help.out().split('\n').filter((l) => /^\s+-/.test(l)).map((l) => l.trim().replace(/\s+/g, ' '));
  assert.equal(lines.slice(0, 3), ['--replicas <n> How many (default: 1)', '-n, --namespace <ns> Where', '--no-history Keep nothing']);
  // The default comes from the table (a number, as typed there), the alias and the negation from its spelling.
  assert.is(await runGroup('demo', ['go', '-n', 'team'], collectingContext().ctx, { flags: FLAGS }, define), 0);
  assert.equal({ replicas: ran?.replicas, namespace: ran?.namespace, history: ran?.history }, { replicas: 1, namespace: 'team', history: true });
  assert.is(await runGroup('demo', ['go', '--replicas', '3', '--no-history'], collectingContext().ctx, { flags: FLAGS }, define), 0);
  assert.equal({ replicas: ran?.replicas, history: ran?.history }, { replicas: 3, history: false });
});

test('a table entry that does not say how cac shows it is a wiring error when the group is defined, before anything runs', async () => {
  let ran = false;
  const define = (cli: import('cac').CAC, start: (work: () => Promise<number>) => void) => {
    withFlags(cli.command('go', 'Go'), { name: flag.text().option('--name <name>', 'A name'), bare: flag.text() }).action(() => start(async () => ((ran = true), 0)));
  };
  const err = await runGroup('demo', ['go', '--name', 'x'], collectingContext().ctx, {}, define).then(
    () => undefined,
    (e: Error) => e,
  );
  assert.match(String(err?.message), /internal: flag bare of "go" has no \.option\(…\) in its table/);
  assert.is(ran, false, 'the work did not run');
});

test.run();
