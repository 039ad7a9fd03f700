/**
 * The environment allowlist every surface uses for its children (engine/core/process/env.ts): only the
 * basics and the child's own variables pass, HOME is never inherited, and the deny list (AI keys,
 * GitHub tokens, the gpucloud credentials, the assistant's settings) wins over any allow rule.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { makeScratch } from '../../engine/core/kits/cli/isolation.js';
import { childEnvironment, isDeniedEnv, withoutSecrets } from '../../engine/core/process/env.js';

const USER_ENV = {
  PATH: '/usr/bin',
  HOME: '/home/user',
  LANG: 'en_US.UTF-8',
  LC_ALL: 'C',
  HTTPS_PROXY: 'http://proxy:3128',
  AWS_ACCESS_KEY_ID: 'AKIAEXAMPLE',
  AWS_PROFILE: 'team',
  AWS_BEARER_TOKEN_BEDROCK: 'bedrock-key-0123',
  GPUCLOUD_CLIENT_SECRET: 'gc-secret',
  GPUCLOUD_CLIENT_ID: 'gc-id',
  ASSISTANT_REDIS_URL: 'redis://:pw@h',
  OPENAI_API_KEY: 'sk-1',
  ANTHROPIC_API_KEY: 'sk-ant-1',
  GEMINI_API_KEY: 'g-1',
  GOOGLE_API_KEY: 'g-2',
  DEEPSEEK_API_KEY: 'd-1',
  CO_API_KEY: 'c-1',
  MY_CUSTOM_API_KEY: 'custom-1',
  GITHUB_TOKEN: 'ghp_1',
  GH_TOKEN: 'gho_1',
  REPOHOST_TOKEN: 'r-1',
  PYTHONPATH: '/evil',
  LD_PRELOAD: '/evil.so',
  UNRELATED: 'x',
};

test('childEnvironment passes the basics and the allowed variables, sets what the caller sets, and nothing else', () => {
  const env = childEnvironment(USER_ENV, { allow: ['AWS_ACCESS_KEY_ID', 'AWS_PROFILE', /^AWS_/], set: { HOME: '/tmp/scratch', AWS_CONFIG_FILE: '/tmp/scratch/.aws/config' } });
  assert.equal(env, {
    PATH: '/usr/bin',
    LANG: 'en_US.UTF-8',
    LC_ALL: 'C',
    HTTPS_PROXY: 'http://proxy:3128',
    AWS_ACCESS_KEY_ID: 'AKIAEXAMPLE',
    AWS_PROFILE: 'team',
    HOME: '/tmp/scratch',
    AWS_CONFIG_FILE: '/tmp/scratch/.aws/config',
  });
});

test('the deny list wins over an allow rule, and withoutSecrets keeps everything else of the user', () => {
  const everything = childEnvironment(USER_ENV, { allow: [/.*/] });
  for (const name of ['GPUCLOUD_CLIENT_SECRET', 'GPUCLOUD_CLIENT_ID', 'ASSISTANT_REDIS_URL', 'OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'GEMINI_API_KEY', 'GOOGLE_API_KEY', 'DEEPSEEK_API_KEY', 'CO_API_KEY', 'MY_CUSTOM_API_KEY', 'GITHUB_TOKEN', 'GH_TOKEN', 'REPOHOST_TOKEN', 'AWS_BEARER_TOKEN_BEDROCK']) {
    assert.ok(isDeniedEnv(name), name);
    assert.not.ok(name in everything, name);
  }
  assert.not.ok('HOME' in everything, 'HOME is never inherited');
  const user = withoutSecrets(USER_ENV);
  assert.is(user.HOME, '/home/user');
  assert.is(user.AWS_PROFILE, 'team');
  assert.not.ok('OPENAI_API_KEY' in user);
  assert.not.ok('GPUCLOUD_CLIENT_SECRET' in user);
});

test('a program of the user session (agent, box agent, onboarding probe) keeps HOME and gets exactly the secrets granted to it, never ours', () => {
  const env = childEnvironment({ ...USER_ENV, NOTES_INTEGRATION_TOKEN: 'n-1', VPS_A_API_TOKEN: 'v-1' }, { session: true, grant: ['OPENAI_API_KEY', 'GPUCLOUD_CLIENT_SECRET'] });
  assert.is(env.HOME, '/home/user');
  assert.is(env.OPENAI_API_KEY, 'sk-1', 'the agent gets its own key');
  for (const name of ['GPUCLOUD_CLIENT_SECRET', 'GPUCLOUD_CLIENT_ID', 'ASSISTANT_REDIS_URL', 'ANTHROPIC_API_KEY', 'GITHUB_TOKEN', 'GH_TOKEN', 'NOTES_INTEGRATION_TOKEN', 'VPS_A_API_TOKEN', 'AWS_ACCESS_KEY_ID', 'LD_PRELOAD', 'PYTHONPATH']) {
    assert.not.ok(name in env, name);
  }
});

test('a scratch directory is 0700 and private; one left by a process killed with -9 is removed by the next step', async () => {
  const first = makeScratch(process.env);
  assert.is(statSync(first.dir).mode & 0o777, 0o700);
  const parent = dirname(first.dir);
  assert.is(statSync(parent).mode & 0o077, 0, 'the parent is the user\'s alone');
  // A process that is gone (its pid no longer exists) and the copy of credentials it left behind.
  const child = spawn(process.execPath, ['-e', '0']);
  const pid = child.pid!;
  await new Promise((resolve) => child.on('close', resolve));
  const stale = join(parent, `${pid}-stale`);
  mkdirSync(join(stale, '.aws'), { recursive: true });
  writeFileSync(join(stale, '.aws', 'credentials'), 'copy');
  const second = makeScratch(process.env);
  assert.not.ok(existsSync(stale), 'the dead process\'s scratch is gone');
  assert.ok(existsSync(first.dir), 'a live process\'s scratch stays');
  first.remove();
  second.remove();
  assert.not.ok(existsSync(first.dir));
});

test.run();
