#!/usr/bin/env node
// Refreshes a CLI cloud's price table from the cloud's price API, when your credentials allow (run after
// `npm run build`; never part of a plan):
//
//   node scripts/refresh-prices.mjs cloud_a [--region us-east-1]… [--out FILE|-]   # aws pricing get-products (your aws CLI and credentials)
//   node scripts/refresh-prices.mjs cloud_b [--region us-central1]… [--endpoint URL] # Cloud Billing Catalog API (gcloud auth print-access-token)
//   node scripts/refresh-prices.mjs cloud_c [--region eastus]… [--endpoint URL]      # Azure Retail Prices API (no sign-in)
//
// It asks for the types the table already has, in the regions named (default: the table's), and
// rewrites engine/providers/<cloud>/price-table.ts (or FILE; `-` prints it) with today's date and the
// API as its source. Types the API gave no price for are left out and listed (they become unpriced).
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { priceTableSource, refreshedTable, tableTypes } from '../dist/engine/core/kits/cli/price-refresh.js';

const run = promisify(execFile);
const MAX_PAGES = 500;

function usage(message) {
  process.stderr.write(`error: usage: ${message}\nhint: node scripts/refresh-prices.mjs cloud_a|cloud_b|cloud_c [--region R]… [--endpoint URL] [--out FILE|-]\n`);
  process.exit(2);
}

function parseArgs(argv) {
  const [cloud, ...rest] = argv;
  if (!['cloud_a', 'cloud_b', 'cloud_c'].includes(cloud)) usage(`unknown cloud ${JSON.stringify(cloud ?? '')}`);
  const opts = { cloud, regions: [], endpoint: undefined, out: undefined };
  for (let i = 0; i < rest.length; i++) {
    const [flag, inline] = rest[i].split(/=(.*)/s);
    const value = () => inline ?? rest[++i] ?? usage(`${flag} needs a value`);
    if (flag === '--region') opts.regions.push(value());
    else if (flag === '--endpoint') opts.endpoint = value();
    else if (flag === '--out') opts.out = value();
    else usage(`unknown option ${flag}`);
  }
  return opts;
}

/** A price API is reached over TLS; plain HTTP only on this machine (a stand-in). */
function checkEndpoint(url) {
  const u = new URL(url);
  if (u.protocol !== 'https:' && !(u.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname))) usage(`--endpoint ${url}: https only (plain http on loopback)`);
  return u;
}

async function getJson(url, headers = {}) {
  const res = await fetch(url, { headers, redirect: 'error', signal: AbortSignal.timeout(60_000) });
  if (!res.ok) throw new Error(`${new URL(url).origin}: HTTP ${res.status} ${(await res.text()).slice(0, 200)}`);
  return res.json();
}

/** Follows a next-page link only on the origin of the first page (a page cannot send the token elsewhere). */
function samePlace(origin, next) {
  const u = new URL(next, origin);
  if (u.origin !== new URL(origin).origin) throw new Error(`the next page is on another origin (${u.origin}); stopped`);
  return u.toString();
}

async function freshCloudA(regions) {
  const { ec2PricesFromProducts, ec2ProductsArgs } = await import('../dist/engine/providers/cloud_a/price-refresh.js');
  const fresh = {};
  for (const region of regions) {
    const { stdout } = await run('aws', ec2ProductsArgs(region), { maxBuffer: 512 * 1024 * 1024, env: { ...process.env, AWS_PAGER: '' } });
    fresh[region] = ec2PricesFromProducts(JSON.parse(stdout).PriceList ?? []);
  }
  return fresh;
}

async function freshCloudB(regions, endpoint, service) {
  const { gcePricesFromUnits, gceUnitPrices } = await import('../dist/engine/providers/cloud_b/price-refresh.js');
  const { stdout } = await run('gcloud', ['auth', 'print-access-token'], { env: process.env });
  const token = stdout.trim();
  if (!token) throw new Error('gcloud printed no access token (gcloud auth login)');
  const units = Object.fromEntries(regions.map((r) => [r, new Map()]));
  let url = `${endpoint.replace(/\/$/, '')}/v1/services/${service}/skus?currencyCode=USD&pageSize=5000`;
  for (let page = 0; url && page < MAX_PAGES; page++) {
    const data = await getJson(url, { authorization: `Bearer ${token}` });
    for (const region of regions) gceUnitPrices(data.skus ?? [], region, units[region]);
    url = data.nextPageToken ? samePlace(endpoint, `/v1/services/${service}/skus?currencyCode=USD&pageSize=5000&pageToken=${encodeURIComponent(data.nextPageToken)}`) : undefined;
  }
  return Object.fromEntries(regions.map((r) => [r, gcePricesFromUnits(units[r])]));
}

async function freshCloudC(regions, endpoint) {
  const { azurePricesFromItems, azurePricesUrl } = await import('../dist/engine/providers/cloud_c/price-refresh.js');
  const fresh = {};
  for (const region of regions) {
    fresh[region] = {};
    let url = azurePricesUrl(endpoint, region);
    for (let page = 0; url && page < MAX_PAGES; page++) {
      const data = await getJson(url);
      azurePricesFromItems(data.Items ?? [], fresh[region]);
      url = data.NextPageLink ? samePlace(endpoint, data.NextPageLink) : undefined;
    }
  }
  return fresh;
}

const opts = parseArgs(process.argv.slice(2));
const folder = { cloud_a: 'cloud_a', cloud_b: 'cloud_b', cloud_c: 'cloud_c' }[opts.cloud];
const tableModule = await import(`../dist/engine/providers/${folder}/price-table.js`);
const refresh = await import(`../dist/engine/providers/${folder}/price-refresh.js`);
const meta = refresh.EC2_REFRESH ?? refresh.GCE_REFRESH ?? refresh.AZURE_REFRESH;
const old = tableModule[meta.exportName];
const regions = opts.regions.length ? opts.regions : Object.keys(old.regions);
const endpoint = checkEndpoint(opts.endpoint ?? meta.endpoint ?? 'https://localhost').toString();
try {
  const fresh = opts.cloud === 'cloud_a' ? await freshCloudA(regions) : opts.cloud === 'cloud_b' ? await freshCloudB(regions, endpoint, meta.service) : await freshCloudC(regions, endpoint);
  const { table, missing } = refreshedTable(old, fresh, tableTypes(old), { date: new Date().toISOString().slice(0, 10), source: meta.source });
  const source = priceTableSource({ exportName: meta.exportName, table, describe: meta.describe, command: meta.command });
  const out = opts.out ?? fileURLToPath(new URL(`../engine/providers/${folder}/price-table.ts`, import.meta.url));
  if (out === '-') process.stdout.write(source);
  else writeFileSync(out, source);
  const priced = Object.values(table.regions).reduce((n, r) => n + Object.keys(r).length, 0);
  process.stderr.write(`${opts.cloud}: ${priced} prices in ${Object.keys(table.regions).join(', ')} (${table.date})${out === '-' ? '' : ` written to ${out}`}\n`);
  if (missing.length) process.stderr.write(`warning: no price from the API for ${missing.join('; ')}: left out (unpriced under a budget)\n`);
} catch (err) {
  const text = String(err?.stderr || err?.message || err).split('\n').filter(Boolean).slice(-1)[0];
  process.stderr.write(`error: refresh_failed: ${text}\nhint: check your credentials for the price API, or name other regions with --region\n`);
  process.exit(1);
}
