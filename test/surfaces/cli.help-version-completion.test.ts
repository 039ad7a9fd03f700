/**
 * The small things a new user reaches for first (issue 38 §5): `assistant help <group>`, `assistant
 * version`, shell completion that really completes in bash, and an `ask --help` that fits a screen
 * (the per-vendor AI flags of earlier releases still work but are folded into --model/--api-key-env).
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BIN, runCli } from '../support/cli.js';
import { tempDir } from '../support/temp.js';

test('assistant help <group> [sub] prints that command\'s help, like <group> [sub] --help', async () => {
  const viaHelp = await runCli(['help', 'gpucloud', 'list']);
  const viaFlag = await runCli(['gpucloud', 'list', '--help']);
  assert.is(viaHelp.code, 0, viaHelp.stderr);
  assert.is(viaHelp.stdout, viaFlag.stdout);
  assert.match(viaHelp.stdout, /assistant gpucloud list <kind>/);
  const top = await runCli(['help']);
  assert.match(top.stdout, /completion\s+Shell completion/);
});

test('assistant version prints what --version prints; -o json as a document', async () => {
  const a = await runCli(['version']);
  const b = await runCli(['--version']);
  assert.is(a.code, 0);
  assert.is(a.stdout, b.stdout);
  const json = await runCli(['version', '-o', 'json']);
  assert.equal(JSON.parse(json.stdout), { version: b.stdout.trim() });
});

test('completion bash completes groups, subcommands and flags in a real bash', async () => {
  const bin = tempDir('completion-bin-');
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'assistant'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  chmodSync(join(bin, 'assistant'), 0o755);
  const script = (await runCli(['completion', 'bash'])).stdout;
  const complete = (words: string[]) =>
    execFileSync('bash', ['-c', `${script}\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _assistant_complete; printf '%s\\n' "\${COMPREPLY[@]}"`], {
      env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, HOME: tempDir('completion-home-') },
      encoding: 'utf8',
    })
      .split('\n')
      .filter(Boolean);
  assert.ok(complete(['assistant', 'gp']).includes('gpucloud'));
  assert.equal(complete(['assistant', 'gpucloud', 'l']), ['list']);
  const flags = complete(['assistant', 'plan', 'validate', '--']);
  for (const f of ['--plan-file', '--strict', '--destroyer', '--sandbox']) assert.ok(flags.includes(f), `${f} in ${flags.join(' ')}`);
  assert.ok(complete(['assistant', 'ask', '--mo']).includes('--model'));
  assert.not.ok(complete(['assistant', 'ask', '--op']).includes('--openai-model'), 'hidden flags are not offered');
});

test('completion zsh and fish print scripts that ask __complete; an unknown shell is a usage error', async () => {
  for (const shell of ['zsh', 'fish']) {
    const r = await runCli(['completion', shell]);
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stdout, /assistant __complete/);
  }
  const bad = await runCli(['completion', 'tcsh']);
  assert.is(bad.code, 2);
  assert.match(bad.stderr, /hint: assistant completion bash\|zsh\|fish/);
});

test('ask --help fits a screen: per-vendor AI flags hidden (still accepted), --model shown, --no-history does not read as off by default', async () => {
  const help = await runCli(['ask', '--help']);
  assert.is(help.code, 0);
  assert.ok(help.stdout.split('\n').length <= 60, `ask --help is ${help.stdout.split('\n').length} lines`);
  assert.match(help.stdout, /--model <name>/);
  assert.match(help.stdout, /--api-key-env <NAME>/);
  assert.not.match(help.stdout, /--openai-model|--anthropic-api-key/);
  assert.match(help.stdout, /--cloud-a/, 'the provider flags are listed once');
  const history = help.stdout.split('\n').find((l) => l.includes('--no-history'))!;
  assert.not.match(history, /default: true/);
  const old = await runCli(['ask', '--openai-model', 'gpt-4o', '--route-only', 'what is my balance?']);
  assert.is(old.code, 0, old.stderr);
});

test('--api-key-env names a variable that must be set', async () => {
  const r = await runCli(['ask', '--api-key-env', 'NOT_SET_ANYWHERE', 'what is my balance?']);
  assert.is(r.code, 2, r.stderr);
  assert.match(r.stderr, /NOT_SET_ANYWHERE: the environment variable is not set/);
});

test.run();
