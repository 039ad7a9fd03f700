/**
 * The terraform reads of a workspace: its state (read without running its code: state.ts) and, only
 * with the user's opt-in, what `terraform plan -json` prints, made into small records for the prompt
 * and the answers. The state holds secrets (database passwords, private keys, sensitive outputs): only
 * addresses, types, names, IDs and the values of outputs not marked sensitive are kept.
 */
import { readsChooser, targetsFor } from '../../core/kits/cli/reads.js';
import type { TfState } from './state.js';

export type TerraformReadName = 'show' | 'state-list' | 'plan';

export interface TerraformRead {
  name: TerraformReadName;
  label: string;
  words: readonly string[];
  byDefault: boolean;
}

export const TERRAFORM_READS: readonly TerraformRead[] = [
  {
    name: 'show',
    label: 'the resources in the state, by type, and its outputs (the state read as data; no terraform code runs)',
    words: ['state', 'resources', 'resource', 'managed', 'outputs', 'output', 'what is deployed', 'deployed', 'show'],
    byDefault: true,
  },
  { name: 'state-list', label: 'the addresses in the state', words: ['state list', 'addresses', 'address'], byDefault: false },
  {
    name: 'plan',
    label: 'what an apply would change now (terraform plan -json in a sandbox, with --terraform-plan only; nothing is applied)',
    words: ['plan', 'pending', 'pending changes', 'changes', 'change', 'drift', 'drifted', 'out of sync', 'would change', 'apply', 'diff', 'destroy', 'destroyed'],
    byDefault: false,
  },
];

export const terraformRead = (name: string) => TERRAFORM_READS.find((r) => r.name === name);

export const terraformReadsFor: (question: string) => TerraformRead[] = readsChooser(TERRAFORM_READS);

/** The workspaces a question is about: those it names, else the default, else the only one, else all (at most 5). */
export const workspacesFor = targetsFor;

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
/** Text from the workspace (names, messages): control characters replaced, bounded. */
export const printable = (s: string, max = 300) => {
  const t = s.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');
  return t.length > max ? `${t.slice(0, max)}…` : t;
};

export interface ShowData {
  workspace: string;
  path: string;
  terraform_version?: string;
  resources: { address: string; type: string; name: string; id?: string }[];
  by_type: Record<string, number>;
  outputs: { name: string; sensitive: boolean; value?: unknown }[];
  truncated?: string;
}

const MAX_RESOURCES = 500;
const MAX_OUTPUT_CHARS = 300;

/** The state made safe to show: managed resources with no attribute value but the ID, no sensitive output values. */
export function showData(ws: { name: string; path: string }, state: TfState): ShowData {
  const resources: ShowData['resources'] = [];
  let total = 0;
  for (const r of state.instances) {
    if (r.mode !== 'managed') continue;
    total++;
    if (resources.length >= MAX_RESOURCES) continue;
    const id = r.sensitiveId ? undefined : str(r.values.id);
    resources.push({ address: r.address, type: r.type, name: r.name, ...(id ? { id } : {}) });
  }
  const by_type: Record<string, number> = {};
  for (const r of resources) by_type[r.type] = (by_type[r.type] ?? 0) + 1;
  const outputs = state.outputs.map((o) => {
    if (o.sensitive) return { name: o.name, sensitive: true };
    const text = typeof o.value === 'string' ? o.value : JSON.stringify(o.value);
    return { name: o.name, sensitive: false, value: text !== undefined && text.length > MAX_OUTPUT_CHARS ? `${text.slice(0, MAX_OUTPUT_CHARS)}…` : o.value };
  });
  return {
    workspace: ws.name,
    path: ws.path,
    terraform_version: state.terraform_version,
    resources,
    by_type,
    outputs,
    ...(total > resources.length ? { truncated: `only the first ${MAX_RESOURCES} of ${total} resources are listed` } : {}),
  };
}

export interface StateListData {
  workspace: string;
  path: string;
  addresses: string[];
  truncated?: string;
}

/** Every instance address in the state (managed resources and data sources), as `terraform state list` prints them. */
export function stateListData(ws: { name: string; path: string }, state: TfState): StateListData {
  const all = state.instances.map((r) => r.address).sort();
  return { workspace: ws.name, path: ws.path, addresses: all.slice(0, MAX_RESOURCES), ...(all.length > MAX_RESOURCES ? { truncated: `only the first ${MAX_RESOURCES} of ${all.length} addresses are listed` } : {}) };
}

export interface PlanData {
  workspace: string;
  path: string;
  /** Why no plan was computed (the user did not opt in to running the workspace's code). */
  not_computed?: string;
  summary?: { add: number; change: number; remove: number; import: number };
  changes: { address: string; action: string; reason?: string }[];
  drift: { address: string; action: string }[];
  diagnostics: { severity: string; summary: string; detail?: string; address?: string }[];
  truncated?: string;
}

/** A plan read without the user's opt-in: nothing ran, and the answer says how to get one. */
export function planNotComputed(ws: { name: string; path: string }): PlanData {
  return {
    workspace: ws.name,
    path: ws.path,
    not_computed: 'a plan runs the workspace\'s own code (its providers and data sources), so a read does not compute one; ask with --terraform-plan to compute it in a sandbox (never applied)',
    changes: [],
    drift: [],
    diagnostics: [],
  };
}

/** The JSON lines of `terraform plan -json` (the machine-readable UI): the planned changes, drift, summary and diagnostics. */
export function planData(ws: { name: string; path: string }, output: unknown): PlanData {
  const text = typeof output === 'string' ? output : Array.isArray(output) || obj(output).type ? JSON.stringify(output) : str(obj(output).output) ?? '';
  const out: PlanData = { workspace: ws.name, path: ws.path, changes: [], drift: [], diagnostics: [] };
  let cut = 0;
  for (const line of text.split(/\r?\n/)) {
    if (!line.startsWith('{')) continue;
    let m: Obj;
    try {
      m = obj(JSON.parse(line));
    } catch {
      continue;
    }
    const change = obj(m.change);
    const address = str(obj(change.resource).addr) ?? '';
    if (m.type === 'planned_change' && address) {
      if (out.changes.length < MAX_RESOURCES) out.changes.push({ address, action: str(change.action) ?? '?', ...(str(change.reason) ? { reason: str(change.reason) } : {}) });
      else cut++;
    } else if (m.type === 'resource_drift' && address) {
      if (out.drift.length < MAX_RESOURCES) out.drift.push({ address, action: str(change.action) ?? '?' });
    } else if (m.type === 'change_summary') {
      const c = obj(m.changes);
      out.summary = { add: Number(c.add ?? 0), change: Number(c.change ?? 0), remove: Number(c.remove ?? 0), import: Number(c.import ?? 0) };
    } else if (m.type === 'diagnostic') {
      const d = obj(m.diagnostic);
      out.diagnostics.push({ severity: str(d.severity) ?? '?', summary: printable(str(d.summary) ?? ''), ...(str(d.detail) ? { detail: printable(str(d.detail)!) } : {}), ...(str(d.address) ? { address: str(d.address) } : {}) });
    }
  }
  if (cut) out.truncated = `only the first ${MAX_RESOURCES} planned changes are listed (${cut} more)`;
  return out;
}

const MAX_LINES = 20;
const bullets = (items: string[]) => [...items.slice(0, MAX_LINES).map((l) => `- ${printable(l)}`), ...(items.length > MAX_LINES ? [`- … and ${items.length - MAX_LINES} more`] : [])];
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

export function answerShow(d: ShowData, question: string): string {
  const types = Object.entries(d.by_type)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([t, n]) => `${n} ${t}`)
    .join(', ');
  const head = `Terraform workspace ${printable(d.workspace)} (${printable(d.path)}): ${plural(d.resources.length, 'resource')}${types ? ` (${types})` : ''}`;
  if (/\bhow many\b/i.test(question)) return `${head}.`;
  const lines = [`${head}:`, ...bullets(d.resources.map((r) => `${r.address}${r.id ? ` (id ${r.id})` : ''}`))];
  if (d.outputs.length) lines.push(`Outputs: ${d.outputs.map((o) => (o.sensitive ? `${printable(o.name)} (sensitive, not shown)` : `${printable(o.name)} = ${printable(JSON.stringify(o.value), 120)}`)).join(', ')}`);
  if (d.truncated) lines.push(`(${d.truncated})`);
  return lines.join('\n');
}

export function answerStateList(d: StateListData): string {
  return [`Terraform workspace ${printable(d.workspace)}: ${plural(d.addresses.length, 'address', 'addresses')} in the state:`, ...bullets(d.addresses), ...(d.truncated ? [`(${d.truncated})`] : [])].join('\n');
}

export function answerPlan(d: PlanData): string {
  if (d.not_computed) return `Terraform plan of workspace ${printable(d.workspace)}: not computed — ${d.not_computed}.`;
  const s = d.summary;
  const head = s
    ? `Terraform plan of workspace ${printable(d.workspace)}: ${s.add} to add, ${s.change} to change, ${s.remove} to destroy${s.import ? `, ${s.import} to import` : ''} (nothing was applied)`
    : `Terraform plan of workspace ${printable(d.workspace)}: no summary (the plan did not finish)`;
  // terraform plans resources in parallel: its planned_change lines come in any order, the answer does not.
  const changes = [...d.changes].sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
  const lines = [d.changes.length ? `${head}:` : `${head}.`, ...bullets(changes.map((c) => `${c.address}: ${c.action}${c.reason ? ` (${c.reason})` : ''}`))];
  if (d.drift.length) lines.push(`Changed outside terraform (drift): ${d.drift.map((x) => `${printable(x.address)} (${x.action})`).join(', ')}`);
  for (const diag of d.diagnostics) lines.push(`${diag.severity}: ${diag.summary}${diag.address ? ` (${printable(diag.address)})` : ''}${diag.detail ? `: ${diag.detail}` : ''}`);
  if (d.truncated) lines.push(`(${d.truncated})`);
  return lines.join('\n');
}
