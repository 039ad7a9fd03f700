/**
 * Which plans the console's drift page compares (backend/runs.ts appliedPlans), on PGlite and on a real
 * PostgreSQL (SKIP when the package is missing): per plan hash its newest run that reached the cloud;
 * a plan only dry-run or refused is not listed, a later refusal does not hide an earlier apply, another
 * env's runs stay in their env, and the cap keeps the newest. Runs are reported through the runs API, as
 * the CLI reports them; no credentials are stored, so nothing reaches a cloud (each plan can't tell).
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createApiKey, startBackendProcess, type BackendProcess } from '../support/backend.js';
import { postgresMissing, startPostgres, type RunningPostgres } from '../support/postgres.js';

const planOf = (hostname: string) => ({
  version: 1,
  provider: 'gpucloud',
  commands: [{ args: ['gpucloud-api', 'POST', '/v1/instances', JSON.stringify({ instance_type: '1V100.6V', image: 'ubuntu-24.04-cuda-12.8-open-docker', hostname, description: '', location_code: 'FIN-01', ssh_key_ids: ['<DEFAULT_SSH_KEY_ID>'] })], reason: 'a box' }],
});

interface Ctx {
  pg?: RunningPostgres;
  b: BackendProcess;
  key: string;
}

type Kind = 'apply' | 'dry_run';

function storageSuite(label: 'pglite' | 'postgres') {
  const s = suite<Ctx>(`drift plans on ${label}`);
  const skip = label === 'postgres' ? postgresMissing() : undefined;
  /** Seconds after a start an hour ago: the order of the runs, whatever the machine's speed. */
  const start = Date.now() - 3_600_000;
  const at = (n: number) => new Date(start + n * 1000).toISOString();
  let t = 0;
  const put = async (c: Ctx, env: string, hostname: string, kind: Kind, status: string): Promise<string> => {
    const id = `run_${randomBytes(8).toString('hex')}`;
    const when = at(++t);
    // The hash the CLI gives a plan: here one per hostname (the same plan every time it is reported).
    const record = { kind, status, exit_code: status === 'succeeded' || status === 'previewed' ? 0 : status === 'refused' ? 3 : 1, started_at: when, finished_at: when, plan_hash: `hash-${hostname}`, summary: `plan ${hostname}`, providers: ['gpucloud'], steps: [], resources: [], plan: planOf(hostname) };
    const res = await fetch(`${c.b.url}/v1/runs/${env}/${id}`, { method: 'PUT', headers: { authorization: `Bearer ${c.key}`, 'content-type': 'application/json' }, body: JSON.stringify(record) });
    assert.is(res.status, 201, await res.text());
    return id;
  };
  const driftPage = async (c: Ctx, env: string): Promise<string> => {
    const signIn = await fetch(`${c.b.url}/ui/sign-in`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ key: c.key }) });
    const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0]!;
    const res = await fetch(`${c.b.url}/ui/drift?env=${env}`, { headers: { cookie } });
    assert.is(res.status, 200);
    return res.text();
  };
  /** Each listed plan's summary and the run it links to, in page order. */
  const listed = (page: string) => [...page.matchAll(/<section class="plan"[^>]*><h2>[^<]*<span[^>]*>[^<]*<\/span> · plan ([a-z0-9-]+)<\/h2>\s*<p class="muted">Last applied <a href="\/ui\/runs\/([^"]+)"/g)].map((m) => [m[1], m[2]]);

  s.before(async (c) => {
    if (skip) return;
    let database: string | undefined;
    if (label === 'postgres') {
      c.pg = await startPostgres();
      database = await c.pg.createDatabase('drift_plans');
    }
    c.b = await startBackendProcess({ database, env: { ASSISTANT_BACKEND_UI_DRIFT_PLANS: '3' } });
    c.key = await createApiKey(c.b, 'ml-team');
  });
  s.after(async (c) => {
    await c.b?.kill();
    await c.pg?.stop();
    if (c.b) rmSync(c.b.home, { recursive: true, force: true });
  });

  s('per plan its newest run that reached the cloud; dry runs, refusals and other envs are not applied plans here; the cap keeps the newest and says so', async (c) => {
    if (skip) return void console.log(`SKIP drift plans on ${label}: ${skip}`);
    await put(c, 'production', 'a', 'apply', 'succeeded');
    const aNewest = await put(c, 'production', 'a', 'apply', 'failed');
    await put(c, 'production', 'a', 'dry_run', 'previewed');
    const bApplied = await put(c, 'production', 'b', 'apply', 'succeeded');
    await put(c, 'production', 'b', 'apply', 'refused');
    await put(c, 'production', 'only-dry', 'dry_run', 'previewed');
    await put(c, 'production', 'only-refused', 'apply', 'refused');
    await put(c, 'production', 'only-invalid', 'apply', 'invalid');
    const elsewhere = await put(c, 'testing', 'tested', 'apply', 'succeeded');
    const page = await driftPage(c, 'production');
    assert.equal(listed(page), [
      ['b', bApplied],
      ['a', aNewest],
    ]);
    assert.not.match(page, /only-dry|only-refused|only-invalid|tested/);
    assert.match(page, /Can't tell: no gpucloud credentials are stored for production/);
    assert.not.match(page, /class="note cut"/);
    assert.equal(listed(await driftPage(c, 'testing')), [['tested', elsewhere]]);

    const cNew = await put(c, 'production', 'c', 'apply', 'cancelled');
    const dNew = await put(c, 'production', 'd', 'apply', 'succeeded');
    const cut = await driftPage(c, 'production');
    assert.equal(listed(cut), [
      ['d', dNew],
      ['c', cNew],
      ['b', bApplied],
    ]);
    assert.match(cut, /Checked the 3 most recently applied of 4 plans/);
  });

  return s;
}

storageSuite('pglite').run();
storageSuite('postgres').run();
