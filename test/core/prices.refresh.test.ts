/**
 * `node scripts/refresh-prices.mjs` (issue 35 §2): a CLI cloud's price table refreshed from the cloud's
 * price API, run as the script it is (a child) against recording stand-ins: an AWS Price List API that
 * the real aws CLI talks to (AWS_ENDPOINT_URL, two pages), the Azure Retail Prices API (pages on its own
 * origin only), and the Cloud Billing Catalog with gcloud's token (a stand-in gcloud prints it). The
 * table written says its date and source, keeps the other regions, and leaves out what the API did not
 * price (never an old price under a new date).
 */
import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { onPath } from '../support/net.js';
import { reportSkip } from '../support/skip.js';
import { standIn } from '../support/standin.js';
import { tempDir } from '../support/temp.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const TODAY = new Date().toISOString().slice(0, 10);

interface Recorded {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A loopback HTTP server that records every request and answers with `answer(request)`. */
async function recordingServer(answer: (r: Recorded, origin: string) => { status?: number; body: unknown }): Promise<{ origin: string; requests: Recorded[]; close(): Promise<void> }> {
  const requests: Recorded[] = [];
  let origin = '';
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (d: string) => (body += d));
    req.on('end', () => {
      const r = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
      requests.push(r);
      const a = answer(r, origin);
      res.writeHead(a.status ?? 200, { 'content-type': 'application/json' }).end(JSON.stringify(a.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  origin = `http://127.0.0.1:${address.port}`;
  return { origin, requests, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** The script as a child (asynchronously: the stand-in servers answer from this process). */
function refresh(args: string[], env: Record<string, string | undefined> = {}): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const merged: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...process.env, ...env })) if (v !== undefined) merged[k] = v;
  const child = spawn(process.execPath, [join(ROOT, 'scripts', 'refresh-prices.mjs'), ...args], { env: merged, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), 180_000);
  return new Promise((resolve) => child.on('close', (status) => (clearTimeout(timer), resolve({ status, stdout, stderr }))));
}

/** The prices of one region in a written table (the generated source is one `'type': price,` per line). */
function regionPrices(source: string, region: string): Record<string, number> {
  const block = new RegExp(`\\n {4}'?${region.replace(/-/g, '\\-')}'?: \\{\\n([\\s\\S]*?)\\n {4}\\},`).exec(source);
  assert.ok(block, `the table has ${region}`);
  return Object.fromEntries([...block![1]!.matchAll(/^\s+'?([^':]+)'?: ([\d.e-]+),$/gm)].map((m) => [m[1]!, Number(m[2])]));
}

const ec2Product = (type: string, usd: string) =>
  JSON.stringify({ product: { attributes: { instanceType: type } }, terms: { OnDemand: { 'X.Y': { priceDimensions: { 'X.Y.Z': { unit: 'Hrs', pricePerUnit: { USD: usd } } } } } } });

test('cloud_a: the real aws CLI asks the Price List API (all pages) for a region; the table gets that region, keeps us-east-1, and leaves out what was not priced', async () => {
  if (!onPath('aws')) return reportSkip('cloud_a refresh', 'aws not on PATH');
  const api = await recordingServer((r) => {
    const body = JSON.parse(r.body || '{}') as { NextToken?: string };
    return body.NextToken
      ? { body: { FormatVersion: 'aws_v1', PriceList: [ec2Product('p4d.24xlarge', '40.9657')] } }
      : { body: { FormatVersion: 'aws_v1', PriceList: [ec2Product('t3.micro', '0.0118'), ec2Product('t3.micro', '0.0110'), JSON.stringify({ product: { attributes: {} } })], NextToken: 'page-2' } };
  });
  try {
    const out = join(tempDir('refresh-a-'), 'price-table.ts');
    const r = await refresh(['cloud_a', '--region', 'eu-west-1', '--out', out], {
      AWS_ENDPOINT_URL: api.origin,
      AWS_ACCESS_KEY_ID: 'testing',
      AWS_SECRET_ACCESS_KEY: 'testing',
      AWS_CONFIG_FILE: '/dev/null',
      AWS_SHARED_CREDENTIALS_FILE: '/dev/null',
      AWS_PROFILE: undefined,
      AWS_EC2_METADATA_DISABLED: 'true',
    });
    assert.is(r.status, 0, r.stderr);
    assert.is(api.requests.length, 2, 'two pages');
    assert.ok(api.requests.every((q) => q.headers['x-amz-target'] === 'AWSPriceListService.GetProducts'));
    const filters = (JSON.parse(api.requests[0]!.body) as { ServiceCode: string; Filters: { Field: string; Value: string }[] });
    assert.is(filters.ServiceCode, 'AmazonEC2');
    assert.equal(Object.fromEntries(filters.Filters.map((f) => [f.Field, f.Value])), { regionCode: 'eu-west-1', operatingSystem: 'Linux', tenancy: 'Shared', preInstalledSw: 'NA', capacitystatus: 'Used', licenseModel: 'No License required' });
    const source = readFileSync(out, 'utf8');
    assert.equal(regionPrices(source, 'eu-west-1'), { 't3.micro': 0.0118, 'p4d.24xlarge': 40.9657 }, 'the higher of two prices; the other types left out');
    assert.is(regionPrices(source, 'us-east-1')['p4d.24xlarge'], 32.7726, 'the other region is kept');
    assert.match(source, new RegExp(`date: "${TODAY}"`));
    assert.match(source, /source: "AWS Price List API/);
    assert.match(r.stderr, /warning: no price from the API for eu-west-1: m1\.small; /);
  } finally {
    await api.close();
  }
});

test('cloud_c: the Azure Retail Prices API page by page (Linux pay-as-you-go only); a next page on another origin stops the refresh', async () => {
  const item = (armSkuName: string, retailPrice: number, extra: Record<string, string> = {}) => ({ armSkuName, retailPrice, type: 'Consumption', unitOfMeasure: '1 Hour', productName: 'Virtual Machines DSv3 Series', skuName: 'D2s v3', ...extra });
  let evil = false;
  const api = await recordingServer((r, origin) => {
    const url = new URL(r.url, origin);
    if (url.searchParams.get('page') === '2') return { body: { Items: [item('Standard_NC24ads_A100_v4', 3.8)], NextPageLink: null } };
    return {
      body: {
        Items: [item('Standard_D2s_v3', 0.11), item('Standard_D2s_v3', 0.2, { productName: 'Virtual Machines DSv3 Series Windows' }), item('Standard_D2s_v3', 0.02, { skuName: 'D2s v3 Spot' }), item('Standard_D2s_v3', 0.09, { type: 'Reservation' })],
        NextPageLink: evil ? 'https://attacker.example/api/retail/prices?page=2' : `${origin}/api/retail/prices?page=2`,
      },
    };
  });
  try {
    const out = join(tempDir('refresh-c-'), 'price-table.ts');
    const r = await refresh(['cloud_c', '--region=westeurope', '--endpoint', api.origin, '--out', out]);
    assert.is(r.status, 0, r.stderr);
    assert.match(decodeURIComponent(api.requests[0]!.url), /\$filter=serviceName eq 'Virtual Machines' and armRegionName eq 'westeurope' and priceType eq 'Consumption'/);
    const prices = regionPrices(readFileSync(out, 'utf8'), 'westeurope');
    assert.equal(prices, { Standard_D2s_v3: 0.11, Standard_NC24ads_A100_v4: 3.8 });
    evil = true;
    const stopped = await refresh(['cloud_c', '--region', 'westeurope', '--endpoint', api.origin, '--out', join(tempDir('refresh-c2-'), 't.ts')]);
    assert.is(stopped.status, 1, stopped.stderr);
    assert.match(stopped.stderr, /^error: refresh_failed: the next page is on another origin \(https:\/\/attacker\.example\); stopped$/m);
    const plain = await refresh(['cloud_c', '--endpoint', 'http://prices.example.com', '--out', '-']);
    assert.is(plain.status, 2, plain.stderr);
    assert.match(plain.stderr, /https only/);
  } finally {
    await api.close();
  }
});

test("cloud_b: the Cloud Billing Catalog with gcloud's token (two pages); a machine type is its cores and memory (and GPUs) at the region's on-demand unit prices", async () => {
  const gcloud = standIn('gcloud', [{ match: 'auth print-access-token', stdout: 'ya29.test-token' }]);
  const sku = (description: string, usd: number, regions = ['us-central1', 'us-east1'], usageType = 'OnDemand') => ({
    description,
    serviceRegions: regions,
    category: { usageType },
    pricingInfo: [{ pricingExpression: { tieredRates: [{ unitPrice: { units: String(Math.floor(usd)), nanos: Math.round((usd % 1) * 1e9) } }] } }],
  });
  const api = await recordingServer((r, origin) => {
    if (r.headers.authorization !== 'Bearer ya29.test-token') return { status: 401, body: { error: 'no token' } };
    const page = new URL(r.url, origin).searchParams.get('pageToken');
    if (page === 'p2') return { body: { skus: [sku('E2 Instance Ram running in Americas', 0.002923), sku('Nvidia Tesla T4 GPU running in Americas', 0.35)] } };
    return { body: { skus: [sku('E2 Instance Core running in Americas', 0.021811), sku('Spot Preemptible E2 Instance Core running in Americas', 0.006543), sku('E2 Instance Core running in Europe', 0.5, ['europe-west1']), sku('E2 Instance Core running in Americas', 0.01, ['us-central1'], 'Commit1Yr')], nextPageToken: 'p2' } };
  });
  try {
    const out = join(tempDir('refresh-b-'), 'price-table.ts');
    const r = await refresh(['cloud_b', '--endpoint', api.origin, '--out', out], { PATH: gcloud.path });
    assert.is(r.status, 0, r.stderr);
    assert.equal(gcloud.calls(), [['auth', 'print-access-token']]);
    assert.is(api.requests.length, 2);
    assert.match(api.requests[0]!.url, /^\/v1\/services\/6F81-5844-456A\/skus\?currencyCode=USD/);
    const prices = regionPrices(readFileSync(out, 'utf8'), 'us-central1');
    assert.ok(Math.abs(prices['e2-medium']! - 0.033503) < 1e-9, JSON.stringify(prices));
    assert.ok(Math.abs(prices['e2-micro']! - (0.25 * 0.021811 + 1 * 0.002923)) < 1e-6);
    assert.is(prices['accelerator/nvidia-tesla-t4'], 0.35);
    assert.not.ok('n1-standard-1' in prices, 'no N1 SKUs: left out, not kept at an old price');
    assert.match(r.stderr, /warning: no price from the API for .*us-central1: n1-standard-1/);
    assert.not.match(r.stderr + r.stdout, /ya29/, 'the token is never printed');
  } finally {
    await api.close();
  }
});

test.run();
