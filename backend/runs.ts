/**
 * The run history a team's clients report (issue 41): one row per run, keyed by (tenant, the client's
 * idempotency key), so a run sent twice — a retry after a lost answer, two processes flushing one
 * queue — is stored once. Bounded per tenant: each insert deletes, in its own transaction, the tenant's
 * runs older than `keepDays` and the oldest beyond the newest `keep` (cheaply: see `retain`).
 *
 * The record arrives masked by the client's one masker; the server masks it again (a client of another
 * version, or one that registered no secret) before storing it, since the console shows it to the team.
 */
import { maskSecretLooking } from '../engine/core/redact.js';
import type { RunDetail, RunRecord, RunSummary } from '../schemas/backend-api.js';
import type { Principal } from './store.js';
import type { Queryable, Row, Storage } from './storage.js';

export const DEFAULT_RUN_RETENTION = 10_000;
export const DEFAULT_RUN_RETENTION_DAYS = 365;

export interface RunRetention {
  /** The newest runs kept per tenant. */
  keep: number;
  /** Runs older than this many days are deleted. */
  keepDays: number;
}

/** From ASSISTANT_BACKEND_RUN_RETENTION (count per tenant) and ASSISTANT_BACKEND_RUN_RETENTION_DAYS. */
export function runRetentionFrom(env: Record<string, string | undefined>): RunRetention {
  const int = (v: string | undefined, fallback: number) => {
    const n = Number(v);
    return v !== undefined && v.trim() !== '' && Number.isInteger(n) && n > 0 ? n : fallback;
  };
  return { keep: int(env.ASSISTANT_BACKEND_RUN_RETENTION, DEFAULT_RUN_RETENTION), keepDays: int(env.ASSISTANT_BACKEND_RUN_RETENTION_DAYS, DEFAULT_RUN_RETENTION_DAYS) };
}

const iso = (v: unknown): string => (v instanceof Date ? v.toISOString() : new Date(String(v)).toISOString());
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

const SUMMARY_COLUMNS = 'id, env, who, key_prefix, received_at, kind, status, exit_code, started_at, finished_at, plan_hash, summary, hourly_change, currency, resources';

function summaryOf(r: Row): RunSummary {
  return {
    id: String(r.id),
    env: String(r.env) as RunSummary['env'],
    who: String(r.who),
    key_prefix: String(r.key_prefix),
    received_at: iso(r.received_at),
    kind: String(r.kind) as RunSummary['kind'],
    status: String(r.status),
    exit_code: Number(r.exit_code),
    started_at: iso(r.started_at),
    finished_at: iso(r.finished_at),
    plan_hash: String(r.plan_hash),
    summary: r.summary === null || r.summary === undefined ? null : String(r.summary),
    hourly_change: numOrNull(r.hourly_change),
    currency: r.currency === null || r.currency === undefined ? null : String(r.currency),
    resources: Number(r.resources),
  };
}

function detailOf(row: Row): RunDetail {
  const { resources: _count, ...summary } = summaryOf(row);
  const record = (typeof row.record === 'string' ? JSON.parse(row.record) : row.record) as RunRecord;
  return { ...summary, tenant: String(row.tenant), record };
}

/** What a run adds to the burn: an apply that succeeded with a priced change, by env, provider and day (UTC). */
interface Burning {
  env: string;
  provider: string | null;
  started_at: string;
  kind: string;
  status: string;
  hourly_change: number | null;
}
const BURNING_COLUMNS = 'env, provider, started_at, kind, status, hourly_change';
const burningOf = (r: Row): Burning => ({ env: String(r.env), provider: r.provider === null || r.provider === undefined ? null : String(r.provider), started_at: iso(r.started_at), kind: String(r.kind), status: String(r.status), hourly_change: numOrNull(r.hourly_change) });

/**
 * Adds (`sign` +1) or takes away (-1) runs from run_burn_days, the sums the console's burn and cost
 * trend read (so a page costs the same with 10 runs or 10,000). A day's row goes when its last run does.
 */
async function addBurn(tx: Queryable, tenant: string, runs: readonly Burning[], sign: 1 | -1): Promise<void> {
  const sums = new Map<string, { env: string; provider: string; day: string; change: number; runs: number }>();
  for (const r of runs) {
    if (r.kind !== 'apply' || r.status !== 'succeeded' || r.hourly_change === null) continue;
    const provider = r.provider ?? 'unknown';
    const day = iso(r.started_at).slice(0, 10);
    const key = JSON.stringify([r.env, provider, day]);
    const sum = sums.get(key) ?? { env: r.env, provider, day, change: 0, runs: 0 };
    sum.change += r.hourly_change;
    sum.runs += 1;
    sums.set(key, sum);
  }
  for (const s of sums.values()) {
    await tx.query(
      `INSERT INTO run_burn_days (tenant, env, provider, day, change, runs) VALUES ($1, $2, $3, $4::date, $5, $6)
       ON CONFLICT (tenant, env, provider, day) DO UPDATE SET change = run_burn_days.change + EXCLUDED.change, runs = run_burn_days.runs + EXCLUDED.runs`,
      [tenant, s.env, s.provider, s.day, sign * s.change, sign * s.runs],
    );
  }
  if (sign < 0 && sums.size) await tx.query('DELETE FROM run_burn_days WHERE tenant = $1 AND runs <= 0', [tenant]);
}

export interface RunQuery {
  env?: string;
  limit?: number;
  /** Runs started before this instant (the next page). */
  before?: string;
  planHash?: string;
}

export class RunHistory {
  constructor(
    private readonly storage: Storage,
    private readonly retention: RunRetention,
  ) {}

  /** Stores a run once; `created` false when this tenant already has a run with this id. */
  async put(who: Principal & { label?: string }, env: string, id: string, record: RunRecord): Promise<{ id: string; created: boolean }> {
    const masked = maskSecretLooking(record);
    return this.storage.transaction(async (tx) => {
      const inserted = await tx.query(
        `INSERT INTO runs (tenant, id, env, who, key_prefix, kind, status, exit_code, started_at, finished_at, plan_hash, summary, hourly_change, currency, resources, provider, record)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)
         ON CONFLICT (tenant, id) DO NOTHING RETURNING id`,
        [
          who.tenant,
          id,
          env,
          who.label || who.prefix,
          who.prefix,
          masked.kind,
          masked.status,
          masked.exit_code,
          masked.started_at,
          masked.finished_at,
          masked.plan_hash,
          masked.summary ?? null,
          masked.hourly_change ?? null,
          masked.currency ?? null,
          masked.resources.length,
          masked.providers[0] ?? null,
          JSON.stringify(masked),
        ],
      );
      if (!inserted.length) return { id, created: false };
      await this.retain(tx, who.tenant, { env, provider: masked.providers[0] ?? null, started_at: masked.started_at, kind: masked.kind, status: masked.status, hourly_change: masked.hourly_change ?? null });
      return { id, created: true };
    });
  }

  /**
   * Keeps the tenant's count and burn per day with its runs, and applies retention, in the transaction
   * of the insert of `added`: the runs older than `keepDays` (the oldest in the index, so nothing is
   * read when none is that old), then the oldest beyond the newest `keep`, found by the count rather
   * than by counting (an OFFSET over the tenant's runs on every insert was the cost of a full history).
   * The count's row lock is taken first: it orders two inserts of one tenant on PostgreSQL, so neither
   * deletes by a count the other changed, and every burn row is changed under it (no deadlock).
   */
  private async retain(tx: Queryable, tenant: string, added: Burning): Promise<void> {
    const [counted] = await tx.query<Row>(
      'INSERT INTO run_counts (tenant, runs) VALUES ($1, 1) ON CONFLICT (tenant) DO UPDATE SET runs = run_counts.runs + 1 RETURNING runs',
      [tenant],
    );
    await addBurn(tx, tenant, [added], +1);
    const before = Number(counted!.runs);
    const gone = await tx.query<Row>(`DELETE FROM runs WHERE tenant = $1 AND started_at < now() - make_interval(days => $2::int) RETURNING ${BURNING_COLUMNS}`, [tenant, this.retention.keepDays]);
    if (before - gone.length > this.retention.keep) {
      const oldest = `SELECT id FROM runs WHERE tenant = $1 ORDER BY started_at, id LIMIT $2`;
      gone.push(...(await tx.query<Row>(`DELETE FROM runs WHERE tenant = $1 AND id IN (${oldest}) RETURNING ${BURNING_COLUMNS}`, [tenant, before - gone.length - this.retention.keep])));
    }
    if (!gone.length) return;
    await tx.query('UPDATE run_counts SET runs = $2 WHERE tenant = $1', [tenant, before - gone.length]);
    await addBurn(tx, tenant, gone.map(burningOf), -1);
  }

  /** The newest runs first, of the envs given (a key's own). */
  async list(tenant: string, envs: readonly string[], q: RunQuery = {}): Promise<RunSummary[]> {
    const wanted = q.env ? [q.env].filter((e) => envs.includes(e)) : [...envs];
    // One env as `=`, so the planner reads runs_tenant_env_newest in order and stops at the limit.
    const params: unknown[] = [tenant, wanted.length === 1 ? wanted[0] : wanted];
    let where = wanted.length === 1 ? 'tenant = $1 AND env = $2' : 'tenant = $1 AND env = ANY($2::text[])';
    if (q.before) {
      params.push(q.before);
      where += ` AND started_at < $${params.length}`;
    }
    if (q.planHash) {
      params.push(q.planHash);
      where += ` AND plan_hash = $${params.length}`;
    }
    params.push(Math.min(Math.max(q.limit ?? 50, 1), 500));
    const rows = await this.storage.query<Row>(`SELECT ${SUMMARY_COLUMNS} FROM runs WHERE ${where} ORDER BY started_at DESC, id DESC LIMIT $${params.length}`, params);
    return rows.map(summaryOf);
  }

  /** One run of this tenant in one of `envs`, or undefined. */
  async get(tenant: string, envs: readonly string[], id: string): Promise<RunDetail | undefined> {
    const [row] = await this.storage.query<Row>(`SELECT ${SUMMARY_COLUMNS}, tenant, record FROM runs WHERE tenant = $1 AND id = $2 AND env = ANY($3::text[])`, [tenant, id, [...envs]]);
    return row ? detailOf(row) : undefined;
  }

  /**
   * The plans applied in one env: per plan (its hash, as `previous` tells "the same plan"), its newest run
   * that reached the cloud (an apply that succeeded, failed or was cancelled: a refused or invalid one sent
   * nothing, a dry run changes nothing), newest first, at most `limit`; and how many such plans there are.
   */
  async appliedPlans(tenant: string, env: string, limit: number): Promise<{ plans: number; runs: RunDetail[] }> {
    const latest = await this.storage.query<Row>(
      `SELECT id, count(*) OVER () AS plans FROM (
         SELECT DISTINCT ON (plan_hash) id, started_at FROM runs
         WHERE tenant = $1 AND env = $2 AND kind = 'apply' AND status IN ('succeeded', 'failed', 'cancelled')
         ORDER BY plan_hash, started_at DESC, id DESC) latest
       ORDER BY started_at DESC, id DESC LIMIT $3`,
      [tenant, env, Math.max(1, limit)],
    );
    if (!latest.length) return { plans: 0, runs: [] };
    const rows = await this.storage.query<Row>(`SELECT ${SUMMARY_COLUMNS}, tenant, record FROM runs WHERE tenant = $1 AND env = $2 AND id = ANY($3::text[])`, [tenant, env, latest.map((r) => String(r.id))]);
    const byId = new Map(rows.map((r) => [String(r.id), detailOf(r)]));
    return { plans: Number(latest[0]!.plans), runs: latest.map((r) => byId.get(String(r.id))).filter((r): r is RunDetail => r !== undefined) };
  }

  /** The hourly change the applied runs made, per day (UTC), over the last `days` days (whole days): the cost trend. */
  async trend(tenant: string, env: string, days: number): Promise<Array<{ day: string; change: number }>> {
    const rows = await this.storage.query<Row>(
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, sum(change) AS change FROM run_burn_days
       WHERE tenant = $1 AND env = $2 AND day >= ((now() - make_interval(days => $3::int)) AT TIME ZONE 'UTC')::date
       GROUP BY 1 ORDER BY 1`,
      [tenant, env, days],
    );
    return rows.map((r) => ({ day: String(r.day), change: Number(r.change) }));
  }

  /** The hourly change the applied runs made, per provider (a run's change counted to its first provider). */
  async burnByProvider(tenant: string, env: string): Promise<Array<{ provider: string; change: number; runs: number }>> {
    const rows = await this.storage.query<Row>(
      `SELECT provider, sum(change) AS change, sum(runs) AS runs FROM run_burn_days WHERE tenant = $1 AND env = $2 GROUP BY 1 ORDER BY 1`,
      [tenant, env],
    );
    return rows.map((r) => ({ provider: String(r.provider), change: Number(r.change), runs: Number(r.runs) }));
  }

  /** The run of the same plan in the same env before this one (what the console diffs against). */
  async previous(tenant: string, run: RunDetail): Promise<RunDetail | undefined> {
    const [row] = await this.storage.query<Row>(
      `SELECT id FROM runs WHERE tenant = $1 AND env = $2 AND plan_hash = $3 AND (started_at, id) < ($4::timestamptz, $5) ORDER BY started_at DESC, id DESC LIMIT 1`,
      [tenant, run.env, run.plan_hash, run.started_at, run.id],
    );
    return row ? this.get(tenant, [run.env], String(row.id)) : undefined;
  }
}
