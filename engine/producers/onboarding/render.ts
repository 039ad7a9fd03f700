/**
 * The readable forms of the scan report and of the install plan and report. Only names, paths,
 * versions and verdicts reach them (the report never holds a secret); text from children (a failing
 * step's last lines) was masked where it was kept.
 */
import type { Column } from '../../providers/gpucloud/catalogue.js';
import type { Colors } from '../../core/render/color.js';
import { PLAIN } from '../../core/render/color.js';
import type { DrawTable } from '../../core/render/records.js';
import type { InstallPlan, InstallReport, InstallStep, ScanReport } from '../../../schemas/onboarding.js';

const yesNo = (v: boolean | null | undefined, unknown = '-') => (v === true ? 'yes' : v === false ? 'no' : unknown);

export function renderScan(report: ScanReport, draw: DrawTable, c: Colors = PLAIN): string {
  const out: string[] = [];
  const p = report.platform;
  out.push(
    `${c.bold('Machine')}: ${p.os}/${p.arch}${p.injected ? ' (--platform)' : ''}; package managers: ${p.package_managers.join(', ') || 'none found'}` +
      `\n${c.bold('Config')}: ${report.config.path}${report.config.exists ? '' : ' (not found; defaults apply)'}${report.config.problem ? `\n  ${c.red('problem:')} ${report.config.problem}` : ''}`,
  );

  if (report.tools.length) {
    const rows = report.tools.map((t) => ({
      name: t.name,
      found: t.found ? (t.version_ok === false ? 'outdated' : 'yes') : 'no',
      version: t.version ?? (t.found ? '?' : ''),
      min: t.min_version ?? '',
      path: t.path ?? '',
      used: Object.entries(t.providers).map(([prov, need]) => (need === 'required' ? prov : `${prov} (${need})`)).join(', '),
    }));
    const cols: Column[] = [
      { header: 'TOOL', path: 'name' },
      { header: 'FOUND', path: 'found', format: 'status' },
      { header: 'VERSION', path: 'version', priority: 4 },
      { header: 'MIN', path: 'min', priority: 1 },
      { header: 'USED BY', path: 'used', priority: 3 },
      { header: 'PATH', path: 'path', priority: 2 },
    ];
    out.push(draw(rows, cols, { keep: 'name' }).trimEnd());
    for (const t of report.tools) if (t.problem && t.found) out.push(`  ${c.yellow('note:')} ${t.name}: ${t.problem}`);
  }

  const rows = report.providers.map((r) => ({
    provider: r.provider,
    configured: yesNo(r.configured),
    auth: !r.configured ? '-' : !r.checkable ? 'no check' : !r.checked ? 'not checked' : r.authenticated === null ? 'unknown' : yesNo(r.authenticated),
    tools: r.tools.length === 0 ? '-' : r.tools_ok ? 'ok' : `missing ${r.tools.filter((t) => (t.need !== 'optional' && !t.found) || t.version_ok === false).map((t) => t.name).join('/')}`,
    source: r.source ? `${r.source.kind}: ${r.source.where}` : '',
  }));
  out.push(
    draw(
      rows,
      [
        { header: 'PROVIDER', path: 'provider' },
        { header: 'CONFIGURED', path: 'configured', format: 'status' },
        { header: 'AUTHENTICATED', path: 'auth', format: 'status' },
        { header: 'TOOLS', path: 'tools', priority: 3 },
        { header: 'SOURCE USED', path: 'source', priority: 2 },
      ],
      { keep: 'provider' },
    ).trimEnd(),
  );

  // Where each provider looks, for the configured ones (all of them with --provider).
  const narrowed = report.providers.length < 8;
  const shown = report.providers.filter((r) => narrowed || r.configured || r.provider === 'gpucloud');
  const lines: string[] = [`${c.bold('Credential sources')} (in the order each provider resolves them; values are never shown):`];
  for (const r of shown) {
    lines.push(`  ${r.provider}${r.checked ? `: ${r.authenticated ? c.green('authenticated') : r.authenticated === false ? c.red('not authenticated') : c.yellow('could not tell')}${r.identity ? ` as ${r.identity}` : ''}` : ''}`);
    if (r.checked && r.detail) lines.push(`      ${r.detail}`);
    else if (!r.sources.length && r.detail) lines.push(`      ${c.red('problem:')} ${r.detail}`);
    r.sources.forEach((s, i) => {
      const mark = s.used ? c.green('used   ') : s.present ? 'present' : c.dim('absent ');
      lines.push(`    ${i + 1}. ${mark}  ${s.kind.padEnd(11)} ${s.where}${s.note ? c.dim(`  (${s.note})`) : ''}`);
    });
  }
  const hidden = report.providers.filter((r) => !shown.includes(r)).map((r) => r.provider);
  if (hidden.length) lines.push(`  not configured: ${hidden.join(', ')} (\`assistant onboarding scan --provider <name>\` shows where each looks)`);
  out.push(lines.join('\n'));

  if (report.ai.providers.length || report.ai.problems.length) {
    const aiRows = report.ai.providers.map((a) => ({
      profile: a.profile + (a.default ? ' (default)' : ''),
      kind: a.kind,
      configured: yesNo(a.configured),
      source: a.source ? `${a.source.kind}: ${a.source.where}` : a.note ?? '',
      answers: a.checked ? yesNo(a.answers, 'unknown') : a.configured ? 'not checked' : '-',
    }));
    out.push(
      `${c.bold('AI providers')}:\n` +
        draw(
          aiRows,
          [
            { header: 'PROFILE', path: 'profile' },
            { header: 'KIND', path: 'kind', priority: 2 },
            { header: 'CONFIGURED', path: 'configured', format: 'status' },
            { header: 'ANSWERS', path: 'answers', format: 'status' },
            { header: 'KEY FROM', path: 'source', priority: 3 },
          ],
          { keep: 'profile' },
        ).trimEnd(),
    );
    for (const a of report.ai.providers) if (a.checked && a.detail && a.answers !== true) out.push(`  ${a.profile}: ${a.detail}`);
    for (const problem of report.ai.problems) out.push(`  ${c.red('problem:')} ${problem}`);
  }

  if (report.next_steps.length) {
    const steps = report.next_steps.map((s, i) => `  ${i + 1}. ${s.why}${s.command ? `\n       ${c.cyan(s.command)}` : ''}`);
    out.push(`${c.bold('Next steps')}:\n${steps.join('\n')}`);
  } else {
    out.push(`${c.green('Ready.')} Nothing to do for what is configured.`);
  }
  return out.join('\n\n') + '\n';
}

// ---------------------------------------------------------------------------------------------

/** A step as a person would type it (arguments quoted where a shell would need it). */
export function stepText(step: InstallStep): string {
  if (step.kind === 'exec') return step.argv.map(shellQuote).join(' ');
  if (step.kind === 'download') return `download ${step.url}\n       verify sha256 ${step.sha256}${step.size ? ` (${step.size} bytes)` : ''}`;
  return `unpack ${step.binary} (${step.format}) → ${step.dest}`;
}

function shellQuote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

export function renderPlan(plan: InstallPlan, c: Colors = PLAIN): string {
  const out: string[] = [];
  const sudo = plan.tools.filter((t) => t.needs_sudo).length;
  out.push(
    `${c.bold('Install plan')} for ${plan.platform.os}/${plan.platform.arch}${plan.platform.injected ? ' (--platform)' : ''}: ${plan.tools.length} tool${plan.tools.length === 1 ? '' : 's'}` +
      `${sudo ? `, ${sudo} with sudo (root is needed by the system package manager)` : ', no sudo'}` +
      (plan.tools.some((t) => t.method === 'download' || t.method === 'npm') ? `; executables go to ${plan.bin_dir}` : ''),
  );
  let n = 0;
  for (const s of plan.setup) for (const step of s.steps) out.push(`  ${++n}. [${s.method}] ${stepText(step)}`);
  for (const t of plan.tools) {
    out.push(`  ${t.tool} via ${t.method}${t.version ? ` ${t.version}` : ''}${t.needs_sudo ? c.yellow(' (sudo)') : ''} — ${t.reason}${t.replaces ? ` (replaces ${t.replaces} on PATH)` : ''}`);
    for (const step of t.steps) out.push(`    ${++n}. ${stepText(step)}`);
    if (t.note) out.push(`       ${c.dim(t.note)}`);
  }
  for (const s of plan.skipped) out.push(`  ${s.tool}: skipped, ${s.reason}${s.path ? ` (${s.path}${s.version ? `, ${s.version}` : ''})` : ''}`);
  for (const u of plan.unavailable) out.push(`  ${u.tool}: ${c.yellow('no recipe here')}: ${u.reason}; install it by hand: ${u.manual}`);
  if (plan.tools.some((t) => t.method === 'download') && !plan.bin_dir_on_path) {
    out.push(`  ${c.yellow('note:')} ${plan.bin_dir} is not on your PATH; add it (e.g. export PATH="${plan.bin_dir}:$PATH" in your shell profile)`);
  }
  return out.join('\n') + '\n';
}

export function renderInstallReport(report: InstallReport, c: Colors = PLAIN): string {
  const out: string[] = [];
  for (const r of report.results) {
    const status = r.status === 'installed' ? c.green('installed') : r.status === 'failed' ? c.red('FAILED') : r.status === 'skipped' ? 'skipped' : c.yellow('not installed');
    out.push(`${r.tool}: ${status}${r.method ? ` (${r.method})` : ''}${r.path ? ` ${r.path}` : ''}${r.version ? ` ${r.version}` : ''}${r.error ? `: ${r.error}` : ''}`);
    for (const line of r.output ?? []) out.push(`  | ${line}`);
  }
  if (!report.bin_dir_on_path && report.results.some((r) => r.status === 'installed' && (r.method === 'download' || r.method === 'npm'))) {
    out.push(`next: add ${report.bin_dir} to your PATH: export PATH="${report.bin_dir}:$PATH"`);
  }
  if (report.results.some((r) => r.status === 'installed')) out.push('next: assistant onboarding scan --check');
  return out.join('\n') + '\n';
}
