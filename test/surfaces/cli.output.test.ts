/**
 * Output a person can act on (issue 10 §2): ID columns that survive narrow terminals, availability per
 * location and type, `-o table` for get and balance, and colour only on a terminal.
 */
import { PassThrough } from 'node:stream';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { commandContext, type CommandContext } from '../../commands/context.js';
import { run as runGpucloud } from '../../commands/gpucloud.js';
import { reportError } from '../../commands/report-error.js';
import { UsageError } from '../../engine/core/errors.js';
import { findKind } from '../../engine/providers/gpucloud/catalogue.js';
import { colorEnabled, palette } from '../../engine/core/render/color.js';
import { renderReport } from '../../engine/core/render/report.js';
import { renderKindTable } from '../../engine/core/render/records.js';
import { cliInThisProcess, runCli, tempHome, withEmulator } from '../support/cli.js';
import { capturedStreams } from '../support/in-process.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

const ESC = '\u001b[';
const instance = { id: '0b6e4c1a-2f3d-4e5a-9b8c-7d6e5f4a3b21', hostname: 'demo-a100', instance_type: '1A100.22V', location: 'FIN-01', status: 'running', ip: '203.0.113.10', price_per_hour: 1.29 };

test('a narrow table keeps the ID column, since errors tell users to type the ID', () => {
  for (const kind of ['instances', 'clusters', 'volumes', 'ssh-keys', 'images', 'container-types']) {
    const spec = findKind(kind)!;
    const record = { ...instance, id: instance.id, name: 'n', image_type: 'ubuntu' };
    const out = renderKindTable([record], spec, 50);
    assert.ok(out.includes(instance.id), `${kind}: the ID is shown at 50 columns:\n${out}`);
  }
});

test('a narrow terminal keeps the ID, the hostname or name and the status whole, and shortens or drops the others', () => {
  const image = { id: '7dec62c2-c3bb-5354-99e3-5d3fe7d77840', image_type: 'ubuntu-24.04-cuda-12.8-open-docker', name: 'Ubuntu 24.04 + CUDA 12.8 Open + Docker' };
  for (const width of [40, 60, 70]) {
    const out = renderKindTable([instance], findKind('instances')!, width);
    assert.match(out, /^ID\s+HOSTNAME\s+(.*\s)?STATUS/, `${width} columns:\n${out}`);
    assert.match(out, /^0b6e4c1a-2f3d-4e5a-9b8c-7d6e5f4a3b21\s+demo-a100\s+(.*\s)?running/m, `${width} columns:\n${out}`);
  }
  const volumes = renderKindTable([{ id: instance.id, name: 'training-data-volume', type: 'NVMe', size: 500, location: 'FIN-01', status: 'detached' }], findKind('volumes')!, 50);
  assert.match(volumes, /^0b6e4c1a-2f3d-4e5a-9b8c-7d6e5f4a3b21\s+training-data-volume\s+detached$/m, volumes);
  // A column of text is cut to the room left (marked …) rather than dropped; an ID or a type code never is.
  const images = renderKindTable([image], findKind('images')!, 100);
  assert.match(images, /^ubuntu-24\.04-cuda-12\.8-open-docker\s+Ubuntu 24\.04 \+ CUDA[^\s]*\s[^\s]*…\s+7dec62c2-c3bb-5354-99e3-5d3fe7d77840$/m, images);
  for (const line of images.trimEnd().split('\n')) assert.ok(line.length <= 100, `"${line}" is wider than 100`);
});

test('control characters in API data are shown escaped, never sent to the terminal', () => {
  const evil = { ...instance, hostname: 'x\u001b[2J\u001b]0;owned\u0007', status: 'running\nFAKE' };
  const out = renderKindTable([evil], findKind('instances')!, 200);
  assert.not.ok(out.includes('\u001b') || out.includes('\u0007'), JSON.stringify(out));
  assert.ok(out.includes('x\\u001b[2J'), out);
  assert.is(out.trimEnd().split('\n').length, 2, 'a newline in a value does not add a row');
});

test('list availability shows every type per location, one row each, in a narrow terminal too', async () => {
  await withEmulator(async ({ env }) => {
    const r = await runCli(['gpucloud', 'list', 'availability'], { env: { ...env, COLUMNS: '40' } });
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stdout, /^LOCATION\s+INSTANCE TYPE$/m);
    assert.match(r.stdout, /^FIN-01\s+1V100\.6V$/m);
    assert.match(r.stdout, /^FIN-03\s+8H200\.141S\.176V$/m);
    const c = await runCli(['gpucloud', 'list', 'cluster-availability'], { env });
    assert.is(c.code, 0, c.stderr);
    assert.match(c.stdout, /^FIN-03\s+16B200$/m);
    const json = await runCli(['gpucloud', 'list', 'availability', '-o', 'json'], { env });
    assert.ok(Array.isArray(JSON.parse(json.stdout)[0].availabilities), '-o json stays the API response');
  });
});

test('get -o table prints a FIELD / VALUE view; -o yaml and -o json stay documents', async () => {
  await withEmulator(async ({ env }) => {
    const t = await runCli(['gpucloud', 'get', 'instance', 'demo-a100', '-o', 'table'], { env });
    assert.is(t.code, 0, t.stderr);
    assert.match(t.stdout, /^FIELD\s+VALUE$/m);
    assert.match(t.stdout, /^hostname\s+demo-a100$/m);
    assert.match(t.stdout, /^gpu\.number_of_gpus\s+1$/m);
    const y = await runCli(['gpucloud', 'get', 'instance', 'demo-a100', '-o', 'yaml'], { env });
    assert.match(y.stdout, /^hostname: demo-a100$/m);
    const j = await runCli(['gpucloud', 'get', 'instance', 'demo-a100', '-o', 'json'], { env });
    assert.is(JSON.parse(j.stdout).hostname, 'demo-a100');
  });
});

test('balance: raw JSON by default (SPEC 4.2), a table with -o table, only YAML with -o yaml', async () => {
  await withEmulator(async ({ env }) => {
    const d = await runCli(['gpucloud', 'balance'], { env });
    assert.is(d.code, 0, d.stderr);
    assert.is(typeof JSON.parse(d.stdout).amount, 'number');
    assert.match(d.stderr, /Balance: \d+\.\d\d USD/);
    const t = await runCli(['gpucloud', 'balance', '-o', 'table'], { env });
    assert.is(t.code, 0, t.stderr);
    assert.match(t.stdout, /^AMOUNT\s+CURRENCY\n\d+\.\d\d\s+usd\n$/);
    const y = await runCli(['gpucloud', 'balance', '-o', 'yaml'], { env });
    assert.match(y.stdout, /^amount: \d/m);
    assert.not.match(y.stderr, /Balance:/);
  });
});

test('action -o table prints the accepted action as a table on stdout; without -o stdout stays empty', async () => {
  await withEmulator(async ({ env }) => {
    const t = await runCli(['gpucloud', 'action', 'shutdown', 'demo-a100', '-o', 'table'], { env });
    assert.is(t.code, 0, t.stderr);
    assert.match(t.stdout, /^ACTION\s+ID\s+HOSTNAME\s+STATUS\nshutdown\s+[0-9a-f-]{36}\s+demo-a100\s+accepted\n$/);
    const plain = await runCli(['gpucloud', 'action', 'start', 'demo-a100'], { env });
    assert.is(plain.stdout, '');
    assert.match(plain.stderr, /start: demo-a100 \(/);
  });
});

test('credentials test honours -o json and -o yaml (the table form is the sentence)', async () => {
  await withEmulator(async ({ env }) => {
    const j = await runCli(['credentials', 'test', 'gpucloud', '-o', 'json'], { env });
    assert.is(j.code, 0, j.stderr);
    const doc = JSON.parse(j.stdout);
    assert.is(doc.ok, true);
    assert.match(doc.source, /GPUCLOUD_CLIENT_ID|environment/i);
    assert.is(typeof doc.balance.amount, 'number');
    assert.not.ok(j.stdout.includes(env.GPUCLOUD_CLIENT_SECRET!));
    const y = await runCli(['credentials', 'test', 'gpucloud', '-o', 'yaml'], { env });
    assert.match(y.stdout, /^ok: true$/m);
    const t = await runCli(['credentials', 'test', 'gpucloud'], { env });
    assert.match(t.stdout, /^gpucloud credentials work \(source: /);
  });
});

test('colour only on a terminal, and never with --no-color, a non-empty NO_COLOR or TERM=dumb', () => {
  assert.is(colorEnabled(true, false, {}), true);
  assert.is(colorEnabled(false, false, {}), false, 'a pipe');
  assert.is(colorEnabled(true, true, {}), false, '--no-color');
  assert.is(colorEnabled(true, false, { NO_COLOR: '1' }), false);
  assert.is(colorEnabled(true, false, { NO_COLOR: '' }), true, 'an empty NO_COLOR does not count (no-color.org)');
  assert.is(colorEnabled(true, false, { TERM: 'dumb' }), false);
});

function ttyContext(env: Record<string, string>, color: boolean): { ctx: CommandContext; out: () => string; err: () => string } {
  const { stdout, stderr, out, err } = capturedStreams();
  const ctx: CommandContext = commandContext({
    io: { stdout, stderr, stdin: new PassThrough(), stdoutIsTTY: true, stderrIsTTY: true, stdinIsTTY: false, columns: 200, color, stdoutColor: color },
    env: { ...env, HOME: tempHome() },
    home: tempHome(),
    globals: { output: 'table', outputExplicit: false, debug: false, yes: false, sandbox: false },
  });
  return { ctx, out, err };
}

test('on a colour terminal the table header is bold and running is green; without colour no escape codes', async () => {
  await withEmulator(async ({ env }) => {
    const on = ttyContext(env, true);
    assert.is(await runGpucloud(['list', 'instances'], on.ctx), 0, on.err());
    assert.ok(on.out().includes(`${ESC}1mID`), on.out());
    assert.ok(on.out().includes(`${ESC}32mrunning${ESC}39m`), on.out());
    const off = ttyContext(env, false);
    assert.is(await runGpucloud(['list', 'instances'], off.ctx), 0, off.err());
    assert.not.ok(off.out().includes(ESC), off.out());
    assert.match(off.out(), /running/);
  });
});

test('the apply report marks ok green and FAIL red only when colour is on', () => {
  const report = {
    status: 'failed',
    steps: [
      { index: 0, request: 'GET /v1/balance', reason: 'a', status: 'succeeded' },
      { index: 1, request: 'GET /v1/x', reason: 'b', status: 'failed', error: { code: 'not_found', message: 'no' } },
    ],
    bindings: {},
  } as unknown as Parameters<typeof renderReport>[0];
  const on = renderReport(report, palette(true));
  assert.ok(on.includes(`${ESC}32mok${ESC}39m`) && on.includes(`${ESC}31mFAIL${ESC}39m`) && on.startsWith(`${ESC}31mfailed`), JSON.stringify(on));
  assert.not.ok(renderReport(report).includes(ESC));
});

test('the error prefix is red on a colour terminal and plain otherwise', () => {
  const on = ttyContext({}, true);
  reportError(new UsageError('bad flag'), on.ctx);
  assert.ok(on.err().startsWith(`${ESC}31merror:${ESC}39m usage: bad flag`), JSON.stringify(on.err()));
  const off = ttyContext({}, false);
  reportError(new UsageError('bad flag'), off.ctx);
  assert.ok(off.err().startsWith('error: usage: bad flag'));
});

test('--no-color and piped output carry no escape codes even with FORCE_COLOR set', async () => {
  await withEmulator(async ({ env }) => {
    const r = await runCli(['--no-color', 'gpucloud', 'list', 'instances'], { env: { ...env, NO_COLOR: undefined, FORCE_COLOR: '1' } });
    assert.is(r.code, 0, r.stderr);
    assert.not.ok(r.stdout.includes(ESC) || r.stderr.includes(ESC));
  });
});

test('the built-in answer to "what GPUs are available in FIN-01 and what do they cost" names the types and their prices', async () => {
  await withEmulator(async ({ env }) => {
    const r = await runCli(['ask', '--ai-profile', 'builtin', 'what GPUs are available in FIN-01 and what do they cost?'], { env });
    assert.is(r.code, 0, r.stderr);
    // Emulator fixtures: FIN-01 offers 1V100.6V at 0.39 (spot 0.14) and 8A100.176V at 10.32 per hour; FIN-02 is not asked about.
    // "GPUs": the two CPU types FIN-01 also offers are not GPUs.
    assert.match(r.stdout, /Available in FIN-01 \(5 GPU types\)/);
    assert.match(r.stdout, /^- 1V100\.6V \(1x Tesla V100 16GB\): 0\.39 USD\/hour, spot 0\.14 USD\/hour$/m);
    assert.match(r.stdout, /^- 8A100\.176V .*: 10\.32 USD\/hour/m);
    assert.not.match(r.stdout, /CPU\./);
    assert.not.match(r.stdout, /FIN-02/);
    assert.not.match(r.stdout, /instance types\./i, 'the price list is folded into the answer, not listed again');
  });
});

test.run();
