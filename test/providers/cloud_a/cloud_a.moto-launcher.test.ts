/**
 * The moto the cloud_a tests run (test/support/moto-server.py: moto without the work it repeats at every
 * reset) answers as moto_server as installed: the same sequence of requests (a user and an access key
 * that requests are then signed with, an AWS managed policy attached, an instance, an S3 object; a
 * reset; the same reads again) gives the same answers from both, and a reset leaves nothing behind in
 * either (no user, no attachment counted on the managed policy, no instance, no bucket; the default
 * images still there). Without moto_server on PATH each test prints one SKIP line and passes.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { motoMissing, startMoto, type RunningMoto } from '../../support/moto.js';
import { reportSkip } from '../../support/skip.js';

const VERSIONS: Record<string, string> = { iam: '2010-05-08', sts: '2011-06-15', ec2: '2016-11-15' };
const ADMIN = 'arn:aws:iam::aws:policy/AdministratorAccess';

/** A query-API call signed (moto reads only the credential scope) with `key`; the response body. */
async function call(m: RunningMoto, service: string, form: Record<string, string>, key = 'testing'): Promise<string> {
  const res = await fetch(`${m.url}/`, {
    method: 'POST',
    headers: { authorization: `AWS4-HMAC-SHA256 Credential=${key}/20260101/us-east-1/${service}/aws4_request, SignedHeaders=host, Signature=0`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ Version: VERSIONS[service]!, ...form }).toString(),
  });
  return `${res.status} ${await res.text()}`;
}

async function s3(m: RunningMoto, method: string, path: string, body?: string): Promise<string> {
  const res = await fetch(`${m.url}${path}`, { method, body, headers: { authorization: 'AWS4-HMAC-SHA256 Credential=testing/20260101/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=0' } });
  return `${res.status} ${await res.text()}`;
}

const all = (xml: string, tag: string) => [...xml.matchAll(new RegExp(`<${tag}>([^<]*)</${tag}>`, 'g'))].map((x) => x[1]!);
const status = (answer: string) => answer.slice(0, 3);

/** The sequence, and what each answer says (request ids, dates and generated ids left out). */
async function observe(m: RunningMoto): Promise<Record<string, unknown>> {
  const seen: Record<string, unknown> = {};
  seen.createUser = status(await call(m, 'iam', { Action: 'CreateUser', UserName: 'alice' }));
  const key = all(await call(m, 'iam', { Action: 'CreateAccessKey', UserName: 'alice' }), 'AccessKeyId')[0]!;
  seen.callerWithKey = all(await call(m, 'sts', { Action: 'GetCallerIdentity' }, key), 'Arn');
  seen.attach = status(await call(m, 'iam', { Action: 'AttachUserPolicy', UserName: 'alice', PolicyArn: ADMIN }));
  seen.adminAttachments = all(await call(m, 'iam', { Action: 'GetPolicy', PolicyArn: ADMIN }), 'AttachmentCount');
  seen.run = status(await call(m, 'ec2', { Action: 'RunInstances', ImageId: 'ami-12c6146b', InstanceType: 't2.micro', MinCount: '1', MaxCount: '1' }));
  seen.instances = new Set(all(await call(m, 'ec2', { Action: 'DescribeInstances' }), 'instanceId')).size;
  seen.bucket = status(await s3(m, 'PUT', '/launcher-bucket'));
  seen.object = status(await s3(m, 'PUT', '/launcher-bucket/k', 'v'));
  await m.reset();
  seen.usersAfter = all(await call(m, 'iam', { Action: 'ListUsers' }), 'UserName');
  seen.adminAttachmentsAfter = all(await call(m, 'iam', { Action: 'GetPolicy', PolicyArn: ADMIN }), 'AttachmentCount');
  seen.callerWithKeyAfter = all(await call(m, 'sts', { Action: 'GetCallerIdentity' }, key), 'Arn');
  seen.instancesAfter = new Set(all(await call(m, 'ec2', { Action: 'DescribeInstances' }), 'instanceId')).size;
  seen.imageAfter = all(await call(m, 'ec2', { Action: 'DescribeImages', 'ImageId.1': 'ami-12c6146b' }), 'imageId');
  seen.bucketsAfter = all(await s3(m, 'GET', '/'), 'Name');
  return seen;
}

test('the same requests, a reset between, get the same answers from the launcher and from plain moto_server; the reset leaves nothing behind', async () => {
  const why = motoMissing();
  if (why) return reportSkip('moto launcher', why);
  const [fast, plain] = await Promise.all([startMoto({ warm: false }), startMoto({ warm: false, plain: true })]);
  try {
    const [a, b] = await Promise.all([observe(fast), observe(plain)]);
    assert.equal(a, b);
    assert.equal(a.callerWithKey, ['arn:aws:iam::123456789012:user/alice'], 'a request signed with the new key is alice');
    assert.equal(a.adminAttachments, ['1']);
    assert.is(a.instances, 1);
    assert.equal([a.usersAfter, a.adminAttachmentsAfter, a.instancesAfter, a.bucketsAfter], [[], ['0'], 0, []], 'nothing survives the reset');
    assert.equal(a.imageAfter, ['ami-12c6146b'], 'the default images are there again');
  } finally {
    await Promise.all([fast.stop(), plain.stop()]);
  }
});

test.run();
