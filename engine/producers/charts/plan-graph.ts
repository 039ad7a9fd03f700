/**
 * `plan show --graph` (issue 31 §4): a plan's steps as a graph. Nodes are steps (what they send, why,
 * and a mark on destructive ones); edges are bindings (a step that produces <NAME> → each step that
 * uses it); steps run in their numbered order. Rendered as
 * Mermaid or Graphviz DOT (for documentation), or text rows with a lane per binding (a terminal).
 */
import type { Plan } from '../../../schemas/plan.js';
import type { Colors } from '../../core/render/color.js';
import { placeholdersIn } from '../../core/plan/bindings.js';
import type { ProviderSet, StepClass } from '../../core/provider.js';

export interface GraphNode {
  index: number;
  /** What the step sends (`POST /v1/instances`), placeholders as written. */
  request: string;
  reason: string;
  effect: StepClass['effect'];
  /** Why it is destructive; empty when it is not. */
  destructive: string[];
  produces: string[];
  /** Predefined bindings (from config) the step uses: no step produces them. */
  uses_config: string[];
  /** Alternatives of a create (capacity failover), counted. */
  alternatives?: number;
}

/** A binding: the step `from` produces it, the step `to` uses it. */
export interface GraphEdge {
  from: number;
  to: number;
  binding: string;
}

export interface PlanGraph {
  nodes: GraphNode[];
  edges: GraphEdge[];
}

export type GraphFormat = 'text' | 'mermaid' | 'dot';

/** The graph of a validated plan (with its step classes). */
export function planGraph(plan: Plan, classes: readonly StepClass[], providers: ProviderSet, predefined: readonly string[]): PlanGraph {
  const producedBy = new Map<string, number>();
  const nodes: GraphNode[] = [];
  const edges: GraphEdge[] = [];
  plan.commands.forEach((c, index) => {
    const { verb } = providers.verb(c.args[0]!)!;
    const used = [...new Set(c.args.flatMap((a) => placeholdersIn(a)))];
    for (const name of used) {
      const from = producedBy.get(name);
      if (from !== undefined) edges.push({ from, to: index, binding: name });
    }
    const cls = classes[index];
    nodes.push({
      index,
      request: verb.describe(c.args),
      reason: c.reason,
      effect: cls?.effect ?? 'read',
      destructive: cls?.effect === 'destroy' ? cls.reasons : [],
      produces: Object.keys(c.produces ?? {}),
      uses_config: used.filter((n) => predefined.includes(n) && !producedBy.has(n)),
      ...(c.alternatives?.length ? { alternatives: c.alternatives.length } : {}),
    });
    for (const name of Object.keys(c.produces ?? {})) producedBy.set(name, index);
  });
  return { nodes, edges };
}

const MAX_LABEL = 60;
const clip = (s: string) => (s.length > MAX_LABEL ? `${s.slice(0, MAX_LABEL - 1)}…` : s);

function labelLines(n: GraphNode): string[] {
  const lines = [`${n.index} · ${n.destructive.length ? 'DESTRUCTIVE · ' : ''}${n.request}`, n.reason];
  if (n.alternatives) lines.push(`+ ${n.alternatives} alternative${n.alternatives > 1 ? 's' : ''} if no capacity`);
  return lines.filter(Boolean).map(clip);
}

/** Mermaid flowchart source (labels escaped with Mermaid's entity codes); destructive steps styled red. */
export function toMermaid(g: PlanGraph): string {
  const esc = (s: string) => s.replace(/&/g, '#amp;').replace(/"/g, '#quot;').replace(/</g, '#lt;').replace(/>/g, '#gt;');
  const out = ['flowchart TD'];
  for (const n of g.nodes) out.push(`  s${n.index}["${labelLines(n).map(esc).join('<br/>')}"]`);
  for (const e of g.edges) out.push(`  s${e.from} -->|${esc(e.binding)}| s${e.to}`);
  const destructive = g.nodes.filter((n) => n.destructive.length);
  if (destructive.length) {
    out.push('  classDef destructive fill:#fdd,stroke:#c00,stroke-width:2px');
    out.push(`  class ${destructive.map((n) => `s${n.index}`).join(',')} destructive`);
  }
  return out.join('\n') + '\n';
}

/** Graphviz DOT source: destructive steps red and bold. */
export function toDot(g: PlanGraph): string {
  const q = (s: string) => s.replace(/\\/g, '\\\\').replace(/"/g, '\\"');
  const out = ['digraph plan {', '  rankdir=TB;', '  node [shape=box, fontname="monospace"];'];
  for (const n of g.nodes) {
    const style = n.destructive.length ? ', color=red, fontcolor=red, style=bold' : '';
    out.push(`  s${n.index} [label="${labelLines(n).map(q).join('\\n')}"${style}];`);
  }
  for (const e of g.edges) out.push(`  s${e.from} -> s${e.to} [label="${q(e.binding)}"];`);
  out.push('}');
  return out.join('\n') + '\n';
}

/**
 * The graph as text for a terminal, one row per step (git-log style): each binding runs down a lane
 * from the step that produces it (┬) past the steps that use it (├, ┼) to its last use (└, ┴), so the
 * width grows with the bindings alive at once, never with the plan's length.
 */
/** `color`: the palette of the output it goes to (its own codes survive the sink), or false/absent for none. */
export function toText(g: PlanGraph, opts: { ascii?: boolean; color?: Colors | false } = {}): string {
  const sym = opts.ascii
    ? { start: '+', mid: '+', cross: '+', last: '\\', lastCross: '+', pass: '|', line: '-', produces: '=>', uses: '<=' }
    : { start: '┬', mid: '├', cross: '┼', last: '└', lastCross: '┴', pass: '│', line: '─', produces: '⇒', uses: '⇐' };
  const red = (s: string) => (opts.color ? opts.color.red(s) : s);
  // Lanes: a binding from its producer to its last consumer; a freed column is reused.
  const users = new Map<string, number[]>();
  for (const e of g.edges) users.set(`${e.from}:${e.binding}`, [...(users.get(`${e.from}:${e.binding}`) ?? []), e.to]);
  const lanes: ({ key: string; until: number } | undefined)[] = [];
  const laneOf = new Map<string, number>();
  const drawn: { cells: string; connected: boolean; text: string }[] = [];
  let width = 0;
  for (const n of g.nodes) {
    const marks = new Map<number, 'start' | 'use' | 'last'>();
    for (const e of g.edges.filter((x) => x.to === n.index)) {
      const key = `${e.from}:${e.binding}`;
      const lane = laneOf.get(key)!;
      marks.set(lane, users.get(key)!.at(-1) === n.index ? 'last' : 'use');
    }
    for (const name of n.produces) {
      const key = `${n.index}:${name}`;
      const uses = users.get(key);
      if (!uses) continue;
      let lane = lanes.findIndex((l) => l === undefined);
      if (lane === -1) lane = lanes.push(undefined) - 1;
      lanes[lane] = { key, until: uses.at(-1)! };
      laneOf.set(key, lane);
      marks.set(lane, 'start');
    }
    const first = Math.min(...marks.keys());
    let cells = '';
    for (let i = 0; i < lanes.length; i++) {
      const mark = marks.get(i);
      const through = marks.size > 0 && i > first;
      const ch = mark === 'start' ? sym.start : mark === 'use' ? (through ? sym.cross : sym.mid) : mark === 'last' ? (through ? sym.lastCross : sym.last) : lanes[i] ? (through ? sym.cross : sym.pass) : through ? sym.line : ' ';
      cells += ch + (marks.size > 0 && i >= first ? sym.line : ' ');
    }
    width = Math.max(width, lanes.length);
    const used = g.edges.filter((e) => e.to === n.index).map((e) => `${e.binding} (${e.from})`);
    const tail = [n.produces.length ? `${sym.produces} ${n.produces.join(', ')}` : '', used.length ? `${sym.uses} ${used.join(', ')}` : '', n.alternatives ? `+${n.alternatives} alternative${n.alternatives > 1 ? 's' : ''}` : ''].filter(Boolean).join('  ');
    const what = `${n.index}  ${n.destructive.length ? red(`DESTRUCTIVE ${n.request}`) : n.request} ${opts.ascii ? '-' : '—'} ${n.reason}`;
    drawn.push({ cells, connected: marks.size > 0, text: `${what}${tail ? `  ${tail}` : ''}` });
    // Lanes whose last use was this row end here.
    lanes.forEach((l, i) => {
      if (l && l.until <= n.index) lanes[i] = undefined;
    });
    while (lanes.length && lanes[lanes.length - 1] === undefined) lanes.pop();
  }
  // Every row's text starts in one column: the lanes are padded to the widest moment of the plan.
  const rows = drawn.map((d) => `${d.cells.padEnd(width * 2, d.connected ? sym.line : ' ')}${d.connected ? sym.line.repeat(2) : '  '} ${d.text}`.replace(/\s+$/, ''));
  const marked = g.nodes.filter((n) => n.destructive.length);
  if (marked.length) rows.push('', red(`DESTRUCTIVE: ${marked.map((n) => `step ${n.index} (${n.destructive.join('; ')})`).join(', ')}`));
  rows.push('', `${sym.produces} produces, ${sym.uses} uses (step): each binding runs down a lane from the step that produces it to the last step that uses it`);
  return rows.join('\n') + '\n';
}
