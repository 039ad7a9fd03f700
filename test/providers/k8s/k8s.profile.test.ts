/**
 * `k8s ask --profile <name> --region <r>` (SPEC: k8s ask … [--profile <name>]; issue 39 §5): the aws
 * profile and region reach the kubeconfig's exec credential plugin (`aws eks get-token` reads them from
 * its environment), from the flags or else from the cluster's config entry. The plugin here is a script
 * that records the environment it was given and prints an ExecCredential for the fake API.
 */
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cliInThisProcess, configFile, runCli } from '../../support/cli.js';
import { startKubeApi, writeKubeconfig, type KubeApi } from '../../support/kube-api.js';
import { tempDir } from '../../support/temp.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

let api: KubeApi;
let dir: string;
let kubeconfig: string;
const seenBy = () => join(dir, 'plugin-env.json');

test.before(async () => {
  api = await startKubeApi();
  dir = tempDir('kprofile-');
  const plugin = join(dir, 'get-token.js');
  writeFileSync(
    plugin,
    `#!${process.execPath}\n` +
      `require('fs').writeFileSync(${JSON.stringify(seenBy())}, JSON.stringify({ profile: process.env.AWS_PROFILE ?? null, region: process.env.AWS_REGION ?? null }));\n` +
      `process.stdout.write(JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token: ${JSON.stringify(api.token)} } }));\n`,
  );
  chmodSync(plugin, 0o755);
  kubeconfig = writeKubeconfig(dir, api, { context: 'prod', exec: { command: plugin } });
});
test.after(async () => api.close());

const pluginEnv = () => JSON.parse(readFileSync(seenBy(), 'utf8')) as { profile: string | null; region: string | null };

test('k8s ask --profile --region hand the aws profile and region to the credential plugin', async () => {
  const r = await runCli(['k8s', 'ask', 'which pods are restarting?', '--ai-profile', 'builtin', '--profile', 'team-a', '--region', 'eu-west-1', '-n', 'default'], { env: { KUBECONFIG: kubeconfig, AWS_PROFILE: 'someone-else' } });
  assert.is(r.code, 0, r.stderr);
  assert.equal(pluginEnv(), { profile: 'team-a', region: 'eu-west-1' });
  assert.ok(api.requests().some((q) => q.auth === 'token'), 'the plugin token authenticated the reads');
});

test("without the flags the cluster's config entry names the profile and region; a flag overrides it", async () => {
  const config = configFile(`kubernetes:\n  kubeconfig: ${kubeconfig}\n  clusters:\n    prod:\n      type: eks\n      name: prod\n      profile: from-config\n      region: us-east-2\n`);
  const a = await runCli(['--config', config, 'k8s', 'get', 'pods', '--cluster', 'prod', '-n', 'default']);
  assert.is(a.code, 0, a.stderr);
  assert.equal(pluginEnv(), { profile: 'from-config', region: 'us-east-2' });
  const b = await runCli(['--config', config, 'k8s', 'ask', 'how many nodes are there?', '--ai-profile', 'builtin', '--cluster', 'prod', '--profile', 'override']);
  assert.is(b.code, 0, b.stderr);
  assert.equal(pluginEnv(), { profile: 'override', region: 'us-east-2' });
});

test.run();
