/**
 * cloud_b (`gcloud`) and cloud_c (`az`) answer questions through their `reads` and `answer`
 * capabilities (issue 23): routed by their own words or flags, read with read-only steps through the
 * executor (a stand-in CLI on PATH records what it was asked), answered without a model by the
 * built-in answerer, and combined with another provider in one view.
 */
import { writeFileSync } from 'node:fs';
import { tempDir } from '../../support/temp.js';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cliInThisProcess, runCli } from '../../support/cli.js';
import { standIn } from '../../support/standin.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

function config(): string {
  const file = join(tempDir('cloud-bc-ask-'), 'config.yaml');
  writeFileSync(file, 'infra:\n  cloud_b:\n    project_id: my-proj\n  cloud_c:\n    subscription_id: sub-123\n', { mode: 0o600 });
  return file;
}

const gcloud = () =>
  standIn('gcloud', [
    {
      match: 'compute instances list',
      stdout: [
        { name: 'train-1', status: 'RUNNING', zone: 'https://www.googleapis.com/compute/v1/projects/p/zones/europe-west4-a', machineType: '.../machineTypes/a2-highgpu-1g' },
        { name: 'batch-2', status: 'TERMINATED', zone: '.../zones/us-central1-a', machineType: '.../machineTypes/n1-standard-4' },
      ],
    },
    { match: 'storage buckets list', stdout: [{ name: 'datasets-eu', location: 'EU' }] },
    { match: 'container clusters list', stdout: [{ name: 'gke-prod', status: 'RUNNING', location: 'europe-west4' }] },
  ]);

const az = () =>
  standIn('az', [
    { match: 'aks list', stdout: [{ name: 'aks-dev', location: 'westeurope', kubernetesVersion: '1.30.3', powerState: { code: 'Running' } }] },
    { match: 'vm list', stdout: [{ name: 'vm-a', location: 'westeurope', resourceGroup: 'rg-1', powerState: 'VM running', hardwareProfile: { vmSize: 'Standard_NC6' } }] },
    { match: 'group list', stdout: [{ name: 'rg-1', location: 'westeurope', properties: { provisioningState: 'Succeeded' } }] },
  ]);

test('a question about cloud_b is routed by its words, read with gcloud list steps and answered without a model', async () => {
  const g = gcloud();
  const r = await runCli(['--config', config(), 'ask', '--ai-profile', 'builtin', 'which gce instances are running?'], { env: { PATH: g.path } });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /1 Compute Engine instance RUNNING:\n- train-1 \(a2-highgpu-1g, europe-west4-a, RUNNING\)/);
  const calls = g.calls();
  assert.ok(calls.some((c) => c.join(' ').startsWith('compute instances list')), JSON.stringify(calls));
  assert.ok(calls.every((c) => c.includes('--format=json') && c.includes('my-proj')), 'the provider adds JSON output and the project');
});

test('--cloud-c selects cloud_c; its words choose the reads (aks), and with --cloud-b the view is combined', async () => {
  const g = gcloud();
  const a = az();
  const env = { PATH: `${a.dir}:${g.path}` };
  const one = await runCli(['--config', config(), 'ask', '--ai-profile', 'builtin', '--cloud-c', 'list my aks clusters'], { env });
  assert.is(one.code, 0, one.stderr);
  assert.match(one.stdout, /1 AKS cluster:\n- aks-dev \(1\.30\.3, westeurope, Running\)/);
  assert.equal(g.calls(), [], 'gcloud was not asked');
  const both = await runCli(['--config', config(), 'ask', '--ai-profile', 'builtin', '--cloud-b', '--cloud-c', 'what clusters do I have'], { env });
  assert.is(both.code, 0, both.stderr);
  assert.match(both.stdout, /GKE cluster:\n- gke-prod/);
  assert.match(both.stdout, /AKS cluster:\n- aks-dev/);
});

test('--route-only shows cloud_b chosen by "gce" and the reads its context would run; nothing runs', async () => {
  const g = gcloud();
  const r = await runCli(['ask', '--route-only', '-o', 'json', 'list my gce instances and buckets'], { env: { PATH: g.path } });
  assert.is(r.code, 0, r.stderr);
  const doc = JSON.parse(r.stdout);
  assert.equal(doc.providers, ['cloud_b']);
  assert.equal(doc.context_kinds, ['cloud_b/compute', 'cloud_b/storage']);
  assert.equal(g.calls(), []);
});

test.run();
