/**
 * The IAM analysis on its own (engine/producers/reports/iam.ts), where the moto tests cannot reach: keys
 * created or last used more than 90 days ago (moto stamps keys with the current time), statement
 * shapes (NotAction, Deny, a single statement object, URL-encoded documents).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { iamFindings, judgePolicy, roleNameOfArn, type IamPrincipal } from '../../engine/producers/reports/iam.js';

const NOW = Date.parse('2026-11-23T12:00:00Z');
const daysAgo = (n: number) => new Date(NOW - n * 86_400_000).toISOString();

test('an active key older than 90 days is old; one not used for more than 90 days is unused; inactive keys are not findings', () => {
  const user: IamPrincipal = {
    type: 'user',
    name: 'erin',
    policies: [],
    mfa: true,
    access_keys: [
      { id: '…AAAA', status: 'Active', created: daysAgo(200), age_days: 200, last_used: daysAgo(1) },
      { id: '…BBBB', status: 'Active', created: daysAgo(100), age_days: 100, last_used: daysAgo(95) },
      { id: '…CCCC', status: 'Active', created: daysAgo(10), age_days: 10, last_used: daysAgo(2) },
      { id: '…DDDD', status: 'Inactive', created: daysAgo(400), age_days: 400 },
    ],
  };
  assert.equal(
    iamFindings([user], NOW).map((f) => `${f.kind} ${f.subject} ${f.detail}`),
    [
      'old_access_key …AAAA active key created 200 days ago (rotate after 90)',
      'old_access_key …BBBB active key created 100 days ago (rotate after 90)',
      'unused_access_key …BBBB active key unused for 95 days',
    ],
  );
});

test('policy documents: administrator, service wildcards, NotAction, Deny ignored, one statement object, URL-encoded text', () => {
  assert.is(judgePolicy({ Statement: [{ Effect: 'Allow', Action: '*', Resource: '*' }] }).verdict, 'administrator');
  assert.is(judgePolicy({ Statement: { Effect: 'Allow', Action: ['*'], Resource: ['*'] } }).verdict, 'administrator');
  assert.equal(judgePolicy({ Statement: [{ Effect: 'Allow', Action: ['iam:*', 's3:GetObject'], Resource: '*' }] }), { verdict: 'wildcard', wildcards: ['Action "iam:*"'] });
  assert.is(judgePolicy({ Statement: [{ Effect: 'Allow', NotAction: 'iam:*', Resource: '*' }] }).verdict, 'wildcard');
  assert.is(judgePolicy({ Statement: [{ Effect: 'Deny', Action: '*', Resource: '*' }] }).verdict, 'ok');
  assert.is(judgePolicy({ Statement: [{ Effect: 'Allow', Action: 'ec2:Describe*', Resource: '*' }] }).verdict, 'ok');
  assert.is(judgePolicy(encodeURIComponent(JSON.stringify({ Statement: [{ Effect: 'Allow', Action: '*', Resource: '*' }] }))).verdict, 'administrator');
  assert.is(judgePolicy('not json').verdict, 'ok');
});

test('role ARNs: the name is the last path segment; anything else is a usage error', () => {
  assert.is(roleNameOfArn('arn:aws:iam::123456789012:role/deployer'), 'deployer');
  assert.is(roleNameOfArn('arn:aws:iam::123456789012:role/service/team/ci-runner'), 'ci-runner');
  for (const bad of ['deployer', 'arn:aws:iam::123456789012:user/bob', 'arn:aws:iam::12:role/x', 'arn:aws:iam::123456789012:role/']) {
    assert.throws(() => roleNameOfArn(bad), /not an IAM role ARN/, bad);
  }
});

test.run();
