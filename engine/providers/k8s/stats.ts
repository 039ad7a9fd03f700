/**
 * `k8s stats`: usage from the metrics API (metrics-server) against the nodes' allocatable capacity,
 * as rows with numbers (cores, bytes, percent) that tables format and `-o json` keeps as numbers.
 */
import type { Column } from '../../core/render/columns.js';
import { parseQuantity } from './quantity.js';

export interface StatsRow {
  name: string;
  namespace?: string;
  cpu_cores: number;
  memory_bytes: number;
  cpu_allocatable_cores?: number;
  memory_allocatable_bytes?: number;
  cpu_percent?: number;
  memory_percent?: number;
  nodes?: number;
  pods?: number;
}

type Item = Record<string, any>;
const items = (list: unknown): Item[] => ((list as { items?: unknown })?.items as Item[] | undefined) ?? [];
const pct = (used: number, of: number | undefined) => (of && of > 0 ? Math.round((used / of) * 1000) / 10 : undefined);

export function nodeRows(metrics: unknown, nodes: unknown): StatsRow[] {
  const allocatable = new Map(items(nodes).map((n) => [String(n.metadata?.name), n.status?.allocatable ?? {}]));
  return items(metrics).map((m) => {
    const name = String(m.metadata?.name);
    const alloc = allocatable.get(name) ?? {};
    const cpu = parseQuantity(m.usage?.cpu) ?? 0;
    const memory = parseQuantity(m.usage?.memory) ?? 0;
    const cpuAlloc = parseQuantity(alloc.cpu);
    const memAlloc = parseQuantity(alloc.memory);
    return { name, cpu_cores: cpu, memory_bytes: memory, cpu_allocatable_cores: cpuAlloc, memory_allocatable_bytes: memAlloc, cpu_percent: pct(cpu, cpuAlloc), memory_percent: pct(memory, memAlloc) };
  });
}

export function podRows(metrics: unknown): StatsRow[] {
  return items(metrics).map((m) => {
    const containers: Item[] = m.containers ?? [];
    return {
      name: String(m.metadata?.name),
      namespace: m.metadata?.namespace,
      cpu_cores: containers.reduce((s, c) => s + (parseQuantity(c.usage?.cpu) ?? 0), 0),
      memory_bytes: containers.reduce((s, c) => s + (parseQuantity(c.usage?.memory) ?? 0), 0),
    };
  });
}

export function clusterRow(context: string, metrics: unknown, nodes: unknown): StatsRow {
  const rows = nodeRows(metrics, nodes);
  const sum = (f: (r: StatsRow) => number | undefined) => rows.reduce((s, r) => s + (f(r) ?? 0), 0);
  const cpu = sum((r) => r.cpu_cores);
  const memory = sum((r) => r.memory_bytes);
  const cpuAlloc = sum((r) => r.cpu_allocatable_cores);
  const memAlloc = sum((r) => r.memory_allocatable_bytes);
  return { name: context, nodes: rows.length, cpu_cores: cpu, memory_bytes: memory, cpu_allocatable_cores: cpuAlloc, memory_allocatable_bytes: memAlloc, cpu_percent: pct(cpu, cpuAlloc), memory_percent: pct(memory, memAlloc) };
}

/** Highest usage first for cpu|memory; by namespace and name otherwise. */
export function sortRows(rows: StatsRow[], by: string | undefined): StatsRow[] {
  const key = by === 'cpu' ? (r: StatsRow) => r.cpu_cores : by === 'memory' ? (r: StatsRow) => r.memory_bytes : undefined;
  return [...rows].sort((a, b) => (key ? key(b) - key(a) : 0) || `${a.namespace ?? ''}/${a.name}`.localeCompare(`${b.namespace ?? ''}/${b.name}`));
}

export function statsColumns(what: 'nodes' | 'pods' | 'cluster'): Column[] {
  const cols: Column[] = [];
  if (what === 'pods') cols.push({ header: 'NAMESPACE', path: 'namespace', priority: 7 });
  cols.push({ header: what === 'cluster' ? 'CLUSTER' : 'NAME', path: 'name', priority: 10 });
  if (what === 'cluster') cols.push({ header: 'NODES', path: 'nodes', priority: 6 });
  cols.push({ header: 'CPU(cores)', path: 'cpu', priority: 9 });
  if (what !== 'pods') cols.push({ header: 'CPU%', path: 'cpu_pct', priority: 8 });
  cols.push({ header: 'MEMORY(bytes)', path: 'memory', priority: 9 });
  if (what !== 'pods') cols.push({ header: 'MEMORY%', path: 'memory_pct', priority: 8 });
  return cols;
}
