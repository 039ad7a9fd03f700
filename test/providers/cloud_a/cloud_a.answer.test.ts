/**
 * The built-in answers about cloud_a (engine/providers/cloud_a/answer.ts) from aws JSON shaped as the CLI
 * prints it: counts, the state the question names, names from Name tags, and user text made printable.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { answerAwsResults } from '../../../engine/providers/cloud_a/answer.js';

const ec2 = (instances: { id: string; name?: string; state: string }[]) => ({
  args: ['aws', 'ec2', 'describe-instances'],
  data: {
    Reservations: [
      { Instances: instances.map((i) => ({ InstanceId: i.id, InstanceType: 't3.micro', State: { Name: i.state }, Tags: i.name ? [{ Key: 'Name', Value: i.name }] : [] })) },
    ],
  },
});

test('a state named in the question narrows the list; "how many" gives the count only', () => {
  const r = ec2([
    { id: 'i-1', name: 'web', state: 'running' },
    { id: 'i-2', name: 'batch', state: 'stopped' },
    { id: 'i-3', state: 'running' },
  ]);
  assert.equal(answerAwsResults('which instances are running?', [r]), ['2 EC2 instances running:\n- web (i-1, t3.micro, running)\n- i-3 (t3.micro, running)']);
  assert.equal(answerAwsResults('how many instances do I have', [r]), ['3 EC2 instances.']);
  assert.equal(answerAwsResults('buckets?', [{ args: ['aws', 's3api', 'list-buckets'], data: { Buckets: [] } }]), ['You have no S3 buckets.']);
});

test('control characters in a Name tag never reach the terminal', () => {
  const [answer] = answerAwsResults('instances', [ec2([{ id: 'i-9', name: 'evil\u001b[31mred\u009b', state: 'running' }])]);
  assert.is(answer, '1 EC2 instance:\n- evil?[31mred? (i-9, t3.micro, running)');
});

test('steps the catalogue does not know are left out', () => {
  assert.equal(answerAwsResults('x', [{ args: ['aws', 'sts', 'get-caller-identity'], data: { Account: '1' } }]), []);
});

test.run();
