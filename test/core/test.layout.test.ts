/**
 * Tests sit in folders that mirror the wings (issue 37 item 6; docs/development.md "Where tests live"):
 * test/core, test/providers/<name>, test/producers, test/surfaces and test/e2e hold the test files,
 * test/support the shared set-up, test/fixtures the data. No .ts file lies loose in test/ (a new test
 * goes into the folder of what it proves), a provider's folder names a provider that exists, and a test
 * file's name is unique across the folders: the runner's filter and its longest-first order
 * (scripts/run-tests.mjs) know files by name. Each rule is proven to fail on a fixture of the form it
 * forbids.
 */
import { readdirSync } from 'node:fs';
import { dirname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const ROOT = normalize(join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..'));
const WINGS = ['core', 'producers', 'surfaces', 'e2e'];
const SHARED = ['support', 'fixtures'];

/** Every file under `dir` (relative to it, with `/`). */
function filesUnder(dir: string, prefix = ''): string[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((e) => {
    const p = prefix ? `${prefix}/${e.name}` : e.name;
    return e.isDirectory() ? filesUnder(dir, p) : [p];
  });
}

/**
 * The provider(s) a folder under test/providers stands for: its own name, or a joint folder of providers
 * sharing a stem and differing in their last letter (`cloud_bc` holds the tests cloud_b and cloud_c share).
 */
function providersOf(folder: string, providers: readonly string[]): string[] | undefined {
  if (providers.includes(folder)) return [folder];
  const m = /^(.*_)([a-z]{2,})$/.exec(folder);
  const joint = m ? [...m[2]!].map((letter) => `${m[1]}${letter}`) : [];
  return joint.length && joint.every((p) => providers.includes(p)) ? joint : undefined;
}

/** What breaks the layout, one line each, for `files` (paths under test/) and the known `providers`. */
function layoutProblems(files: readonly string[], providers: readonly string[]): string[] {
  const problems: string[] = [];
  const byName = new Map<string, string[]>();
  for (const file of files) {
    const parts = file.split('/');
    const name = parts[parts.length - 1]!;
    const isTest = name.endsWith('.test.ts');
    if (isTest) byName.set(name, [...(byName.get(name) ?? []), file]);
    if (parts.length === 1) {
      if (name.endsWith('.ts')) problems.push(`${file}: loose in test/ (put it in the folder of what it proves: ${[...WINGS, 'providers/<name>'].join(', ')}; shared set-up in support/)`);
      continue;
    }
    const [top] = parts as [string];
    if (SHARED.includes(top)) {
      if (isTest) problems.push(`${file}: a test file in test/${top}/, which holds shared set-up and data, not tests`);
    } else if (top === 'providers') {
      if (parts.length < 3) problems.push(`${file}: directly in test/providers/ (it goes in test/providers/<name>/)`);
      else if (!providersOf(parts[1]!, providers)) problems.push(`${file}: test/providers/${parts[1]}/ names no provider (known: ${providers.join(', ')})`);
    } else if (!WINGS.includes(top)) problems.push(`${file}: test/${top}/ is not a wing folder (${[...WINGS, 'providers', ...SHARED].join(', ')})`);
  }
  for (const [name, where] of byName) if (where.length > 1) problems.push(`${name}: the same test file name in ${where.join(' and ')}`);
  return problems;
}

const providerFolders = () =>
  readdirSync(join(ROOT, 'engine', 'providers'), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name);

test('every test file is in a wing folder, shared set-up in test/support, names unique', () => {
  const files = filesUnder(join(ROOT, 'test')).map((f) => f.split(sep).join('/'));
  assert.ok(files.filter((f) => f.endsWith('.test.ts')).length > 200, 'the test files were found');
  assert.equal(layoutProblems(files, providerFolders()), []);
});

test('each layout rule fails on the form it forbids', () => {
  const providers = ['gpucloud', 'cloud_b', 'cloud_c', 'k8s'];
  const fine = ['core/plan.run.test.ts', 'providers/gpucloud/client.retry.test.ts', 'providers/cloud_bc/cloud_bc.ask.test.ts', 'support/cli.ts', 'fixtures/some-provider/provider.ts', 'producers/planner-questions.ts', 'fixtures/readme.md'];
  assert.equal(layoutProblems(fine, providers), []);
  const one = (file: string) => layoutProblems([...fine, file], providers);
  assert.match(one('cli.new.test.ts').join('\n'), /cli\.new\.test\.ts: loose in test\//);
  assert.match(one('questions.ts').join('\n'), /questions\.ts: loose in test\//);
  assert.match(one('support/cli.extra.test.ts').join('\n'), /test file in test\/support\//);
  assert.match(one('misc/x.test.ts').join('\n'), /test\/misc\/ is not a wing folder/);
  assert.match(one('providers/x.test.ts').join('\n'), /directly in test\/providers\//);
  assert.match(one('providers/nimbus/nimbus.ask.test.ts').join('\n'), /test\/providers\/nimbus\/ names no provider/);
  assert.match(one('providers/cloud_bd/x.test.ts').join('\n'), /test\/providers\/cloud_bd\/ names no provider/, 'a joint folder names only providers that exist');
  assert.match(one('surfaces/plan.run.test.ts').join('\n'), /plan\.run\.test\.ts: the same test file name in core\/plan\.run\.test\.ts and surfaces\/plan\.run\.test\.ts/);
  for (const file of ['cli.new.test.ts', 'misc/x.test.ts', 'providers/nimbus/nimbus.ask.test.ts']) assert.is(one(file).length, 1, file);
});

test.run();
