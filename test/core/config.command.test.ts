import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parse as parseYaml } from 'yaml';
import { run } from '../../commands/config.js';
import { commandContext, type CommandContext, type GlobalOptions } from '../../commands/context.js';
import { UsageError } from '../../engine/core/errors.js';
import { tempDir } from '../support/temp.js';

interface Harness {
  ctx: CommandContext;
  stdout: () => string;
  stderr: () => string;
}

function harness(home: string, env: NodeJS.ProcessEnv = {}, globals: Partial<GlobalOptions> = {}): Harness {
  const out = new PassThrough();
  const err = new PassThrough();
  let stdout = '';
  let stderr = '';
  out.on('data', (d: Buffer) => (stdout += d.toString()));
  err.on('data', (d: Buffer) => (stderr += d.toString()));
  const ctx: CommandContext = commandContext({
    io: {
      stdout: out,
      stderr: err,
      stdin: new PassThrough(),
      stdoutIsTTY: false,
      stderrIsTTY: false,
      stdinIsTTY: false,
      columns: 80,
      color: false,
    },
    env,
    home,
    globals: { output: 'table', outputExplicit: false, debug: false, yes: false, sandbox: false, ...globals },
  });
  return { ctx, stdout: () => stdout, stderr: () => stderr };
}

function tempHome(): string {
  return tempDir('assistant-config-cmd-');
}

const SECRETS = {
  client: 'cs-0123456789abcdef',
  ai: 'sk-ai-0123456789abcdef',
  repo: 'ghp_0123456789abcdef',
  backend: 'be-0123456789abcdef',
  cloudD: 'cd-0123456789abcdef',
  router: 'rk-0123456789abcdef',
};

const CONFIG = `gpucloud:
  client_id: my-client-id
  client_secret: ${SECRETS.client}
  default_location: FIN-01
ai:
  default_provider: anthropic
  providers:
    main: { provider: anthropic, model: m1, api_key: ${SECRETS.ai} }
repohost: { token: ${SECRETS.repo}, owner: me }
backend: { api_key: ${SECRETS.backend}, env: staging }
cloud_d: { secret_id: sid-1, secret_key: ${SECRETS.cloudD} }
agent: { router_api_key: ${SECRETS.router} }
`;

function writeConfig(home: string, text: string, mode = 0o600): string {
  const path = join(home, '.assistant.yaml');
  writeFileSync(path, text, { mode });
  chmodSync(path, mode);
  return path;
}

test('config show (yaml) masks every secret and says where credentials came from', async () => {
  const home = tempHome();
  const path = writeConfig(home, CONFIG);
  const h = harness(home);
  const code = await run(['show'], h.ctx);
  assert.is(code, 0);
  const out = h.stdout();
  for (const secret of Object.values(SECRETS)) assert.not.match(out, secret);
  assert.not.match(h.stderr(), SECRETS.client);
  const doc = parseYaml(out) as Record<string, any>;
  assert.is(doc.file, path);
  assert.is(doc.exists, true);
  assert.is(doc.config.gpucloud.client_id, 'my-client-id');
  assert.is(doc.config.gpucloud.client_secret, '***');
  assert.is(doc.config.ai.providers.main.api_key, '***');
  assert.is(doc.config.repohost.token, '***');
  assert.is(doc.config.cloud_d.secret_key, '***');
  assert.is(doc.config.cloud_d.region, 'ap-singapore');
  assert.is(doc.config.ai.max_prompt_chars, 120000);
  assert.is(doc.credentials.gpucloud.source, 'config');
  assert.match(doc.credentials.gpucloud.detail, path);
  assert.is(doc.credentials.gpucloud.client_secret, '***');
  assert.is(doc.credentials.gpucloud.base_url, 'https://api.verda.com');
  assert.is(h.stderr(), '');
});

test('config show -o json is parseable and masked', async () => {
  const home = tempHome();
  writeConfig(home, CONFIG);
  const h = harness(home, {}, { output: 'json', outputExplicit: true });
  assert.is(await run(['show'], h.ctx), 0);
  const out = h.stdout();
  for (const secret of Object.values(SECRETS)) assert.not.match(out, secret);
  const doc = JSON.parse(out);
  assert.is(doc.credentials.gpucloud.source, 'config');
  assert.is(doc.config.backend.env, 'staging');
});

test('config show without any credentials reports "not found" with every place', async () => {
  const home = tempHome();
  const h = harness(home, { GPUCLOUD_BASE_URL: 'http://127.0.0.1:5000/v1' });
  assert.is(await run(['show'], h.ctx), 0);
  const doc = parseYaml(h.stdout()) as Record<string, any>;
  assert.is(doc.exists, false);
  assert.is(doc.credentials.gpucloud.source, 'none');
  assert.match(doc.credentials.gpucloud.detail, /^not found: /);
  assert.match(doc.credentials.gpucloud.detail, 'GPUCLOUD_CLIENT_ID');
  assert.match(doc.credentials.gpucloud.detail, join(home, '.gpucloud', 'credentials'));
  assert.is(doc.credentials.gpucloud.base_url, 'http://127.0.0.1:5000');
});

test('config show with env credentials masks the env secret', async () => {
  const home = tempHome();
  const h = harness(home, { GPUCLOUD_CLIENT_ID: 'env-id', GPUCLOUD_CLIENT_SECRET: 'env-secret-0123456789' });
  assert.is(await run(['show'], h.ctx), 0);
  assert.not.match(h.stdout(), 'env-secret-0123456789');
  const doc = parseYaml(h.stdout()) as Record<string, any>;
  assert.is(doc.credentials.gpucloud.source, 'env');
});

test('warnings (unknown key, permissions) go to stderr with "warning: "', async () => {
  const home = tempHome();
  const path = writeConfig(home, CONFIG + 'frobnicate: 3\n', 0o644);
  const h = harness(home);
  assert.is(await run(['show'], h.ctx), 0);
  const err = h.stderr();
  assert.match(err, `warning: ${path}:13: unknown key "frobnicate" (ignored)`);
  assert.match(err, `warning: ${path} is readable by other users and holds secrets; run chmod 600 ${path}`);
  assert.not.match(h.stdout(), 'warning');
});

test('invalid config propagates as InvalidInputError (exit 2)', async () => {
  const home = tempHome();
  writeConfig(home, 'timeout: soon\n');
  const h = harness(home);
  try {
    await run(['show'], h.ctx);
    assert.unreachable('should throw');
  } catch (err) {
    assert.is((err as { code?: string }).code, 'invalid_config');
    assert.is((err as { exitCode?: number }).exitCode, 2);
  }
});

test('--config points at another file', async () => {
  const home = tempHome();
  const other = join(home, 'team.yaml');
  writeFileSync(other, 'timeout: 42\n', { mode: 0o600 });
  const h = harness(home, {}, { config: other });
  assert.is(await run(['show'], h.ctx), 0);
  const doc = parseYaml(h.stdout()) as Record<string, any>;
  assert.is(doc.file, other);
  assert.is(doc.config.timeout, 42);
});

test('config path prints the file in use', async () => {
  const home = tempHome();
  const h = harness(home);
  assert.is(await run(['path'], h.ctx), 0);
  assert.is(h.stdout(), join(home, '.assistant.yaml') + '\n');
  assert.match(h.stderr(), 'does not exist');
});

test('--help lists subcommands and examples on stdout', async () => {
  const h = harness(tempHome());
  assert.is(await run(['--help'], h.ctx), 0);
  const out = h.stdout();
  assert.match(out, 'assistant config');
  assert.match(out, 'show');
  assert.match(out, 'path');
  assert.match(out, 'Examples:');
  const bare = harness(tempHome());
  assert.is(await run([], bare.ctx), 0);
  assert.match(bare.stdout(), 'Commands:');
});

test('unknown subcommand and unknown option are usage errors', async () => {
  for (const argv of [['nope'], ['show', '--frob']]) {
    try {
      await run(argv, harness(tempHome()).ctx);
      assert.unreachable(`should throw for ${argv.join(' ')}`);
    } catch (err) {
      assert.instance(err, UsageError);
    }
  }
});

test.run();
