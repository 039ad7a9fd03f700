/**
 * One output sink (issue 23 item 4): -o table|json|yaml is decided inside it. The same records through
 * real commands against the emulator come out as a table, as JSON and as YAML carrying the same data;
 * with NO_COLOR nothing but the results is on stdout (no escape codes, no progress). The sink itself:
 * registered secrets masked in every format, data asked for as JSON left as the API sent it otherwise,
 * asked-for secrets (reveal) the one thing unredacted, streams redacted across chunk boundaries.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parse as parseYaml } from 'yaml';
import { createOutput } from '../../commands/output.js';
import { registerSecret } from '../../engine/core/redact.js';
import { memoryStream as memory } from '../support/memory.js';
import { runCli, withEmulator } from '../support/cli.js';

const ESC = '\u001b';

for (const [args, idOf] of [
  [['gpucloud', 'list', 'instances'], (r: any) => r.hostname],
  [['gpucloud', 'list', 'volumes'], (r: any) => r.name],
] as const) {
  test(`${args.join(' ')}: table, JSON and YAML carry the same records; stdout holds only them`, async () => {
    await withEmulator(async ({ env }) => {
      const [table, json, yaml] = await Promise.all(['table', 'json', 'yaml'].map((o) => runCli([...args, '-o', o], { env })));
      for (const r of [table, json, yaml]) assert.is(r!.code, 0, r!.stderr);
      const fromJson = JSON.parse(json!.stdout) as unknown[];
      assert.ok(Array.isArray(fromJson) && fromJson.length > 0, 'the emulator has some');
      assert.equal(parseYaml(yaml!.stdout), fromJson, 'YAML is the same data as JSON');
      for (const record of fromJson) assert.ok(table!.stdout.includes(String(idOf(record))), `the table shows ${idOf(record)}`);
      for (const r of [table, json, yaml]) assert.not.ok(r!.stdout.includes(ESC), 'NO_COLOR: no escape codes on stdout');
    });
  });
}

test('cost summary and plan validate: -o json and -o yaml agree, the table is for people', async () => {
  await withEmulator(async ({ env }) => {
    const [json, yaml, table] = await Promise.all(['json', 'yaml', 'table'].map((o) => runCli(['cost', 'summary', '-o', o], { env })));
    assert.is(json!.code, 0, json!.stderr);
    // Run a moment apart, so the running figures differ: the same resources and currency.
    const ids = (doc: any) => doc.resources.map((r: any) => r.id);
    const [j, y] = [JSON.parse(json!.stdout), parseYaml(yaml!.stdout)];
    assert.equal(ids(y), ids(j));
    assert.is(y.currency, j.currency);
    for (const id of ids(j)) assert.ok(table!.stdout.includes(id), `the table shows ${id}`);
    assert.match(table!.stdout, /^Burn: /m);
    const plan = JSON.stringify({ version: 1, provider: 'gpucloud', commands: [{ args: ['gpucloud-api', 'GET', '/v1/balance'], reason: 'balance' }] });
    const [vj, vy, vt] = await Promise.all(['json', 'yaml', 'table'].map((o) => runCli(['plan', 'validate', '-o', o], { env, input: plan })));
    assert.equal(JSON.parse(vj!.stdout).valid, true);
    assert.equal(parseYaml(vy!.stdout), JSON.parse(vj!.stdout));
    assert.match(vt!.stdout, /^plan is valid: 1 command\(s\)\n$/);
  });
});

test('the sink masks registered secrets in every format; JSON of asked-for data keeps the rest as sent', () => {
  const secret = 'sink-registered-secret-4c2a';
  registerSecret(secret);
  const record = { name: 'web', startup: `export DB_PASSWORD=plain-value\nTOKEN=${secret}` };
  for (const format of ['table', 'json', 'yaml'] as const) {
    const out = memory();
    createOutput({ stdout: out.stream, columns: 80 }, format, true).value(record);
    assert.not.ok(out.text().includes(secret), `${format} masks the registered secret`);
    if (format === 'json') assert.ok(out.text().includes('DB_PASSWORD=plain-value'), 'JSON keeps what the API sent');
  }
});

test('revealed secrets are the one part written as they are; the rest is still redacted', () => {
  const secret = 'sink-revealed-secret-77ab';
  registerSecret(secret);
  for (const format of ['table', 'json'] as const) {
    const out = memory();
    createOutput({ stdout: out.stream, columns: 80 }, format, true).value(
      { status: 'succeeded', note: `used ${secret}` },
      { table: (c) => c.bold('report\n'), revealed: { field: 'revealed', value: [{ value: secret }], table: `revealed: ${secret}\n` } },
    );
    const text = out.text();
    assert.is(text.split(secret).length - 1, 1, `${format}: the secret appears once, where it was revealed:\n${text}`);
  }
});

test('a stream masks a registered secret split across chunks and ends the open line', () => {
  const secret = 'streamed-secret-value-9d3e';
  registerSecret(secret);
  const out = memory();
  const stream = createOutput({ stdout: out.stream, columns: 80 }, 'table', false).stream();
  for (const piece of ['the value is ', secret.slice(0, 9), secret.slice(9), ' and that', ' is all']) stream.write(piece);
  stream.end();
  assert.not.ok(out.text().includes(secret), out.text());
  assert.ok(out.text().endsWith('is all\n'));
});

test('a blob without blanks is written as it comes (not held whole), a registered secret inside it still masked', () => {
  const secret = 'blob-registered-secret-31f0aa';
  registerSecret(secret);
  const blob = 'x'.repeat(5000) + secret + 'y'.repeat(5000);
  const out = memory();
  const stream = createOutput({ stdout: out.stream, columns: 80 }, 'table', false).stream();
  for (let i = 0; i < blob.length; i += 7) stream.write(blob.slice(i, i + 7));
  assert.ok(out.text().length > 4000, 'most of it is out before the end');
  stream.end();
  assert.not.ok(out.text().includes(secret));
  assert.is(out.text(), blob.replace(secret, '***') + '\n');
});

test('a followed log writes each line as soon as it ends, redacted', () => {
  const secret = 'log-registered-secret-5b7c';
  registerSecret(secret);
  const out = memory();
  const stream = createOutput({ stdout: out.stream, columns: 80 }, 'table', false).stream({ lines: true });
  stream.write('hello from web-1\n');
  assert.is(out.text(), 'hello from web-1\n', 'the line is out before the next one comes');
  stream.write(`token ${secret.slice(0, 5)}`);
  stream.write(`${secret.slice(5)} used\npartial`);
  assert.is(out.text(), 'hello from web-1\ntoken *** used\n');
  stream.end();
  assert.is(out.text(), 'hello from web-1\ntoken *** used\npartial');
});

test('records: an empty list is the empty text for people and [] for programs; unasked output only without -o', () => {
  const people = memory();
  createOutput({ stdout: people.stream, columns: 80 }, 'table', false).records([], [{ header: 'NAME', path: 'name' }], { empty: 'Nothing.\n' });
  assert.is(people.text(), 'Nothing.\n');
  const program = memory();
  createOutput({ stdout: program.stream, columns: 80 }, 'json', true).records([], [{ header: 'NAME', path: 'name' }], { empty: 'Nothing.\n' });
  assert.is(program.text(), '[]\n');
  const quiet = memory();
  createOutput({ stdout: quiet.stream, columns: 80 }, 'table', false).records([{ name: 'a' }], [{ header: 'NAME', path: 'name' }], { unasked: '' });
  assert.is(quiet.text(), '');
});

test.run();
