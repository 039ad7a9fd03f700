import { z } from 'zod';
import { RunReportSchema } from './run-report.js';
import { AUTOSTOP_ACTIONS } from './plan-bindings.js';

/**
 * The MCP tools' boundaries: what an agent may send (inputs) and the shape of `structuredContent` it
 * gets back (outputs). Credentials are never an argument: the server uses its own configuration.
 */

const question = z.string().trim().min(1).max(4000).describe('The question in plain language, e.g. "which of my H100 instances are idle?"');

/** A plan document (version 1) as a JSON object, or its JSON/YAML text. */
const plan = z
  .union([z.record(z.string(), z.unknown()), z.string().min(1)])
  .describe('A plan document (SPEC 2.4, version 1): {"version":1,"provider":"gpucloud","commands":[{"args":["gpucloud-api","GET","/v1/instances"],"reason":"..."}]}, as an object or as JSON/YAML text');

export const AskInput = { question };
export const RouteInput = { question };
export const ListInput = {
  resource: z.string().trim().min(1).max(100).describe('Resource kind (plural or singular), e.g. instances, clusters, volumes, instance-types, locations, balance, availability'),
};
export const GetInput = {
  kind: z.string().trim().min(1).max(100).describe('Resource kind, e.g. instance, cluster, volume, container, job'),
  id_or_hostname: z.string().trim().min(1).max(500).describe('The resource ID, or its hostname/name'),
};
export const PlanInput = { plan };
export const ApplyInput = {
  plan,
  mode: z
    .enum(['new', 'resume', 'fresh'])
    .default('new')
    .describe('new: refuse if an unfinished or finished run of this plan exists; resume: continue it after its last completed step; fresh: discard it and start again'),
  allow_duplicate_names: z
    .boolean()
    .default(false)
    .describe('Create resources even when their names already exist in the project (by default such a plan is refused before anything is sent)'),
  max_hourly_cost: z
    .number()
    .positive()
    .refine(Number.isFinite, 'expected a finite number')
    .optional()
    .describe("Refuse the plan (budget_exceeded) if its creates would push the account's hourly burn above this, in the account's currency. It can only tighten the server's budget.max_hourly, never loosen it"),
};
export const CostInput = {
  provider: z.enum(['gpucloud']).default('gpucloud').describe('The cloud whose cost to read (gpucloud)'),
  detail: z.boolean().default(false).describe('Also list every billable resource with its hourly cost, how long it has run and what it cost so far'),
};

export const AskOutput = {
  answer: z.string(),
  providers: z.array(z.string()),
  ai_provider: z.string(),
  model: z.string().optional(),
  summarised: z.boolean(),
};
export const RouteOutput = {
  providers: z.array(z.string()),
  reasons: z.array(z.object({ provider: z.string(), terms: z.array(z.string()), note: z.string().optional() })),
  kinds: z.array(z.string()),
  defaulted: z.boolean(),
};
export const ListOutput = { resource: z.string(), count: z.number().int(), items: z.array(z.unknown()) };
export const GetOutput = { kind: z.string(), record: z.record(z.string(), z.unknown()) };
export const ValidateOutput = {
  valid: z.boolean(),
  problems: z.array(z.object({ index: z.number().int().optional(), field: z.string().optional(), message: z.string(), kind: z.string() })),
  destructive_steps: z.array(z.number().int()),
  /** Applying would be refused because the server was not started with --destroyer. */
  needs_destroyer: z.boolean(),
  /** Creates whose names already exist in the project (applying would be refused without allow_duplicate_names). */
  duplicate_names: z.array(z.object({ index: z.number().int(), kind: z.string(), name: z.string(), existing_ids: z.array(z.string()) })).optional(),
  preview: z.unknown().optional(),
};
export const ApplyOutput = RunReportSchema.shape;

const costResource = z.object({
  kind: z.string(),
  id: z.string(),
  name: z.string(),
  type: z.string(),
  status: z.string(),
  spot: z.boolean().optional(),
  gpus: z.number().optional(),
  size_gb: z.number().optional(),
  hourly_cost: z.number().nullable(),
  created_at: z.string().optional(),
  tags: z.record(z.string(), z.string()).optional(),
  tag_from: z.string().optional(),
  hours_running: z.number().optional(),
  cost_so_far: z.number().nullable().optional(),
});
export const CostOutput = {
  provider: z.string(),
  currency: z.string(),
  as_of: z.string(),
  based_on: z.string(),
  hourly_cost: z.number(),
  daily_cost: z.number(),
  /** The current burn over a 30-day month (720 h). */
  monthly_forecast: z.number(),
  balance: z.number().nullable(),
  runway_hours: z.number().nullable(),
  runway_until: z.string().nullable(),
  resource_count: z.number().int(),
  /** Only with detail: true. */
  resources: z.array(costResource).optional(),
  unpriced: z.array(z.string()),
};

/** assistant_credentials_test (issue 26): whether the server's credentials work; never a value. */
export const CredentialsTestInput = {
  provider: z.enum(['gpucloud']).default('gpucloud').describe('The provider whose credentials to check (gpucloud)'),
};
export const CredentialsTestOutput = {
  provider: z.string(),
  ok: z.boolean(),
  /** Where the credentials came from (config, env, credentials-file, backend …); never the values. */
  source: z.string(),
  balance: z.unknown().optional(),
};

// ---- idle auto-stop (issue 31 §2): what the check would do, never an action ------------------------
export const AutostopStatusInput = {};
export const AutostopStatusOutput = {
  checked_at: z.string(),
  allow_delete: z.boolean(),
  allow_hibernate: z.boolean(),
  instances: z.array(
    z.object({
      id: z.string(),
      hostname: z.string(),
      status: z.string(),
      ip: z.string().nullable(),
      policy: z.object({ idle_minutes: z.number(), action: z.enum(AUTOSTOP_ACTIONS) }).nullable(),
      idle_minutes: z.number().nullable(),
      last_activity: z.string().nullable(),
      activity: z.string().nullable(),
      decision: z.string(),
      detail: z.string(),
    }),
  ),
};

// Issue 31: drift and pictures.
export const DiffInput = {
  plan,
  all: z.boolean().default(false).describe('Also list resources in the project that no step of the plan makes or acts on (they count as drift)'),
};
const driftEntry = z.object({
  provider: z.string(),
  kind: z.string(),
  name: z.string().optional(),
  id: z.string().optional(),
  step: z.number().int().optional(),
  state: z.enum(['in_sync', 'missing', 'different', 'unowned']),
  differences: z.array(z.object({ field: z.string(), plan: z.string(), live: z.string() })),
  note: z.string().optional(),
});
export const DiffOutput = {
  drift: z.boolean(),
  counts: z.object({ in_sync: z.number().int(), missing: z.number().int(), different: z.number().int(), unowned: z.number().int() }),
  resources: z.array(driftEntry),
  not_checked: z.array(z.string()),
};
export const GraphInput = {
  plan,
  format: z.enum(['text', 'mermaid', 'dot']).default('mermaid').describe('mermaid (default) or dot for documentation, text for a terminal'),
};
export const GraphOutput = {
  format: z.string(),
  rendered: z.string(),
  nodes: z.array(z.object({ index: z.number().int(), request: z.string(), reason: z.string(), effect: z.string(), destructive: z.array(z.string()), produces: z.array(z.string()), uses_config: z.array(z.string()), alternatives: z.number().int().optional() })),
  edges: z.array(z.object({ from: z.number().int(), to: z.number().int(), binding: z.string() })),
};
export const MatrixInput = {
  resource: z.enum(['availability', 'cluster-availability']).default('availability').describe('Instance types (availability, with spot) or Instant Cluster types (cluster-availability) × locations'),
};
export const MatrixOutput = {
  kind: z.string(),
  currency: z.string(),
  locations: z.array(z.string()),
  rows: z.array(z.object({ type: z.string(), gpu: z.string(), price_per_hour: z.number().nullable(), spot_price: z.number().nullable(), cells: z.record(z.string(), z.object({ on_demand: z.boolean(), spot: z.boolean() })) })),
};
const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'a date written YYYY-MM-DD');
export const TrendInput = {
  start: day.optional().describe('First day (UTC), YYYY-MM-DD; default 6 days before end'),
  end: day.optional().describe('Last day (UTC), YYYY-MM-DD; default today'),
};
export const TrendOutput = {
  provider: z.string(),
  currency: z.string(),
  start: z.string(),
  end: z.string(),
  as_of: z.string(),
  based_on: z.string(),
  total: z.number(),
  days: z.array(z.object({ date: z.string(), cost: z.number(), hours: z.number(), average_hourly: z.number().nullable(), basis: z.string(), measured_hours: z.number(), snapshots: z.number().int(), balance_end: z.number().nullable() })),
  notes: z.array(z.string()),
  balance: z.number().nullable(),
  runway_hours: z.number().nullable(),
  runway_until: z.string().nullable(),
};
