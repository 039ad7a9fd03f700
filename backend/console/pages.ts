/** The console's pages: the sign-in form, the run list with its charts, one run with its diff. */
import type { RunDetail, RunSummary } from '../../schemas/backend-api.js';
import { cellText, type AvailabilityMatrix } from '../../engine/producers/charts/availability-matrix.js';
import { barChart, matrixChart } from './charts.js';
import type { DriftReport } from '../../engine/core/drift-types.js';
import type { DriftView, PlanDrift } from './drift.js';
import type { ProviderLive } from './live.js';
import { html, page, type Html } from './html.js';

type Who = { tenant: string; who: string };

/** The console's views of one env, in the order of the navigation. */
const VIEWS = { runs: 'Runs', live: 'Live resources', drift: 'Drift' } as const;
type View = keyof typeof VIEWS;

/** The env switch of a view, and links to the other views of the env shown. */
function envNav(view: View, env: string, envs: readonly string[]): Html {
  const others = (Object.keys(VIEWS) as View[]).filter((v) => v !== view);
  return html`<nav class="envs">${envs.map((e) => html`<a class="${e === env ? 'on' : ''}" href="/ui/${view}?env=${e}">${e}</a>`)} · ${others.map(
    (v, i) => html`${i ? ' · ' : ''}<a href="/ui/${v}?env=${env}">${VIEWS[v]} in ${env}</a>`,
  )}</nav>`;
}

export function signInPage(error?: string): string {
  return page(
    'Sign in',
    html`<h1>Sign in</h1>
<p>Paste a backend API key (<code>assistant backend keys create --tenant &lt;team&gt; --env production --label &lt;you&gt;</code>).
The key is exchanged for a session of a few minutes; it is not kept in the browser.</p>
${error ? html`<p class="error" role="alert">${error}</p>` : ''}
<form class="sign-in" method="post" action="/ui/sign-in">
<label for="key">API key</label><input id="key" name="key" type="password" autocomplete="off" required>
<button type="submit">Sign in</button></form>`,
  );
}

const money = (v: number | null, currency?: string | null) => (v === null ? html`<span class="muted">not priced</span>` : html`${v >= 0 ? '+' : ''}${v.toFixed(4)} ${(currency ?? '').toUpperCase()}/h`);

export interface RunsView {
  who: Who;
  env: string;
  envs: readonly string[];
  runs: readonly RunSummary[];
  next?: string;
  trend: Array<{ day: string; change: number }>;
  byProvider: Array<{ provider: string; change: number; runs: number }>;
}

export function runsPage(v: RunsView): string {
  const q = (extra: Record<string, string>) => `/ui/runs?${new URLSearchParams({ env: v.env, ...extra })}`;
  return page(
    `Runs · ${v.env}`,
    html`${envNav('runs', v.env, v.envs)}
<h1>Runs in ${v.env}</h1>
<section><h2>Burn added per provider</h2>
<table><thead><tr><th>provider</th><th>hourly change from applied runs</th><th>runs</th></tr></thead><tbody>
${v.byProvider.length ? v.byProvider.map((p) => html`<tr><td>${p.provider}</td><td>${money(p.change)}</td><td>${p.runs}</td></tr>`) : html`<tr><td colspan="3" class="muted">no priced applies yet</td></tr>`}
</tbody></table>
${barChart('Hourly change applied per day, last 30 days', v.trend.map((t) => ({ label: t.day.slice(5), value: t.change })), 'per hour')}
</section>
<section><h2>History</h2>
<table><thead><tr><th>started</th><th>who</th><th>kind</th><th>status</th><th>summary</th><th>resources</th><th>hourly change</th></tr></thead><tbody>
${v.runs.length ? v.runs.map(
      (r) => html`<tr><td><a href="/ui/runs/${r.id}">${r.started_at.replace('T', ' ').slice(0, 19)}</a></td><td>${r.who}</td><td>${r.kind === 'dry_run' ? 'dry run' : 'apply'}</td>
<td class="${r.status}">${r.status}</td><td>${r.summary ?? html`<span class="muted">${r.plan_hash.slice(0, 12)}</span>`}</td><td>${r.resources}</td><td>${money(r.hourly_change, r.currency)}</td></tr>`,
    ) : html`<tr><td colspan="7" class="muted">no runs yet: apply a plan with a backend API key configured</td></tr>`}
</tbody></table>
${v.next ? html`<p><a href="${q({ before: v.next })}">Older runs</a></p>` : ''}</section>`,
    v.who,
  );
}

/** What changed between the previous run of the same plan and this one: outcomes, IDs, cost. */
function diff(run: RunDetail, previous: RunDetail | undefined): Html {
  if (!previous) return html`<p class="muted">This is the first run of this plan in ${run.env}.</p>`;
  const lines: Html[] = [];
  const add = (what: string, before: string, after: string) => {
    if (before !== after) lines.push(html`<tr><td>${what}</td><td class="removed">${before}</td><td class="added">${after}</td></tr>`);
  };
  add('status', previous.status, run.status);
  add('hourly change', String(previous.hourly_change ?? 'not priced'), String(run.hourly_change ?? 'not priced'));
  const steps = Math.max(previous.record.steps.length, run.record.steps.length);
  for (let i = 0; i < steps; i++) {
    const a = previous.record.steps[i];
    const b = run.record.steps[i];
    add(`step ${i + 1}`, a ? `${a.status}${a.error ? ` (${a.error.code})` : ''}` : '—', b ? `${b.status}${b.error ? ` (${b.error.code})` : ''}` : '—');
  }
  const ids = (r: RunDetail) => r.record.resources.map((x) => `${x.effect} ${x.kind ?? ''} ${x.name ?? ''} ${x.id ?? ''}`.replace(/\s+/g, ' ').trim()).join('\n') || '—';
  add('resources', ids(previous), ids(run));
  return html`<p>Against <a href="/ui/runs/${previous.id}">the previous run of this plan</a> (${previous.started_at.replace('T', ' ').slice(0, 19)}, by ${previous.who}):</p>
${lines.length ? html`<table class="diff"><thead><tr><th></th><th>before</th><th>now</th></tr></thead><tbody>${lines}</tbody></table>` : html`<p class="muted">The same outcome as then.</p>`}`;
}

export function runPage(who: Who, run: RunDetail, previous: RunDetail | undefined): string {
  const r = run.record;
  return page(
    `Run ${run.id}`,
    html`<p><a href="/ui/runs?env=${run.env}">← runs in ${run.env}</a></p>
<h1>${r.kind === 'dry_run' ? 'Dry run' : 'Apply'}: <span class="${run.status}">${run.status}</span> <span class="muted">(exit ${run.exit_code})</span></h1>
<table><tbody>
<tr><th>run</th><td><code>${run.id}</code></td></tr><tr><th>who</th><td>${run.who} <span class="muted">(key ${run.key_prefix})</span></td></tr>
<tr><th>env</th><td>${run.env}</td></tr><tr><th>when</th><td>${run.started_at} → ${run.finished_at}</td></tr>
<tr><th>plan</th><td>${r.summary ?? ''} <code class="muted">${run.plan_hash.slice(0, 16)}</code></td></tr>
<tr><th>hourly change</th><td>${money(run.hourly_change, run.currency)}</td></tr>
${r.error ? html`<tr><th>error</th><td class="error">${r.error.code}: ${r.error.message}</td></tr>` : ''}
</tbody></table>
<h2>Diff</h2>${diff(run, previous)}
<h2>Steps</h2><table><thead><tr><th>#</th><th>effect</th><th>request</th><th>status</th></tr></thead><tbody>
${r.steps.map((s) => html`<tr><td>${s.index + 1}</td><td>${s.effect}</td><td><code>${s.request}</code><br><span class="muted">${s.reason}</span></td><td class="${s.status}">${s.status}${s.http_status ? ` ${s.http_status}` : ''}${s.error ? html`<br><span class="error">${s.error.code}: ${s.error.message}</span>` : ''}</td></tr>`)}
</tbody></table>
<h2>Resources</h2>${r.resources.length ? html`<table><thead><tr><th>effect</th><th>provider</th><th>kind</th><th>name</th><th>id</th></tr></thead><tbody>${r.resources.map((x) => html`<tr><td>${x.effect}</td><td>${x.provider}</td><td>${x.kind ?? ''}</td><td>${x.name ?? ''}</td><td><code>${x.id ?? ''}</code></td></tr>`)}</tbody></table>` : html`<p class="muted">None created or changed.</p>`}
<h2>Plan</h2><pre>${JSON.stringify(r.plan ?? null, null, 2)}</pre>`,
    who,
  );
}

export function messagePage(title: string, message: string, who?: Who): string {
  return page(title, html`<h1>${title}</h1><p>${message}</p><p><a href="/ui">Back</a></p>`, who);
}

const rate = (v: number | null, currency: string) => (v === null ? html`<span class="muted">not priced</span>` : html`${v.toFixed(4)} ${currency.toUpperCase()}/h`);

function matrixFigure(m: AvailabilityMatrix): Html {
  return matrixChart(
    `Availability now (${m.currency.toUpperCase()}/h)`,
    m.locations,
    m.rows.map((r) => ({
      label: r.type,
      cells: m.locations.map((l) => {
        const c = r.cells[l];
        return { text: cellText(r, c), state: c?.on_demand && c.spot ? 'both' : c?.on_demand ? 'on-demand' : c?.spot ? 'spot' : 'none' };
      }),
    })),
  );
}

function providerSection(p: ProviderLive, env: string): Html {
  if (p.state === 'no_credentials') {
    return html`<section><h2>${p.provider}</h2><p class="note">No ${p.provider} credentials are stored for ${env}. Store them with
<code>ASSISTANT_BACKEND_ENV=${env} assistant credentials store ${p.provider}</code> (${p.what}); the backend then reads this account for you.</p></section>`;
  }
  if (p.state === 'error') return html`<section><h2>${p.provider}</h2><p class="error-box error" role="alert">Could not read ${p.provider}: ${p.code}: ${p.message}</p></section>`;
  const s = p.summary;
  return html`<section><h2>${p.provider}</h2>
<table class="burn"><tbody>
<tr><th>burn now</th><td class="burn-hourly" data-hourly="${s.hourly_cost}">${rate(s.hourly_cost, s.currency)}</td></tr>
<tr><th>per day</th><td>${s.daily_cost.toFixed(2)} ${s.currency.toUpperCase()}</td></tr>
<tr><th>balance</th><td>${s.balance === null ? html`<span class="muted">unknown</span>` : html`${s.balance.toFixed(2)} ${s.currency.toUpperCase()}`}${s.runway_hours === null ? '' : html` <span class="muted">(runway ${Math.floor(s.runway_hours)} h)</span>`}</td></tr>
<tr><th>read</th><td>${s.as_of.replace('T', ' ').slice(0, 19)} <span class="muted">(${s.based_on})</span></td></tr>
</tbody></table>
<h3>Resources</h3>
${s.resources.length
    ? html`<table><thead><tr><th>kind</th><th>name</th><th>id</th><th>type</th><th>status</th><th>per hour</th></tr></thead><tbody>
${s.resources.map((r) => html`<tr><td>${r.kind}</td><td>${r.name}</td><td><code>${r.id}</code></td><td>${r.type}${r.spot ? ' (spot)' : ''}</td><td>${r.status}</td><td>${rate(r.hourly_cost, s.currency)}</td></tr>`)}
</tbody></table>`
    : html`<p class="muted">Nothing billable in this account.</p>`}
${s.unpriced.length ? html`<p class="muted">Not priced: ${s.unpriced.join(', ')}</p>` : ''}
${p.matrix ? matrixFigure(p.matrix) : p.matrixError ? html`<p class="error-box error">Availability could not be read: ${p.matrixError}</p>` : ''}
</section>`;
}

export interface LiveView {
  who: Who;
  env: string;
  envs: readonly string[];
  providers: readonly ProviderLive[];
}

/** What the tenant's accounts run and burn now, read with the credentials the backend holds for this env. */
export function livePage(v: LiveView): string {
  return page(
    `Live · ${v.env}`,
    html`${envNav('live', v.env, v.envs)}
<h1>Live resources in ${v.env}</h1>
<p class="muted">Read now with the credentials stored for ${v.env}, through the same read-only plans as <code>assistant cost summary</code>. Reload to read again.</p>
${v.providers.length ? v.providers.map((p) => providerSection(p, v.env)) : html`<p class="muted">No provider of this build has live cost figures.</p>`}`,
    v.who,
  );
}

const STATE_TEXT: Record<PlanDrift['state'], string> = { in_sync: 'in sync', drifted: 'drifted', unknown: "can't tell" };

/** Why a plan's drift could not be told, and what would tell it. */
function cannotTell(p: Extract<PlanDrift, { state: 'unknown' }>): Html {
  const line = html`<p class="error-box cannot-tell" role="status">Can't tell: ${p.message} <span class="muted">(${p.code})</span></p>`;
  if (p.why === 'no_credentials') {
    return html`${line}<p class="note">Store them with <code>ASSISTANT_BACKEND_ENV=${p.run.env} assistant credentials store ${p.provider ?? '<provider>'}</code>; the backend then compares this plan for you.</p>`;
  }
  if (p.why === 'not_comparable') return html`${line}<p class="muted">That provider has no drift check (<code>assistant plan diff</code> says the same).</p>`;
  if (p.why === 'invalid_plan') return html`${line}<p class="muted">The stored plan does not validate on this server: <code>assistant plan validate</code> it.</p>`;
  return line;
}

function driftTable(report: DriftReport | undefined): Html {
  const rows = report?.resources ?? [];
  if (!rows.length) return html`<p class="muted">The plan makes or names no resource to compare.</p>`;
  return html`<table class="drift"><thead><tr><th>state</th><th>kind</th><th>name</th><th>id</th><th>step</th><th>differences</th></tr></thead><tbody>
${rows.map(
    (e) => html`<tr><td class="${e.state}">${e.state.replace('_', ' ')}</td><td>${e.kind}</td><td>${e.name ?? ''}</td><td><code>${e.id ?? ''}</code></td><td>${e.step === undefined ? '' : e.step + 1}</td>
<td>${e.differences.map((d) => html`<span class="difference">${d.field}: plan <span class="added">${d.plan}</span>, live <span class="removed">${d.live}</span></span><br>`)}${e.note ? html`<span class="muted">${e.note}</span>` : ''}</td></tr>`,
  )}
</tbody></table>`;
}

function planSection(p: PlanDrift): Html {
  const r = p.run;
  return html`<section class="plan" data-plan="${r.plan_hash}" data-state="${p.state}"><h2><span class="${p.state}">${STATE_TEXT[p.state]}</span> · ${r.summary ?? html`<span class="muted">plan ${r.plan_hash.slice(0, 12)}</span>`}</h2>
<p class="muted">Last applied <a href="/ui/runs/${r.id}">${r.started_at.replace('T', ' ').slice(0, 19)}</a> by ${r.who} (<span class="${r.status}">${r.status}</span>) · plan <code>${r.plan_hash.slice(0, 16)}</code></p>
${p.state === 'unknown' ? cannotTell(p) : ''}${p.state !== 'unknown' || p.report?.resources.length ? driftTable(p.report) : ''}
</section>`;
}

export interface DriftPageView extends DriftView {
  who: Who;
  env: string;
  envs: readonly string[];
}

/** Each plan applied in the env against what its accounts hold now (./drift.ts). */
export function driftPage(v: DriftPageView): string {
  const count = (s: PlanDrift['state']) => v.plans.filter((p) => p.state === s).length;
  return page(
    `Drift · ${v.env}`,
    html`${envNav('drift', v.env, v.envs)}
<h1>Drift in ${v.env}</h1>
<p class="muted">Each plan applied in ${v.env} (as its newest run that reached the cloud stored it), compared now with what the accounts hold, by the same code as
<code>assistant plan diff</code> and with the credentials stored for ${v.env}. Only reads are sent; reload to compare again.</p>
${v.plans.length < v.applied ? html`<p class="note cut" role="status">Checked the ${v.plans.length} most recently applied of ${v.applied} plans; the older ones were not compared (at most ${v.cap} per page: <code>ASSISTANT_BACKEND_UI_DRIFT_PLANS</code>).</p>` : ''}
${v.plans.length
    ? html`<p class="drift-counts"><span class="in_sync">${count('in_sync')} in sync</span> · <span class="drifted">${count('drifted')} drifted</span> · <span class="unknown">${count('unknown')} can't tell</span></p>
${v.plans.map(planSection)}`
    : html`<p class="muted">No plan has been applied in ${v.env} yet: plans appear here once the CLI applies them with a backend API key configured.</p>`}`,
    v.who,
  );
}
