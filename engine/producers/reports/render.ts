/**
 * The reports as plain text: the built-in provider's answer (no model) is the report itself, tables
 * whose last column is never cut (evidence and names are the point of a report).
 */
import type { ComplianceReport } from './compliance.js';
import type { DiscoveryReport, IacContext } from './discovery.js';
import type { IamReport } from './iam.js';

const MAX_NAMES = 10;

/** Columns padded to their widest cell; the last column as it is. */
export function textTable(headers: string[], rows: string[][]): string {
  const clean = (s: string) => s.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');
  const all = [headers, ...rows].map((r) => r.map(clean));
  const widths = headers.map((_h, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  return all.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('   ').trimEnd()).join('\n');
}

const names = (xs: string[]) => (xs.length > MAX_NAMES ? `${xs.slice(0, MAX_NAMES).join(', ')} and ${xs.length - MAX_NAMES} more` : xs.join(', '));

export function renderIam(r: IamReport): string {
  const count = (type: string) => r.principals.filter((p) => p.type === type).length;
  const lines = [`IAM report (${r.scope}): ${count('user')} user(s), ${count('group')} group(s), ${count('role')} role(s) checked, ${r.findings.length} finding(s).`];
  if (r.findings.length) lines.push('', textTable(['SEVERITY', 'FINDING', 'PRINCIPAL', 'SUBJECT', 'DETAIL'], r.findings.map((f) => [f.severity, f.kind, f.principal, f.subject, f.detail])));
  else lines.push('No administrator or wildcard policies, users without MFA, or old or unused access keys.');
  if (r.unread.length) lines.push('', `Not read (${r.unread.length}): ${r.unread.join('; ')}`);
  return lines.join('\n');
}

export function renderCompliance(r: ComplianceReport): string {
  return [
    `Compliance: ${r.summary.pass} pass, ${r.summary.fail} fail, ${r.summary.unknown} unknown.`,
    '',
    textTable(['CONTROL', 'STATUS', 'EVIDENCE'], r.controls.map((c) => [c.control, c.status.toUpperCase(), c.evidence])),
  ].join('\n');
}

export function renderIac(iac: IacContext): string {
  if (iac.error) return `Terraform workspace ${iac.workspace} (${iac.path}) could not be read: ${iac.error}`;
  const types = Object.entries(iac.by_type).sort((a, b) => a[0].localeCompare(b[0]));
  const lines = [`Terraform workspace ${iac.workspace} (${iac.path}): ${iac.resources} resource(s)${types.length ? `: ${types.map(([t, n]) => `${n} ${t}`).join(', ')}` : ''}.`];
  if (!iac.drift_checked.length) lines.push('Drift: no resource type of the state can be compared with cloud_a.');
  else if (!iac.drift.length) lines.push(`Drift: none (${iac.drift_checked.join(', ')} compared).`);
  else lines.push(`Drift (${iac.drift.length}):`, textTable(['STATUS', 'TYPE', 'ADDRESS', 'ID', 'DETAIL'], iac.drift.map((d) => [d.status, d.type, d.address, d.id, d.detail])));
  return lines.join('\n');
}

export function renderDiscovery(r: DiscoveryReport): string {
  const lines = [`Discovery: ${r.active.length} active service(s)${r.active.length ? ` (${r.active.join(', ')})` : ''}.`, ''];
  lines.push(
    textTable(
      ['SERVICE', 'REGION', 'COUNT', 'NAMES'],
      r.services.map((s) => [s.what, s.region, s.count === null ? '?' : String(s.count), s.error ? `not read: ${s.error}` : names(s.names)]),
    ),
  );
  if (r.iac) lines.push('', renderIac(r.iac));
  return lines.join('\n');
}
