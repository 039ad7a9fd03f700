/**
 * The console with a full history (issue 41): 10,000 runs reported to one tenant through the HTTP API
 * (PUT /v1/runs/<env>/<id>, each insert with its retention in one transaction, as clients send them),
 * then the console's list page (/ui/runs, signed in) requested again and again; the server's own time
 * for each page is read from its Server-Timing header (the handler, from routing to the last byte
 * rendered), so the load of this shared machine on the client side does not count. Target: median
 * under 200 ms. The drift page's server time over the same history is printed too (no target). PGlite and, when installed, PostgreSQL. BENCH_CONSOLE_RUNS=<n> changes the 10,000.
 */
import { loadavg } from 'node:os';
import { backendApiKey, median, percentile, rows, startBackend, startBenchPostgres, whyNoPostgres, type BenchBackend } from './fixtures.js';

const RUNS = Number(process.env.BENCH_CONSOLE_RUNS) > 0 ? Number(process.env.BENCH_CONSOLE_RUNS) : 10_000;
const PAGE_REQUESTS = 30;
const DRIFT_REQUESTS = 10;
const SENDERS = 4;
const TARGET_MS = 200;
const DAY = 86_400_000;

/** A run as a client reports it: one create step with its canonical request, the resource and its price. */
function record(n: number, now: number): Record<string, unknown> {
  const started = new Date(now - ((RUNS - n) / RUNS) * 60 * DAY);
  const dry = n % 3 === 0;
  const hostname = `bench-${n % 200}`;
  const body = { instance_type: '1V100.6V', image: 'ubuntu-24.04', hostname, location_code: 'FIN-01' };
  return {
    kind: dry ? 'dry_run' : 'apply',
    status: dry ? 'previewed' : n % 17 === 0 ? 'failed' : 'succeeded',
    exit_code: n % 17 === 0 && !dry ? 1 : 0,
    started_at: started.toISOString(),
    finished_at: new Date(started.getTime() + 4000).toISOString(),
    plan_hash: (n % 200).toString(16).padStart(64, '0'),
    summary: `training box ${n % 200}`,
    providers: [n % 5 === 0 ? 'cloud_a' : 'gpucloud'],
    hourly_change: 0.39 + (n % 7) / 100,
    currency: 'usd',
    steps: [{ index: 0, reason: 'the training box', request: `gpucloud-api POST /v1/instances ${JSON.stringify(body)}`, canonical: { method: 'POST', path: '/v1/instances', query: [], body }, effect: 'create', status: 'succeeded', http_status: 202 }],
    resources: dry ? [] : [{ provider: 'gpucloud', effect: 'create', kind: 'instance', name: hostname, id: `inst-${n}` }],
    plan: { version: 1, provider: 'gpucloud', summary: `training box ${n % 200}`, commands: [{ args: ['gpucloud-api', 'POST', '/v1/instances', JSON.stringify(body)], reason: 'the training box' }] },
  };
}

/** Reports `RUNS` runs with `SENDERS` concurrent clients; the wall time and each PUT's latency, in the order sent (retention's cost shows as growth). */
async function fill(b: BenchBackend, key: string): Promise<{ wall: number; lat: number[] }> {
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const now = Date.now();
  const lat: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: SENDERS }, async () => {
      for (let n = next++; n < RUNS; n = next++) {
        const t = performance.now();
        const r = await fetch(`${b.url}/v1/runs/production/run_bench_${String(n).padStart(6, '0')}`, { method: 'PUT', headers, body: JSON.stringify(record(n, now)) });
        await r.arrayBuffer();
        if (r.status !== 201) throw new Error(`PUT run ${n}: ${r.status}`);
        lat.push(performance.now() - t);
      }
    }),
  );
  return { wall: performance.now() - started, lat };
}

async function signIn(b: BenchBackend, key: string): Promise<string> {
  const r = await fetch(`${b.url}/ui/sign-in`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ key }) });
  const cookie = (r.headers.get('set-cookie') ?? '').split(';')[0];
  if (r.status !== 303 || !cookie) throw new Error(`console sign-in: ${r.status}`);
  return cookie;
}

/** A console page `requests` times, one after another: the server's time per page (Server-Timing) and the client's. */
async function timePage(b: BenchBackend, cookie: string, path: string, requests: number): Promise<{ server: number[]; client: number[]; page: string }> {
  const server: number[] = [];
  const client: number[] = [];
  let page = '';
  for (let i = 0; i < requests + 3; i++) {
    const t = performance.now();
    const r = await fetch(`${b.url}${path}`, { headers: { cookie } });
    page = await r.text();
    const took = performance.now() - t;
    if (r.status !== 200) throw new Error(`GET ${path}: ${r.status}`);
    const dur = /dur=([\d.]+)/.exec(r.headers.get('server-timing') ?? '');
    if (!dur) throw new Error('the console sent no Server-Timing header');
    if (i < 3) continue; // warm-up: the first queries' plans, the pool's connections
    server.push(Number(dur[1]));
    client.push(took);
  }
  return { server, client, page };
}

async function onStorage(label: string, database?: string): Promise<number> {
  const b = await startBackend(database);
  try {
    const key = backendApiKey(b, 'bench-console');
    const filled = await fill(b, key);
    console.log(
      `  ${label}: ${RUNS} runs reported in ${(filled.wall / 1000).toFixed(1)} s (${((RUNS / filled.wall) * 1000).toFixed(0)} runs/s, ${SENDERS} clients; ` +
        `PUT p50 ${percentile(filled.lat, 0.5).toFixed(1)} ms, p95 ${percentile(filled.lat, 0.95).toFixed(1)} ms; p50 of the first 1,000 ${median(filled.lat.slice(0, 1000)).toFixed(1)} ms, of the last 1,000 ${median(filled.lat.slice(-1000)).toFixed(1)} ms)`,
    );
    const cookie = await signIn(b, key);
    const page = await timePage(b, cookie, '/ui/runs?env=production', PAGE_REQUESTS);
    const server = [...page.server].sort((a, z) => a - z);
    const rowsShown = page.page.match(/href="\/ui\/runs\/run_/g)?.length ?? 0;
    console.log(
      `  ${label}: /ui/runs (${rowsShown} rows of ${RUNS}, charts over all of them), server time median ${median(server).toFixed(1)} ms, ` +
        `p95 ${percentile(server, 0.95).toFixed(1)} ms; client median ${median(page.client).toFixed(1)} ms (${PAGE_REQUESTS} requests; load average ${loadavg()[0]!.toFixed(1)})`,
    );
    // The drift page over the same history (200 plans): the newest applied run per plan, the cap's plans
    // validated and compared. No credentials are stored, so no cloud is read: the server's own share.
    const drift = await timePage(b, cookie, '/ui/drift?env=production', DRIFT_REQUESTS);
    const plansShown = drift.page.match(/<section class="plan"/g)?.length ?? 0;
    console.log(`  ${label}: /ui/drift (${plansShown} plans of 200 compared, none with credentials), server time median ${median(drift.server).toFixed(1)} ms, p95 ${percentile(drift.server, 0.95).toFixed(1)} ms (${DRIFT_REQUESTS} requests)`);
    return median(server);
  } finally {
    await b.stop();
  }
}

export async function runConsoleRunsBench(): Promise<void> {
  console.log(`console with a full history (issue 41): ${RUNS} runs, then the list page`);
  const results: Array<[string, number]> = [['PGlite', await onStorage('PGlite')]];
  const missing = whyNoPostgres();
  if (missing) console.log(`  PostgreSQL: skipped (${missing})`);
  else {
    const pg = await startBenchPostgres();
    try {
      results.push([`PostgreSQL ${pg.version}`, await onStorage(`PostgreSQL ${pg.version}`, pg.createDatabase('console_bench'))]);
    } finally {
      await pg.stop();
    }
  }
  for (const [label, ms] of results) {
    rows.push({ measure: `console list page with ${RUNS} runs, server time median (${label})`, values: { now: `${ms.toFixed(1)} ms` }, target: `< ${TARGET_MS} ms`, met: ms < TARGET_MS });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await runConsoleRunsBench();
