/**
 * The onboarding tables hold what they promise: versions parsed from real `--version` outputs, every
 * pinned download well-formed (https, a SHA-256, an artefact per platform it claims), every tool
 * installable somewhere or with a manual link, one credential-source table (the providers' capabilities) whose sources carry names
 * only, and a child environment that never carries our secrets.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { onboardingJsonSchemas, RecipeSchema } from '../../schemas/onboarding.js';
import { childEnvironment } from '../../engine/core/process/child-env.js';
import { scanEntries } from '../../engine/producers/onboarding/scan-entries.js';
import { BUILTIN_RECIPES } from '../../engine/producers/onboarding/recipes.js';
import { TOOLS } from '../../engine/producers/onboarding/tools.js';
import { compareVersions, parseVersion } from '../../engine/producers/onboarding/versions.js';
import { emptyConfig } from '../../schemas/config.js';

test('versions are read from what the real tools print', () => {
  const cases: [string, string][] = [
    ['aws-cli/2.15.0 Python/3.11.6 Linux/6.1.0 exe/x86_64.debian.12', '2.15.0'],
    ['aws-cli/1.45.11 Python/3.11.7 Linux/6.1.0 botocore/1.37.11', '1.45.11'],
    ['Google Cloud SDK 528.0.0\nalpha 2025.06.27\nbq 2.1.19', '528.0.0'],
    ['azure-cli                         2.67.0\n\ncore                              2.67.0', '2.67.0'],
    ['Client Version: v1.31.0\nKustomize Version: v5.4.2', '1.31.0'],
    ['Terraform v1.9.8\non linux_amd64', '1.9.8'],
    ['OpenTofu v1.8.5\non linux_amd64', '1.8.5'],
    ['OpenSSH_9.2p1 Debian-2+deb12u3, OpenSSL 3.0.15 3 Sep 2024', '9.2'],
    ['gh version 2.62.0 (2024-11-14)\nhttps://github.com/cli/cli/releases/tag/v2.62.0', '2.62.0'],
    ['git version 2.39.5', '2.39.5'],
    ['psql (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)', '15.18'],
    ['Docker version 28.2.2, build e6534b4', '28.2.2'],
    [' ⛅️ wrangler 3.78.0\n-------------------', '3.78.0'],
    ['doctl version 1.110.0-release', '1.110.0'],
    ['hcloud v1.47.0', '1.47.0'],
    ['sentry-cli 2.38.2', '2.38.2'],
  ];
  for (const [text, version] of cases) assert.is(parseVersion(text), version, text);
  assert.is(parseVersion('no digits here'), undefined);
  assert.ok(compareVersions('2.10.1', '2.17.0') < 0);
  assert.ok(compareVersions('2.17', '2.17.0') === 0);
  assert.ok(compareVersions('10.0', '9.9.9') > 0);
});

test('every built-in recipe is well-formed; downloads are https with a SHA-256 for each platform they list', () => {
  const tools = new Set(TOOLS.map((t) => t.name));
  for (const [tool, recipes] of Object.entries(BUILTIN_RECIPES)) {
    assert.ok(tools.has(tool), `recipe for unknown tool ${tool}`);
    for (const r of recipes) {
      const parsed = RecipeSchema.safeParse(r);
      assert.ok(parsed.success, `${tool}: ${JSON.stringify(parsed.error?.issues)}`);
      if (r.method !== 'download') continue;
      const seen = new Set<string>();
      for (const [platform, a] of Object.entries(r.artefacts)) {
        assert.match(a.url, /^https:\/\//, `${tool} ${platform}`);
        assert.match(a.sha256, /^[0-9a-f]{64}$/, `${tool} ${platform}`);
        assert.ok(a.url.includes(r.version), `${tool} ${platform}: the URL names version ${r.version}`);
        assert.not.ok(seen.has(a.sha256), `${tool} ${platform}: a checksum used twice`);
        seen.add(a.sha256);
        // The artefact's own name says its platform (amd64/arm64, linux/darwin/macOS/windows).
        const [os, arch] = platform.split('/') as [string, string];
        assert.match(a.url, new RegExp(os === 'darwin' ? '(darwin|macOS)' : os), `${tool} ${platform}`);
        assert.match(a.url, new RegExp(arch === 'x64' ? 'amd64' : 'arm64'), `${tool} ${platform}`);
      }
    }
  }
  for (const t of TOOLS) {
    assert.ok(BUILTIN_RECIPES[t.name]?.length, `${t.name} has at least one recipe`);
    assert.match(t.manual, /^https:\/\//, `${t.name} has a manual install link`);
  }
});

test('one credential-source table: unique providers, known kinds, names and paths only', async () => {
  // The table is the providers' `credentials` capabilities, asked of the registry, and the assistant's own keys.
  const PROVIDER_CREDENTIALS = await scanEntries();
  const names = PROVIDER_CREDENTIALS.map((p) => p.provider);
  assert.is(new Set(names).size, names.length);
  for (const p of ['gpucloud', 'cloud_a', 'cloud_b', 'cloud_c', 'k8s', 'repohost', 'edge', 'vps_a', 'vps_b', 'cloud_d', 'appplatform', 'errtracker', 'postgres', 'terraform', 'ssh']) {
    assert.ok(names.includes(p), p);
  }
  const secret = 'value-that-must-not-appear-0001';
  const config = emptyConfig();
  Object.assign(config, { gpucloud: { client_id: 'x', client_secret: secret }, edge: { api_token: secret }, repohost: { token: secret } });
  const env = { GPUCLOUD_CLIENT_SECRET: secret, GPUCLOUD_CLIENT_ID: 'y', EDGE_API_TOKEN: secret, AWS_SECRET_ACCESS_KEY: secret, AWS_ACCESS_KEY_ID: 'AKIAEXAMPLE' };
  for (const p of PROVIDER_CREDENTIALS) {
    const sources = await p.sources({ config, configPath: '/home/me/.assistant.yaml', env, home: '/home/me', os: 'linux' });
    assert.ok(sources.length > 0, p.provider);
    assert.ok(sources.filter((s) => s.used).length <= 1, `${p.provider}: at most one source used`);
    for (const s of sources) {
      assert.ok(['config', 'env', 'file', 'backend', 'cli-profile'].includes(s.kind));
      assert.not.ok(JSON.stringify(s).includes(secret), `${p.provider}: ${JSON.stringify(s)}`);
    }
  }
});

test('the child environment is an allowlist: a tool gets its own variables, never ours', () => {
  const env = {
    PATH: '/usr/bin',
    HOME: '/home/me',
    LC_ALL: 'C',
    GPUCLOUD_CLIENT_SECRET: 's1',
    ASSISTANT_BACKEND_API_KEY: 's2',
    OPENAI_API_KEY: 's3',
    EDGE_API_TOKEN: 's4',
    AWS_SECRET_ACCESS_KEY: 'aws',
    AWS_FOO_API_KEY: 'not-aws-own',
    GITHUB_TOKEN: 'gh',
    RANDOM_VAR: 'x',
  };
  const aws = childEnvironment(env, { prefixes: ['AWS_'] });
  assert.equal(Object.keys(aws).sort(), ['AWS_SECRET_ACCESS_KEY', 'HOME', 'LC_ALL', 'PATH']);
  const gh = childEnvironment(env, { names: ['GITHUB_TOKEN'], set: { GH_PROMPT_DISABLED: '1' } });
  assert.equal(Object.keys(gh).sort(), ['GH_PROMPT_DISABLED', 'GITHUB_TOKEN', 'HOME', 'LC_ALL', 'PATH']);
  // Even asked for by name or prefix, our own secrets never pass.
  assert.equal(Object.keys(childEnvironment(env, { prefixes: ['GPUCLOUD_', 'ASSISTANT_'], names: ['GPUCLOUD_CLIENT_SECRET'] })).sort(), ['HOME', 'LC_ALL', 'PATH']);
});

test('the checked-in JSON Schemas are what the zod schemas generate (npm run schemas)', () => {
  for (const [name, schema] of Object.entries(onboardingJsonSchemas())) {
    const checkedIn = JSON.parse(readFileSync(new URL(`../../../schemas/${name}`, import.meta.url), 'utf8'));
    assert.equal(checkedIn, JSON.parse(JSON.stringify(schema)), `${name} is stale: run npm run schemas`);
  }
});

test.run();
