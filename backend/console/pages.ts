/** The console's pages: the sign-in form, the run list with its charts, one run with its diff. */
import type { RunDetail, RunSummary } from '../../schemas/backend-api.js';
import { barChart } from './charts.js';
import { html, page, type Html } from './html.js';

type Who = { tenant: string; who: string };

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
    html`<nav class="envs">${v.envs.map((e) => html`<a class="${e === v.env ? 'on' : ''}" href="/ui/runs?env=${e}">${e}</a>`)}</nav>
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
