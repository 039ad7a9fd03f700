/**
 * cloud_d's TC3-HMAC-SHA256 signature is the published one: it equals the official SDK's signer
 * (tencentcloud-sdk-nodejs-common, a dev dependency) for the same request, and the fake that verifies it
 * accepts the official SDK's own requests and refuses a wrong key or a stale timestamp as the API does.
 */
import { createRequire } from 'node:module';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tc3Authorization } from '../../../engine/core/kits/http/tc3-sign.js';
import { startCloudDFake } from '../../../emulator/fakes/cloud_d.js';

const require = createRequire(import.meta.url);
const Sign = (require('tencentcloud-sdk-nodejs-common/tencentcloud/common/sign.js') as { default: { sign3(o: Record<string, unknown>): string } }).default;
const { CommonClient } = require('tencentcloud-sdk-nodejs-common') as {
  CommonClient: new (endpoint: string, version: string, cfg: Record<string, unknown>) => { request(action: string, body: Record<string, unknown>): Promise<Record<string, unknown>> };
};

test('the Authorization header equals the official SDK signer for the same request (two bodies, two dates)', () => {
  for (const [body, timestamp] of [
    [{ Limit: 1, Filters: [{ Name: 'instance-name', Values: ['未命名'] }] }, 1551113065],
    [{ Offset: 100, Limit: 100 }, 1764028800],
  ] as const) {
    const official = Sign.sign3({
      method: 'POST',
      url: 'https://cvm.tencentcloudapi.com/',
      payload: body,
      timestamp,
      service: 'cvm',
      secretId: 'AKIDz8krbsJ5yKBZQpn74WFkmLPx3EXAMPLE',
      secretKey: 'Gu5t9xGARNpq86cd98joQYCN3EXAMPLE',
      headers: { 'Content-Type': 'application/json' },
    });
    const ours = tc3Authorization({ secretId: 'AKIDz8krbsJ5yKBZQpn74WFkmLPx3EXAMPLE', secretKey: 'Gu5t9xGARNpq86cd98joQYCN3EXAMPLE', service: 'cvm', host: 'cvm.tencentcloudapi.com', body: JSON.stringify(body), timestamp });
    assert.is(ours, official);
  }
});

function sdkClient(url: string, secretId: string, secretKey: string) {
  return new CommonClient('cvm.tencentcloudapi.com', '2017-03-12', {
    credential: { secretId, secretKey },
    region: 'ap-singapore',
    profile: { httpProfile: { endpoint: new URL(url).host, protocol: 'http://' } },
  });
}

test("the fake accepts the official SDK's signed requests and refuses a wrong key (AuthFailure.SignatureFailure)", async () => {
  const fake = await startCloudDFake();
  try {
    const r = await sdkClient(fake.url, fake.secretId, fake.secretKey).request('DescribeInstances', { Limit: 2 });
    assert.is(r.TotalCount, 3);
    assert.is((r.InstanceSet as unknown[]).length, 2);
    const err = await sdkClient(fake.url, fake.secretId, 'not-the-key').request('DescribeInstances', {}).then(
      () => undefined,
      (e: { code?: string }) => e,
    );
    assert.is(err?.code, 'AuthFailure.SignatureFailure');
  } finally {
    await fake.close();
  }
});

test('the fake refuses a request signed more than five minutes away from its clock (AuthFailure.SignatureExpire)', async () => {
  const fake = await startCloudDFake({ now: () => Math.floor(Date.now() / 1000) + 3600 });
  try {
    const err = await sdkClient(fake.url, fake.secretId, fake.secretKey).request('DescribeRegions', {}).then(
      () => undefined,
      (e: { code?: string }) => e,
    );
    assert.is(err?.code, 'AuthFailure.SignatureExpire');
  } finally {
    await fake.close();
  }
});

test.run();
