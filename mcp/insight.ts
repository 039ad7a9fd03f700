/**
 * The MCP side of issue 31 (drift and pictures): plan diff, the plan graph, the availability matrix and
 * the cost trend, each over the same engine functions as the CLI. Reads are plans run through the
 * executor; nothing here changes anything.
 */
import { readSnapshots } from '../engine/producers/cost/snapshots.js';
import { costTrend, parseDay } from '../engine/producers/cost/trend.js';
import { buildMatrix, matrixPlan, renderMatrix, type MatrixKind } from '../engine/producers/charts/availability-matrix.js';
import { renderTrendChart } from '../engine/producers/charts/cost-trend.js';
import { planGraph, toDot, toMermaid, toText, type GraphFormat } from '../engine/producers/charts/plan-graph.js';
import { planDrift } from '../engine/producers/drift/plan-diff.js';
import { renderDrift } from '../engine/producers/drift/render.js';
import { tableAt } from '../engine/core/render/records.js';
import { InvalidInputError } from '../engine/core/errors.js';
import { formatProblems, validatePlan } from '../engine/core/plan/validate.js';
import { liveCostProvider, readLiveCost } from '../machines/cost/cost.js';
import { readPlan, readResult } from '../machines/apply/reads.js';
import { PREDEFINED_BINDINGS } from '../schemas/plan.js';
import type { McpBackend } from './backend.js';

const WIDTH = 160;
const DAY = 86_400_000;

export async function driftTool(backend: McpBackend, plan: unknown, all: boolean, signal: AbortSignal) {
  const report = await planDrift(backend, plan, { all, read: (p) => readResult(backend, p, { signal }) });
  return { text: renderDrift(report, tableAt(WIDTH)), structured: report };
}

export async function graphTool(backend: McpBackend, plan: unknown, format: GraphFormat) {
  const providers = await backend.providers.forPlan(plan);
  const v = validatePlan(plan, { providers, destroyer: true, predefined: [...new Set([...Object.keys(backend.predefined), ...PREDEFINED_BINDINGS])] });
  if (!v.ok) throw new InvalidInputError('invalid_plan', `the plan is invalid:\n${formatProblems(v.problems)}`);
  const graph = planGraph(v.plan!, v.classes, providers, PREDEFINED_BINDINGS);
  const rendered = format === 'mermaid' ? toMermaid(graph) : format === 'dot' ? toDot(graph) : toText(graph);
  return { text: rendered, structured: { format, rendered, ...graph } };
}

export async function matrixTool(backend: McpBackend, kind: MatrixKind, signal: AbortSignal) {
  const m = buildMatrix(kind, await readPlan(backend, matrixPlan(kind), { signal }));
  return { text: renderMatrix(m, tableAt(WIDTH)), structured: m };
}

export async function trendTool(backend: McpBackend, range: { start?: string; end?: string }, signal: AbortSignal) {
  const day = (flag: string, v: string | undefined) => {
    if (v === undefined) return undefined;
    const ms = parseDay(v);
    if (ms === undefined) throw new InvalidInputError('invalid_date', `${flag} must be a date written YYYY-MM-DD (got "${v}")`);
    return ms;
  };
  const end = day('end', range.end) ?? Math.floor(Date.now() / DAY) * DAY;
  const start = day('start', range.start) ?? end - 6 * DAY;
  if (start > end || (end - start) / DAY + 1 > 366) throw new InvalidInputError('invalid_date', 'start must not be after end, and the range covers at most 366 days');
  // The account the snapshots are kept under comes from the provider's own cost capability.
  const { summary: s, account } = await readLiveCost(backend, await liveCostProvider(), { home: backend.home, env: backend.env, sandbox: backend.sandbox, signal });
  const { snapshots } = await readSnapshots(backend.home, s.provider, account);
  const t = costTrend({ provider: s.provider, currency: s.currency, snapshots, resources: s.resources, start, end, now: Date.parse(s.as_of) });
  return { text: renderTrendChart(t, { columns: WIDTH, color: false, now: s }), structured: { ...t, runway_hours: s.runway_hours, runway_until: s.runway_until, balance: s.balance } };
}
