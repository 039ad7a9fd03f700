/**
 * A local stand-in for cloud_d, a Tencent-Cloud-style API (the wire format of its public reference):
 * `POST /` with `X-TC-Action`, `X-TC-Version`, `X-TC-Region`, `X-TC-Timestamp` and a TC3-HMAC-SHA256
 * `Authorization` that it verifies (wrong id: AuthFailure.SecretIdNotFound; wrong signature:
 * AuthFailure.SignatureFailure; a timestamp over five minutes off: AuthFailure.SignatureExpire).
 * Answers are `{"Response": {…, "RequestId"}}`, errors `{"Response": {"Error": {"Code", "Message"}}}`
 * with HTTP 200, as the real API does; rate limits as `RequestLimitExceeded` (plus a Retry-After header
 * the real API does not send, so tests need not wait). DescribeInstances pages by Offset/Limit
 * (Limit at most 100) with TotalCount, per region; DescribeRegions lists the regions.
 */
import { randomUUID } from 'node:crypto';
import { parseTc3Authorization, tc3Date, tc3Signature } from '../../engine/core/kits/http/tc3-sign.js';
import { filler, startFakeServer, type FakeHandle, type FakeRequest } from './fake-api-server.js';

export const CLOUD_D_FAKE_SECRET_ID = 'AKIDfake0123456789abcdefghijklmnopqr';
export const CLOUD_D_FAKE_SECRET_KEY = 'fakeSecretKey0123456789abcdefghijk';

function instance(id: string, name: string, zone: string, state: string, type: string, cpu: number, memory: number, ip: string) {
  return {
    Placement: { Zone: zone, ProjectId: 0 },
    InstanceId: id,
    InstanceType: type,
    CPU: cpu,
    Memory: memory,
    RestrictState: 'NORMAL',
    InstanceName: name,
    InstanceChargeType: 'POSTPAID_BY_HOUR',
    SystemDisk: { DiskType: 'CLOUD_PREMIUM', DiskId: `disk-${id.slice(4)}`, DiskSize: 50 },
    PrivateIpAddresses: [ip.replace(/^\d+\.\d+/, '10.0')],
    PublicIpAddresses: [ip],
    InternetAccessible: { InternetChargeType: 'TRAFFIC_POSTPAID_BY_HOUR', InternetMaxBandwidthOut: 10 },
    VirtualPrivateCloud: { VpcId: 'vpc-fake0001', SubnetId: 'subnet-fake0001' },
    ImageId: 'img-9qabwvbn',
    OsName: 'Ubuntu Server 22.04 LTS 64bit',
    CreatedTime: '2026-10-01T09:00:00Z',
    ExpiredTime: null,
    InstanceState: state,
    Tags: [],
    Uuid: randomUUID(),
    LatestOperation: 'StartInstances',
    LatestOperationState: 'SUCCESS',
  };
}

export const CLOUD_D_SEED: Record<string, ReturnType<typeof instance>[]> = {
  'ap-singapore': [
    instance('ins-sg000001', 'sg-web-1', 'ap-singapore-1', 'RUNNING', 'S5.MEDIUM4', 2, 4, '43.156.0.11'),
    instance('ins-sg000002', 'sg-web-2', 'ap-singapore-2', 'RUNNING', 'S5.MEDIUM4', 2, 4, '43.156.0.12'),
    instance('ins-sg000003', 'sg-batch', 'ap-singapore-1', 'STOPPED', 'S5.LARGE8', 4, 8, '43.156.0.13'),
  ],
  'ap-guangzhou': [instance('ins-gz000001', 'gz-api', 'ap-guangzhou-3', 'RUNNING', 'SA2.MEDIUM4', 2, 4, '119.29.0.21')],
  'eu-frankfurt': [],
};

const REGIONS = [
  { Region: 'ap-singapore', RegionName: 'Southeast Asia (Singapore)', RegionState: 'AVAILABLE' },
  { Region: 'ap-guangzhou', RegionName: 'South China (Guangzhou)', RegionState: 'AVAILABLE' },
  { Region: 'eu-frankfurt', RegionName: 'Europe (Frankfurt)', RegionState: 'AVAILABLE' },
];

export interface CloudDFakeOptions {
  secretId?: string;
  secretKey?: string;
  /** Most instances per page, whatever `Limit` asks (the API allows 100). */
  pageSize?: number;
  /** The fake's clock (seconds since the epoch), to test an expired signature. */
  now?: () => number;
}

export interface CloudDFake extends FakeHandle {
  secretId: string;
  secretKey: string;
}

const header = (req: FakeRequest, name: string) => {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
};

const error = (code: string, message: string) => ({ status: 200, body: { Response: { Error: { Code: code, Message: message }, RequestId: randomUUID() } } });

export async function startCloudDFake(opts: CloudDFakeOptions = {}): Promise<CloudDFake> {
  const secretId = opts.secretId ?? CLOUD_D_FAKE_SECRET_ID;
  const secretKey = opts.secretKey ?? CLOUD_D_FAKE_SECRET_KEY;
  const now = opts.now ?? (() => Math.floor(Date.now() / 1000));
  /** Why a request is refused, checked like the real API (the most specific first). */
  const authProblem = (req: FakeRequest): ReturnType<typeof error> | undefined => {
    const auth = parseTc3Authorization(header(req, 'authorization') ?? '');
    if (!auth) return error('AuthFailure.InvalidAuthorization', 'Authorization in the request header is invalid.');
    if (auth.secretId !== secretId) return error('AuthFailure.SecretIdNotFound', 'The SecretId is not found, please ensure that your SecretId is correct.');
    const timestamp = Number(header(req, 'x-tc-timestamp'));
    if (!Number.isInteger(timestamp) || Math.abs(now() - timestamp) > 300) return error('AuthFailure.SignatureExpire', 'Signature expired. Timestamp and server time cannot differ by more than five minutes.');
    const host = (header(req, 'host') ?? '').replace(/:\d+$/, '');
    const expected = tc3Signature({ secretKey, service: auth.service, host, body: req.body, timestamp, contentType: header(req, 'content-type') });
    if (auth.signedHeaders !== 'content-type;host' || auth.date !== tc3Date(timestamp) || auth.signature !== expected) {
      return error('AuthFailure.SignatureFailure', 'The provided credentials could not be validated. Please check your signature is correct.');
    }
    return undefined;
  };
  const handle = await startFakeServer({
    authorized: (req) => authProblem(req) === undefined,
    unauthorized: (req) => authProblem(req)!,
    rateLimited: () => error('RequestLimitExceeded', 'Your current request times equals to `20` in a second, which exceeds the frequency limit `20` for a second.'),
    route(req, state) {
      if (req.method !== 'POST' || new URL(req.path, state.origin).pathname !== '/') return { status: 404, body: { Response: { Error: { Code: 'InvalidAction', Message: 'only POST /' }, RequestId: randomUUID() } } };
      const action = header(req, 'x-tc-action') ?? '';
      const region = header(req, 'x-tc-region') ?? '';
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(req.body || '{}') as Record<string, unknown>;
      } catch {
        return error('InvalidParameter', 'the request body is not JSON');
      }
      const requestId = randomUUID();
      if (action === 'DescribeRegions') return { status: 200, body: { Response: { TotalCount: REGIONS.length, RegionSet: REGIONS, RequestId: requestId } } };
      if (action !== 'DescribeInstances') return error('InvalidAction', `The action ${action} is not supported by this fake (it only reads).`);
      if (!Object.hasOwn(CLOUD_D_SEED, region)) return error('UnsupportedRegion', `The region ${region || '(none)'} is not supported.`);
      const all = CLOUD_D_SEED[region]!;
      const offset = typeof body.Offset === 'number' ? body.Offset : 0;
      const limit = Math.max(1, Math.min(typeof body.Limit === 'number' ? body.Limit : 20, 100, opts.pageSize ?? 100));
      let items: unknown[] = all.slice(offset, offset + limit);
      let total = all.length;
      if (state.hostile.endlessNext) {
        total = 1_000_000;
        items = [instance(`ins-e${String(offset).padStart(7, '0')}`, `endless-${offset}`, `${region}-1`, 'RUNNING', 'S5.SMALL1', 1, 1, '198.18.0.1')];
      }
      if (state.hostile.hugePageBytes) items = [...items, ...filler(state.hostile.hugePageBytes, (i, pad) => ({ InstanceId: `ins-f${i}`, InstanceName: `filler-${i}-${pad}`, InstanceState: 'RUNNING' }))];
      return { status: 200, body: { Response: { TotalCount: total, InstanceSet: items, RequestId: requestId } } };
    },
  });
  return Object.assign(handle, { secretId, secretKey });
}
