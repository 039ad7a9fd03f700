/**
 * cloud_a under a budget (issue 35 §2, DESIGN §8 "priced or refused"), the real aws CLI against moto:
 * a scale-up is priced as new − current from the group moto has (read through the executor), in every
 * spelling aws-cli accepts, and a budget it breaks refuses the plan before any change is sent (moto's
 * request recorder shows only reads). Counts of run-instances, maxima, launch templates, second touches
 * of a group, scale-downs and changes no row prices are checked through the dry run's cost lines.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cliInThisProcess, runCli } from '../../support/cli.js';
import { costsByStep, type CostLine } from '../../support/dry-run.js';
import { createGroup, createLaunchTemplate, groupDesired, instanceIds, motoSuite, operationsDuring, planFile, runInstance } from '../../support/moto.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

const motoTest = motoSuite(test);

const P4D = 32.7726;
const T3_MICRO = 0.0104;
const close = (actual: number | undefined, expected: number, what: string) => assert.ok(actual !== undefined && Math.abs(actual - expected) < 1e-6, `${what}: ${actual} != ${expected}`);
const step = (args: string[], reason = 'scale', produces?: Record<string, string>) => ({ args: ['aws', ...args], reason, ...(produces ? { produces } : {}) });
/** A read that binds N and TYPE at run time: a later step using them cannot be priced at plan time. */
const bindAtRunTime = step(['ec2', 'describe-availability-zones'], 'bind values at run time', { N: '$.AvailabilityZones[0].ZoneId', TYPE: '$.AvailabilityZones[0].ZoneName' });

/** The dry run's cost lines, per step. */
async function dryRun(m: { env: Record<string, string | undefined> }, commands: ReturnType<typeof step>[]): Promise<Map<number, CostLine[]>> {
  const r = await runCli(['ask', '--apply', '--dry-run', '-o', 'json', '--plan-file', planFile(commands)], { env: m.env });
  assert.ok(r.code === 0 || r.code === 3, r.stderr);
  return costsByStep(r.stdout);
}

const READS = /^(Describe|Get|List)/;

motoTest('set-desired-capacity 20 of a p4d.24xlarge group under a 1 USD/h budget is refused before any change is sent (the issue\'s 655 USD/h)', async (m) => {
  await createLaunchTemplate(m, 'gpu', 'p4d.24xlarge');
  await createGroup(m, 'trainers', 'gpu', 1, 30);
  assert.is((await instanceIds(m)).length, 1);
  const plan = planFile([step(['autoscaling', 'set-desired-capacity', '--auto-scaling-group-name', 'trainers', '--desired-capacity', '20'])]);
  let r: Awaited<ReturnType<typeof runCli>> | undefined;
  const sent = await operationsDuring(m, async () => {
    r = await runCli(['ask', '--apply', '--max-hourly-cost', '1', '--plan-file', plan], { env: m.env });
  });
  assert.is(r!.code, 3, r!.stderr);
  assert.match(r!.stderr, /^error: budget_\w+: .*this plan 622\.6794 USD\/hour.*above the limit of 1\.0000 USD\/hour.*nothing was sent/m);
  assert.ok(sent.length > 0 && sent.every((op) => READS.test(op)), `only reads were sent: ${sent.join(', ')}`);
  assert.ok(sent.includes('DescribeAutoScalingGroups'), 'the current size was read');
  assert.is(await groupDesired(m, 'trainers'), 1);
  assert.is((await instanceIds(m)).length, 1, 'no instance started');
  // --allow-unpriced does not let a priced change past the budget.
  const again = await runCli(['ask', '--apply', '--max-hourly-cost', '1', '--allow-unpriced', '--plan-file', plan], { env: m.env });
  assert.is(again.code, 3, again.stderr);
  assert.is(await groupDesired(m, 'trainers'), 1);
});

motoTest('every spelling aws-cli accepts is priced exactly as the canonical request: =, a prefix, globals first, --cli-input-json, case, int() forms', async (m) => {
  await createLaunchTemplate(m, 'gpu', 'p4d.24xlarge');
  const spellings: string[][] = [
    ['autoscaling', 'set-desired-capacity', '--auto-scaling-group-name', 'g0', '--desired-capacity', '20'],
    ['autoscaling', 'set-desired-capacity', '--auto-scaling-group-name=g1', '--desired-capacity=20'],
    ['autoscaling', 'set-desired-capacity', '--auto-scaling-group-name', 'g2', '--desired-c', '20'],
    ['--region', 'us-east-1', '--no-paginate', 'autoscaling', 'set-desired-capacity', '--auto-scaling-group-name', 'g3', '--desired-capacity', '20'],
    ['autoscaling', 'set-desired-capacity', '--cli-input-json', '{"AutoScalingGroupName":"g4","DesiredCapacity":20}'],
    ['AutoScaling', 'Set-Desired-Capacity', '--Auto-Scaling-Group-Name', 'g5', '--DESIRED-CAPACITY', '20'],
    ['autoscaling', 'set-desired-capacity', '--auto-scaling-group-name', 'g6', '--desired-capacity', ' +2_0 '],
    ['autoscaling', 'set-desired-capacity', '--auto-scaling-group-name', 'g7', '--desired-capacity', '5', '--cli-input-json', '{"AutoScalingGroupName":"g7","DesiredCapacity":20}'],
  ];
  for (let i = 0; i < spellings.length; i++) await createGroup(m, `g${i}`, 'gpu', 1, 30);
  const costs = await dryRun(m, spellings.map((a) => step(a)));
  spellings.forEach((args, i) => {
    const lines = costs.get(i) ?? [];
    assert.is(lines.length, 1, `${args.join(' ')}: ${JSON.stringify(lines)}`);
    close(lines[0]!.per_hour, 19 * P4D, args.join(' '));
    assert.is(lines[0]!.type, 'p4d.24xlarge');
    assert.is(lines[0]!.part, '19 more (1 → 20)');
  });
  // Nothing changed: a dry run.
  for (let i = 0; i < spellings.length; i++) assert.is(await groupDesired(m, `g${i}`), 1);
});

motoTest('a maximum the step sets is priced as the new size, a group touched twice gets no credit, a scale-down is free, a type without a price is unpriced', async (m) => {
  await createLaunchTemplate(m, 'gpu', 'p4d.24xlarge');
  await createLaunchTemplate(m, 'odd', 'x9.enormous');
  await createGroup(m, 'a', 'gpu', 2, 4);
  await createGroup(m, 'b', 'gpu', 3, 4);
  await createGroup(m, 'c', 'odd', 1, 4);
  const costs = await dryRun(m, [
    bindAtRunTime,
    step(['autoscaling', 'update-auto-scaling-group', '--auto-scaling-group-name', 'a', '--max-size', '10']),
    step(['autoscaling', 'set-desired-capacity', '--auto-scaling-group-name', 'a', '--desired-capacity', '4']),
    step(['autoscaling', 'set-desired-capacity', '--auto-scaling-group-name', 'b', '--desired-capacity', '1']),
    step(['autoscaling', 'set-desired-capacity', '--auto-scaling-group-name', 'c', '--desired-capacity', '2']),
    step(['autoscaling', 'set-desired-capacity', '--auto-scaling-group-name', 'b', '--desired-capacity', '<N>']),
    step(['autoscaling', 'create-auto-scaling-group', '--auto-scaling-group-name', 'new', '--launch-template', 'LaunchTemplateName=gpu', '--min-size', '1', '--max-size', '3', '--desired-capacity', '1', '--availability-zones', 'us-east-1a']),
  ]);
  assert.not.ok(costs.get(0), 'a read is free');
  close(costs.get(1)?.[0]?.per_hour, 8 * P4D, 'max 10 from 2 running');
  close(costs.get(2)?.[0]?.per_hour, 4 * P4D, 'the same group again: no credit for the 2 it has');
  assert.not.ok(costs.get(3), 'a scale-down adds nothing');
  assert.is(costs.get(4)?.[0]?.per_hour, undefined);
  assert.match(costs.get(4)?.[0]?.type ?? '', /^x9\.enormous: not in the price table/);
  assert.is(costs.get(5)?.[0]?.per_hour, undefined, 'a count only known at run time');
  close(costs.get(6)?.[0]?.per_hour, 3 * P4D, 'a new group at its maximum');
});

motoTest('run-instances: --count min:max counts the max, MaxCount in --cli-input-json counts, the type comes from a launch template, a placeholder type is unpriced', async (m) => {
  await createLaunchTemplate(m, 'small', 't3.micro');
  const costs = await dryRun(m, [
    bindAtRunTime,
    step(['ec2', 'run-instances', '--image-id', 'ami-12c6146b', '--instance-type', 't3.micro', '--count', '1:5']),
    step(['ec2', 'run-instances', '--image-id', 'ami-12c6146b', '--instance-type', 't3.micro', '--cli-input-json', '{"MaxCount": 7, "MinCount": 1}']),
    step(['ec2', 'run-instances', '--launch-template', 'LaunchTemplateName=small', '--count', '3']),
    step(['ec2', 'run-instances', '--image-id', 'ami-12c6146b', '--instance-type', 't3.micro', '--cli-input-json', '{"InstanceType": "p4d.24xlarge"}']),
    step(['ec2', 'run-instances', '--image-id', 'ami-12c6146b', '--instance-type', '<TYPE>']),
    step(['ec2', 'run-instances', '--image-id', 'ami-12c6146b', '--instance-t', 'P4D.24XLARGE']),
  ]);
  close(costs.get(1)?.[0]?.per_hour, 5 * T3_MICRO, '--count 1:5');
  close(costs.get(2)?.[0]?.per_hour, 7 * T3_MICRO, 'MaxCount 7');
  close(costs.get(3)?.[0]?.per_hour, 3 * T3_MICRO, 'the template\'s type');
  close(costs.get(4)?.[0]?.per_hour, P4D, 'two types given: the dearer counts');
  assert.is(costs.get(5)?.[0]?.per_hour, undefined, 'a type only known at run time');
  close(costs.get(6)?.[0]?.per_hour, P4D, 'a prefix and another case');
  assert.equal(await instanceIds(m), [], 'a dry run starts nothing');
});

motoTest('within the budget a priced scale runs; a change no row prices (with --destroyer) is refused under a budget unless --allow-unpriced, before anything is sent', async (m) => {
  await createLaunchTemplate(m, 'small', 't3.micro');
  await createGroup(m, 'web', 'small', 1, 5);
  const ok = await runCli(['ask', '--apply', '--max-hourly-cost', '1', '--plan-file', planFile([step(['autoscaling', 'set-desired-capacity', '--auto-scaling-group-name', 'web', '--desired-capacity', '3'])])], { env: m.env });
  assert.is(ok.code, 0, ok.stderr);
  assert.is(await groupDesired(m, 'web'), 3);

  const vm = await runInstance(m);
  const resize = planFile([step(['ec2', 'modify-instance-attribute', '--instance-id', vm, '--instance-type', 'Value=p4d.24xlarge'], 'resize')]);
  let r: Awaited<ReturnType<typeof runCli>> | undefined;
  const sent = await operationsDuring(m, async () => {
    r = await runCli(['ask', '--apply', '--destroyer', '--max-hourly-cost', '100', '--plan-file', resize], { env: m.env });
  });
  assert.is(r!.code, 3, r!.stderr);
  assert.match(r!.stderr, /no price is known for this command/);
  assert.ok(sent.every((op) => READS.test(op)), `only reads were sent: ${sent.join(', ')}`);
  const allowed = await runCli(['ask', '--apply', '--destroyer', '--max-hourly-cost', '100', '--allow-unpriced', '--plan-file', resize], { env: m.env });
  assert.is(allowed.code, 0, allowed.stderr);
});

test.run();
