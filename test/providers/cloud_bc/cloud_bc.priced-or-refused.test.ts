/**
 * cloud_b (`gcloud`) and cloud_c (`az`) under a budget (issue 35 §2): every change step priced from its
 * parsed argv, a scale as new − current from what the stand-in CLI answers for the group (read through
 * the executor, like any plan step), whichever way the scale is written (`az vmss scale` or `az vmss
 * update --set sku.capacity=`), and a budget it breaks refuses before any change is sent: the stand-ins
 * record every call, and only reads are among them.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cliInThisProcess, runCli } from '../../support/cli.js';
import { costsByStep, type CostLine } from '../../support/dry-run.js';
import { planFile } from '../../support/moto.js';
import { standIn, type CannedResponse } from '../../support/standin.js';
import { tempDir } from '../../support/temp.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

function config(): string {
  const file = join(tempDir('cloud-bc-budget-'), 'config.yaml');
  writeFileSync(file, 'infra:\n  cloud_b:\n    project_id: my-proj\n  cloud_c:\n    subscription_id: sub-123\n', { mode: 0o600 });
  return file;
}

const A100_AZ = 3.673;
const close = (actual: number | undefined, expected: number, what: string) => assert.ok(actual !== undefined && Math.abs(actual - expected) < 1e-6, `${what}: ${actual} != ${expected}`);

const AZ_READS: CannedResponse[] = [
  { match: 'vmss show', stdout: { name: 'train', location: 'East US', sku: { name: 'Standard_NC24ads_A100_v4', capacity: 2, tier: 'Standard' } } },
  { match: 'vmss list', stdout: [{ name: 'train', location: 'eastus', sku: { name: 'Standard_NC24ads_A100_v4', capacity: 2 } }] },
  { match: 'vm list', stdout: [] },
  { match: 'group show', stdout: { name: 'rg', location: 'eastus' } },
];

const GCLOUD_READS: CannedResponse[] = [
  { match: 'instance-groups managed describe', stdout: { name: 'g', targetSize: 2, instanceTemplate: 'https://www.googleapis.com/compute/v1/projects/my-proj/global/instanceTemplates/gpu-t' } },
  { match: 'instance-templates describe', stdout: { name: 'gpu-t', properties: { machineType: 'a2-highgpu-1g', guestAccelerators: [] } } },
  { match: 'compute instances list', stdout: [] },
];

async function dryRun(path: string, commands: { args: string[]; reason: string }[], provider: string): Promise<Map<number, CostLine[]>> {
  const r = await runCli(['--config', config(), 'ask', '--apply', '--dry-run', '--destroyer', '-o', 'json', '--plan-file', planFile(commands, provider)], { env: { PATH: path } });
  assert.ok(r.code === 0 || r.code === 3, r.stderr);
  return costsByStep(r.stdout);
}

const isRead = (call: string[]) => call.some((w) => ['show', 'list', 'describe'].includes(w));

test('az: a scale set grown from 2 to 20 A100 VMs under a 1 USD/h budget is refused, written as vmss scale or vmss update --set sku.capacity, and only reads are sent', async () => {
  const az = standIn('az', AZ_READS);
  for (const [args, destroyer] of [
    [['az', 'vmss', 'scale', '-g', 'rg', '-n', 'train', '--new-capacity', '20'], false],
    [['az', 'vmss', 'update', '-g', 'rg', '-n', 'train', '--set', 'sku.capacity=20'], true],
  ] as const) {
    const file = planFile([{ args: [...args], reason: 'more' }], 'cloud_c');
    const r = await runCli(['--config', config(), 'ask', '--apply', ...(destroyer ? ['--destroyer'] : []), '--max-hourly-cost', '1', '--plan-file', file], { env: { PATH: az.path } });
    assert.is(r.code, 3, r.stderr);
    assert.match(r.stderr, /^error: budget_\w+: .*this plan 66\.1140 USD\/hour.*nothing was sent/m);
  }
  const calls = az.calls();
  assert.ok(calls.length > 0 && calls.every(isRead), `only reads: ${JSON.stringify(calls)}`);
});

test('az: every spelling of a capacity change is priced as the canonical one; a size change, a default size or an unknown region is unpriced', async () => {
  const az = standIn('az', AZ_READS);
  const spellings = [
    ['az', 'vmss', 'scale', '-g', 'rg', '-n', 'train', '--new-capacity', '20'],
    ['az', 'vmss', 'scale', '--resource-group=rg', '--name=train', '--new-capacity=20'],
    ['az', '--subscription', 'other', 'VMSS', 'Scale', '-g', 'rg', '-n', 'train', '--new-cap', '20'],
    ['az', 'vmss', 'update', '-g', 'rg', '-n', 'train', '--set', 'sku.capacity=20'],
    ['az', 'vmss', 'update', '-g', 'rg', '-n', 'train', '--set', 'SKU.Capacity=20', 'tags.team=ml'],
    ['az', 'vmss', 'update', '-g', 'rg', '-n', 'train', '--set', 'sku={"capacity": 20}'],
    ['az', 'vmss', 'update', '--ids', '/subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets/train', '--set', 'sku.capacity= 2_0'],
  ];
  const unpricedForms = [
    ['az', 'vmss', 'update', '-g', 'rg', '-n', 'train', '--set', 'sku.name=Standard_ND96isr_H100_v5'],
    ['az', 'vmss', 'update', '-g', 'rg', '-n', 'train', '--set', 'sku={"capacity": 20, "name": "Standard_ND96isr_H100_v5"}'],
    ['az', 'vmss', 'update', '-g', 'rg', '-n', 'train', '--set', 'virtualMachineProfile.priority=Regular'],
    ['az', 'vm', 'create', '-g', 'rg', '-n', 'v', '--image', 'Ubuntu2204'],
    ['az', 'vm', 'create', '-g', 'rg', '-n', 'v', '--image', 'Ubuntu2204', '--size', 'Standard_D2s_v3', '-l', 'brazilsouth'],
  ];
  const costs = await dryRun(az.path, [...spellings, ...unpricedForms].map((args) => ({ args, reason: 'x' })), 'cloud_c');
  // Each spelling scales the same set: the first gets credit for the 2 it has, the later ones none (never lower).
  close(costs.get(0)?.[0]?.per_hour, 18 * A100_AZ, spellings[0]!.join(' '));
  spellings.slice(1).forEach((args, i) => close(costs.get(i + 1)?.[0]?.per_hour, 20 * A100_AZ, args.join(' ')));
  unpricedForms.forEach((args, i) => {
    const line = costs.get(spellings.length + i)?.[0];
    assert.ok(line && line.per_hour === undefined, `${args.join(' ')}: ${JSON.stringify(line)}`);
  });
  assert.match(costs.get(spellings.length + 3)![0]!.type, /no --size: az picks a default size/);
  assert.match(costs.get(spellings.length + 4)![0]!.type, /no prices for region brazilsouth/);
  assert.ok(az.calls().every(isRead));
});

test('gcloud: a managed group resized from 2 to 20 under a 1 USD/h budget is refused with only reads sent; instances, GPUs and GKE nodes are priced, a step without a zone is unpriced', async () => {
  const gcloud = standIn('gcloud', GCLOUD_READS);
  const resize = planFile([{ args: ['gcloud', 'compute', 'instance-groups', 'managed', 'resize', 'g', '--size', '20', '--zone', 'us-central1-a'], reason: 'more' }], 'cloud_b');
  const r = await runCli(['--config', config(), 'ask', '--apply', '--max-hourly-cost', '1', '--plan-file', resize], { env: { PATH: gcloud.path } });
  assert.is(r.code, 3, r.stderr);
  assert.match(r.stderr, /^error: budget_\w+: .*this plan 66\.1209 USD\/hour.*nothing was sent/m);
  assert.ok(gcloud.calls().every(isRead), JSON.stringify(gcloud.calls()));

  const costs = await dryRun(
    gcloud.path,
    [
      ['gcloud', 'compute', 'instances', 'create', 'a', 'b', 'c', '--machine-type', 'n1-standard-8', '--accelerator', 'type=nvidia-tesla-v100,count=2', '--zone', 'us-central1-a'],
      ['gcloud', 'compute', 'instances', 'create', 'd', '--zone=us-central1-b', '--preemptible', 'e', '--machine-type=e2-medium'],
      ['gcloud', 'beta', 'container', 'clusters', 'create', 'k', '--num-nodes', '2', '--region', 'us-central1'],
      ['gcloud', 'compute', 'instances', 'create', 'x', '--machine-type', 'n1-standard-1'],
      ['gcloud', 'compute', 'instance-groups', 'managed', 'resize', 'g', '--size', '1', '--zone', 'us-central1-a'],
    ].map((args) => ({ args, reason: 'x' })),
    'cloud_b',
  );
  close(costs.get(0)?.[0]?.per_hour, 3 * (0.38 + 2 * 2.48), 'three VMs with two V100 each');
  close(costs.get(1)?.[0]?.per_hour, 2 * 0.033503, 'two names, one after a flag without a value');
  close(costs.get(2)?.reduce((a, c) => a + (c.per_hour ?? 0), 0), 2 * 3 * 0.033503 + 0.1, 'two nodes in each of three zones and the cluster fee');
  assert.match(costs.get(3)?.[0]?.type ?? '', /no --zone or --region/);
  assert.not.ok(costs.get(4), 'a resize down adds nothing');
});

test.run();
