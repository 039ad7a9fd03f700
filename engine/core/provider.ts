/**
 * The provider contract: everything the plan engine needs to know about a cloud, and nothing more.
 *
 * The engine's core (engine/core/plan/, machines/run/run-plan.ts) receives a list of providers from the surface
 * that runs it (commands/, the MCP server) and never imports one, the way Terraform's core receives
 * provider factories. A provider owns its step verbs, the classification of each step (from which the
 * destroyer gate, the dry run, the duplicate-name check and the journal's exactly-once guard all read),
 * its price preview, its duplicate-name lookup, and how its client is built (lazily, on first use).
 */

import type { PlanAlternative } from '../../schemas/plan.js';

export type { FetchLike } from './fetch-like.js';
import type { FetchLike } from './fetch-like.js';
import { loadPlanChecks } from './plan/shape.js';

/** One problem found in a command's args before anything is sent. */
export interface ArgProblem {
  field: string;
  message: string;
}

/**
 * A step's request in its one canonical form (DESIGN §8): made once per step by its verb
 * (`StepVerb.canonical`) when the plan is validated, carried on the checked plan beside the step's class,
 * and read by everything that judges the step (the destroyer gate, the pricer, the name check and
 * reservation, drift, failover, the report and what a person is asked to consent to) instead of its
 * args. The verb sends exactly this request, so what was judged is what the server gets.
 */
export interface CanonicalRequest {
  /** The method as the server gets it (HTTP: upper case). */
  method: string;
  /** The decoded path (placeholders kept until they are bound). */
  path: string;
  /**
   * The route the path is (`/v1/container-deployments/{name}/scaling`): a binding that would make the
   * step another route (or method) at run time is refused before it is sent.
   */
  route: string;
  /** Query keys and their decoded values, in order. */
  query: readonly (readonly [string, string])[];
  /** The body with its keys folded the way the API's decoder folds them; absent when there is none. */
  body?: unknown;
}

/** A step's canonical request, or why it has none (the plan is invalid: exit 2, naming the step and the field). */
export type CanonicalForm = { ok: true; request: CanonicalRequest } | { ok: false; field: string; problem: string };

/** What a step does to the world, decided from its parsed arguments only (never from reasons or labels). */
export type StepEffect = 'read' | 'create' | 'update' | 'destroy';

export interface StepClass {
  effect: StepEffect;
  /** The resource kind the step acts on, where known (e.g. `instances`). */
  kind?: string;
  /** For a create: the name of the resource it makes, when the provider can tell (duplicate-name check, exactly-once). */
  name?: string;
  /** Where that name stands in the args, for messages (`args[3].hostname`). */
  nameAt?: string;
  /** For a destroy: why, one reason per destructive part (the gate prints them). Empty otherwise. */
  reasons: string[];
  /**
   * Why the step may never run from a plan, `--destroyer` or not: it would read or write the user's
   * files, or change a CLI's own configuration or credentials. Validation refuses the plan (exit 3).
   * A refused step is also classified `destroy`, so a consumer that knows only `effect` stays safe.
   */
  refused?: string[];
}

/** The reason every allowlist gives an operation it does not name (DESIGN §7: default deny). */
export const NOT_KNOWN_SAFE = 'not known to be safe';

/** The class of an operation no allowlist row names: destructive, and said so in the dry run. */
export function unknownStep(what: string, kind?: string): StepClass {
  return { effect: 'destroy', kind, reasons: [`${what}: ${NOT_KNOWN_SAFE} (not in the allowlist of harmless operations)`] };
}

/** The class of a step that may never run from a plan (the reasons say what it would touch). */
export function refusedStep(reasons: string[], kind?: string): StepClass {
  return { effect: 'destroy', kind, reasons, refused: reasons };
}

/**
 * A small typed allowlist: rows tried in order, the first whose `match` accepts the input decides;
 * no row matching is `unknownStep` (default deny). Providers whose classification is a table of
 * named forms (ssh-exec templates) use it; the CLI providers' tables (engine/core/kits/cli/rules.ts) follow the
 * same rule with their own row shape.
 */
export interface ClassRow<In> {
  name: string;
  effect: StepEffect | 'refused';
  why: string;
  match(input: In): boolean;
}

export function classifyByTable<In>(rows: readonly ClassRow<In>[], input: In, what: string, kind?: string): StepClass & { row?: string } {
  const row = rows.find((r) => r.match(input));
  if (!row) return unknownStep(what, kind);
  if (row.effect === 'refused') return { ...refusedStep([`${what}: ${row.why}`], kind), row: row.name };
  if (row.effect === 'destroy') return { effect: 'destroy', kind, reasons: [`${what}: ${row.why}`], row: row.name };
  return { effect: row.effect, kind, reasons: [], row: row.name };
}

export interface StepResult {
  /** HTTP status when the step made an HTTP call. */
  status?: number;
  /** The value `produces` JSONPaths are evaluated against, and what renderers show. */
  data: unknown;
  attempts?: number;
  deduplicated?: boolean;
  /**
   * The step is not finished: the thing it waits for is not there yet (a cluster still provisioning).
   * The run machine waits `afterMs` in its `waiting` state and runs the step again.
   */
  pending?: { afterMs: number; status: string };
  /** For a create with `alternatives`: which choice was made, and what happened to the ones tried before it. */
  alternative?: AlternativeUsed;
  /**
   * Values the step produced that are secrets (a created access key, a password, a join token). The
   * verb registers them for redaction, so every output and the journal mask them; a step with
   * `reveal: true` has them printed on the CLI's stdout (never through MCP).
   */
  secrets?: { path: string; value: string }[];
}

/** The choice a create with alternatives made (0: as written; n: the plan's alternatives[n-1]). */
export interface AlternativeUsed {
  index: number;
  /** The values that choice created with (instance type, location, spot). */
  values: Record<string, string | boolean>;
  /** Choices tried before it, each with why it was passed over (not available, service_unavailable, no_capacity). */
  tried: { index: number; values: Record<string, string | boolean>; outcome: string }[];
}

/** Something a run is waiting for, said as it happens (progress lines, MCP progress, --debug). */
export interface WaitNotice {
  reason: 'rate-limit' | 'retry-after' | 'retry' | 'create-lookup' | 'poll' | 'lock' | 'failover';
  waitMs: number;
  message: string;
}

/** Everything a run reports while it goes; one observer serves the CLI progress, MCP progress and --debug. */
export type RunEvent =
  | { type: 'step-started'; index: number; total: number; description: string; reason: string }
  | { type: 'step-done'; index: number; total: number; status?: number; durationMs: number; produced: Record<string, string>; deduplicated?: boolean }
  | { type: 'step-failed'; index: number; total: number; error: unknown }
  | { type: 'waiting'; index?: number; wait: WaitNotice }
  | { type: 'resumed'; completed: number };

export type RunObserver = (event: RunEvent) => void;

/** What a step's verb gets to run with. */
export interface StepContext<Client = unknown> {
  /** The provider's client, built on first use. */
  client(): Promise<Client>;
  signal: AbortSignal;
  /** Told what the step waits for (rate limits, retries); the observer of the run. */
  waiting(notice: WaitNotice): void;
  /** For a create of a journaled run: the IDs that carried its name before it was sent (exactly-once). */
  existingIds?: readonly string[];
  /** For a polling step: when its first poll started (ms since epoch), so the verb keeps its own deadline. */
  pollingSince?: number;
  /** The command's `alternatives` (a verb that has checkAlternatives): other choices for a create without capacity. */
  alternatives?: readonly PlanAlternative[];
  /** The step's canonical request (verbs with `canonical`), bindings substituted: what the verb sends. */
  request?: CanonicalRequest;
}

/** A plan step verb: its own argument checks, its classification, and how it runs. */
export interface StepVerb<Client = unknown> {
  verb: string;
  checkArgs(args: readonly string[]): ArgProblem[];
  /**
   * The step's canonical request, or why it has none (then the plan is invalid, exit 2). Called once per
   * step when the plan is validated, and again only for a step whose bindings changed it at run time. A
   * verb without it has no request form; its classification reads the args.
   */
  canonical?(args: readonly string[]): CanonicalForm;
  /**
   * What the step does, from its canonical request when the verb has one (given by validation), else
   * from the args as written: a placeholder in a position that decides the effect makes the step a
   * `destroy` (the gate refuses before the first request).
   */
  classify(args: readonly string[], request?: CanonicalRequest): StepClass;
  /** Which args may hold placeholders and how each is substituted. */
  substitute(args: readonly string[], bindings: Record<string, string>): string[];
  run(args: readonly string[], ctx: StepContext<Client>): Promise<StepResult>;
  /** One-line human description of the step (progress, dry runs, reports), from its canonical request when it has one. */
  describe(args: readonly string[], request?: CanonicalRequest): string;
  /** What a dry run shows under the description (e.g. the parsed request body). */
  detail?(args: readonly string[]): unknown;
  /**
   * The static checks of a command's `autostop` (idle auto-stop, engine/core/kits/autostop/), given the commands
   * before it; a verb without it takes none (the plan is invalid).
   */
  checkAutostop?(args: readonly string[], autostop: import('../../schemas/plan.js').AutostopPolicy, earlier: readonly { args: string[]; produces?: Record<string, string> }[]): ArgProblem[];
  /**
   * The static checks of a command's `alternatives`; a verb without it takes none (the plan is invalid).
   * Checks against the live catalogue belong to the provider's preview (dry runs) and its makers.
   */
  checkAlternatives?(args: readonly string[], alternatives: readonly PlanAlternative[], request?: CanonicalRequest): ArgProblem[];
}

/** A record as the duplicate-name check and exactly-once see it. */
export interface NamedRecord {
  id: string;
  name: string;
  createdAt?: string;
  /** The record as the API returned it. */
  record: unknown;
}

/** How the engine finds existing names and the resources a create made. */
export interface NameLookup<Client = unknown> {
  /**
   * Every record of `kind` that has a name (one call per kind and scope per run; the engine caches it),
   * where `scope` says (see `scopeOf`); without it, where the provider's client points.
   */
  list(kind: string, client: Client, signal: AbortSignal, scope?: readonly string[]): Promise<NamedRecord[]>;
  /**
   * Where a create step acts, when the provider's records live in more than one place and the step can
   * name one (cloud_a: its own `--region` and `--profile`): its name is checked, and an interrupted create
   * looked for, there. Undefined: where the client points by default.
   */
  scopeOf?(args: readonly string[]): string[] | undefined;
  /**
   * The read step that lists `kind` and the named records in its response: a dry run then lists a kind
   * once for the name check and the burn (the same read, sent once through the executor).
   */
  listStep?(kind: string): string[] | undefined;
  fromList?(kind: string, data: unknown): NamedRecord[];
  /** The ID in a create step's response (bare text, `{"id": …}`, or a record). */
  createdId(kind: string, data: unknown): string | undefined;
  /** What the create would have answered, for a record found after an interrupted create. */
  responseFor(kind: string, found: NamedRecord): unknown;
}

/** One line of a dry run's cost table. */
export interface CostLine {
  step: number;
  kind: string;
  type: string;
  location?: string;
  /** Priced at the spot price. */
  spot?: boolean;
  /** Storage: the size priced (GB). */
  size_gb?: number;
  /** What a line belongs to, when it is part of a bigger create (`OS volume`, `shared volume`). */
  part?: string;
  /** How many of it the line counts (replicas a deployment may run, instances a create starts). */
  count?: number;
  per_hour?: number;
  per_30_days?: number;
  available?: boolean;
  note?: string;
  /**
   * A create with alternatives: every choice priced (its availability too). The line itself is the most
   * expensive of them, which is what the totals and the budget guard count.
   */
  choices?: (Omit<CostLine, 'choices' | 'step'> & { choice: number })[];
}

/** What one change step costs, from its canonical request (DESIGN §8: priced or refused). */
export type ChangePrice =
  | { price: 'priced'; per_hour: number; lines: CostLine[] } // per_hour: the hourly difference the step makes (a scale-up: new − old)
  | { price: 'free'; why: string }                           // proven free: a read, a delete, a stop, a rename…
  | { price: 'unpriced'; why: string };                      // a change the provider cannot price: refused under a budget

/**
 * What a change step asks for, read from its canonical request (never from the plan's words): what a
 * person is shown before consenting, and what the plan's `reason` is checked against.
 */
export interface RequestFacts {
  /** One line per thing it asks for: `instance 8H100.80S.176V in FIN-03`, `OS volume NVMe 100 GB`. */
  lines: string[];
  /** The type names it asks for (instance, cluster, volume or compute types). */
  types: string[];
  /** Every type name the catalogue knows for those kinds: a reason naming one the request does not ask for is flagged. */
  known_types: string[];
  /** The sizes (GB) it asks for. */
  sizes_gb: number[];
  /** The counts it asks for (replicas, instances). */
  counts: number[];
}

/** A provider's answer for one change step: its price and, where the provider reads them, its facts. */
export interface StepPrice {
  step: number;
  price: ChangePrice;
  facts?: RequestFacts;
}

/**
 * A provider's share of a dry run: one price per change step it was given (every step that is not a
 * read; a change step it leaves out counts as unpriced), and what to warn about (balance, availability).
 * The dry run's cost table is the lines of the priced ones.
 */
export interface PricePreview {
  changes: StepPrice[];
  balance?: { amount: number; currency: string; hours_covered?: number };
  warnings: string[];
}

/** A step as the pricer, drift and consent see it: its args, class and canonical request. */
export interface PlannedStep {
  index: number;
  args: string[];
  class: StepClass;
  request?: CanonicalRequest;
  alternatives?: readonly PlanAlternative[];
}

/** A read the preview needs, run through the executor like any plan step. */
export type PreviewRead = (args: string[]) => Promise<unknown>;

/** What the account of a provider burns now (the budget guard's "before"), in the account's currency. */
export interface Burn {
  per_hour: number;
  currency: string;
  /** Resources it could not price (left out of per_hour). */
  unpriced: string[];
}

/** How a surface builds a provider's client (configuration, environment, diagnostics). */
export interface ConnectOptions {
  config: import('../../schemas/config.js').Config;
  env: Record<string, string | undefined>;
  home: string;
  configPath?: string;
  debug?: (line: string) => void;
  /** Per-request timeout in ms. */
  timeoutMs?: number;
  warn?: (message: string) => void;
  /** Check the credentials afresh: no cached token is used or kept (`credentials test`). */
  freshCredentials?: boolean;
  /** The environment (or profile) chosen with `--profile` for CLI providers (cloud_a: infra.cloud_a.environments.<name>). */
  profile?: string;
  /** `--region` of a command that names one (k8s: the region an exec credential plugin such as `aws eks get-token` uses). */
  region?: string;
  /** A stand-in endpoint with its own credentials (the sandbox emulator), reached through its own `fetch` when it has one. */
  override?: { baseUrl: string; credentials: Record<string, string>; fetch?: FetchLike; tokenCacheDir?: string };
  /** The command's signal: credential look-ups over the network (the backend store) obey it. */
  signal?: AbortSignal;
  /** Credentials from the backend store only, not the local sources (`credentials test` of what is stored). */
  backendOnly?: boolean;
  /**
   * The fields of this provider's record in the backend store (its `credentials` capability's fields),
   * held by the backend server for one signed-in tenant and env (the console's live page). The client
   * uses these and nothing else: no local source is read, nothing derived from them is cached on disk;
   * the API's URL comes from `config`/`env` (the server's), never from the tenant.
   */
  stored?: Record<string, string>;
  /** `--files DIR`: the only place a plan step may read a local file from (`<FILES>/name` in its args). */
  filesDir?: string;
  /**
   * The user's opt-ins to code from their own workspaces (a terraform plan runs the workspace's providers
   * and data sources): `plan` (`ask --terraform-plan`) lets a read compute what an apply would change,
   * contained (engine/core/process/contain.ts); `unsandboxed` (`--unsandboxed`) lets such code run as a
   * plain process where no sandbox can be made. Read-only surfaces (MCP) never set them.
   */
  workspaceCode?: { plan?: boolean; unsandboxed?: boolean };
}

export interface ProviderClient<Client> {
  client: Client;
  /** Where the credentials came from, for `credentials test`. */
  source: string;
  /** Releases what the client holds open (connections to a shared rate-limit store). */
  close?(how?: ClientClose): Promise<void>;
}

export interface ClientClose {
  /**
   * The process exits right after (a CLI command's session ends): a client may leave to the exit what
   * other processes can tell from it (a shared rate-limit record entry whose holder's pid is gone).
   */
  processEnding?: boolean;
}

export interface Provider<Client = unknown> {
  /** The name plans use in `provider` (`gpucloud`). */
  name: string;
  verbs: readonly StepVerb<Client>[];
  /** Builds the client; called at most once per session, on the first step that needs it. */
  connect(opts: ConnectOptions): Promise<ProviderClient<Client>>;
  /** Duplicate-name lookup and exactly-once creates; without it creates are not checked for names. */
  names?: NameLookup<Client>;
  /**
   * Prices every change step of the plan's steps of this provider from its canonical request (priced,
   * free or unpriced), with the reads it needs (dry run, budget guard, consent). A provider without it
   * cannot price: under a budget its change steps are refused unless unpriced changes are allowed.
   */
  preview?(steps: readonly PlannedStep[], read: PreviewRead, predefined: Record<string, string>): Promise<PricePreview>;
  /**
   * The account's current hourly burn, with the reads it needs. With `preview` it lets the budget guard
   * (engine/core/plan/budget.ts) refuse a plan whose creates would push the burn above `budget.max_hourly`;
   * a provider without it is not counted by the guard (its plans' costs are unknown to it, and said so).
   */
  burn?(read: PreviewRead): Promise<Burn>;
  /**
   * Drift (`plan diff`): what the plan's steps of this provider leave behind compared with what exists
   * now, per resource, read through the executor; with `all`, also the resources no step owns.
   */
  drift?(
    steps: readonly (PlannedStep & { produces?: Record<string, string> })[],
    read: PreviewRead,
    predefined: Record<string, string>,
    opts: { all: boolean },
  ): Promise<import('./drift-types.js').DriftEntry[]>;
  /**
   * What the provider can do above running steps (answer questions, make plans, store credentials, run
   * in the sandbox…): commands ask the registry which providers have a capability instead of naming them.
   */
  capabilities?: import('./capabilities.js').ProviderCapabilities;
}

/**
 * What a surface hands the plan engine: the providers a plan needs, loaded. A `ProviderSet` is one (it
 * answers with itself); the build's registry (engine/providers/index.ts) is the other, which imports a
 * provider's module only when a plan first names it. Await `forPlan` before validating: validation and
 * the run machine look providers up synchronously, and it imports what validating that plan needs
 * besides (PlanSchema, jsonpath-plus: engine/core/plan/shape.ts).
 */
export interface ProviderSource {
  forPlan(input: unknown): Promise<ProviderSet>;
  /** Every provider (what looks beyond a plan's own providers: `plan diff --all`). */
  all(): Promise<ProviderSet>;
}

/** Every provider and step verb a build knows, loaded or not (for messages: "known: …"). */
export interface KnownProviders {
  names: readonly string[];
  /** Verb → the name of the provider that owns it. */
  verbs: ReadonlyMap<string, string>;
}

/** The providers a plan is validated and run with, by name and by verb. */
export class ProviderSet implements ProviderSource {
  private readonly byVerb = new Map<string, { provider: Provider<any>; verb: StepVerb<any> }>();
  private readonly byName = new Map<string, Provider<any>>();

  private readonly providers: Provider<any>[] = [];

  /**
   * `known`: what the whole build knows, when this set holds only some of it (the registry's sets). A
   * verb the build knows but this set did not load is a bug of the surface (it validated before loading),
   * never an "unknown verb": looking it up throws.
   */
  constructor(
    list: readonly Provider<any>[],
    private readonly known?: KnownProviders,
  ) {
    for (const provider of list) this.add(provider);
  }

  get list(): readonly Provider<any>[] {
    return this.providers;
  }

  /** Adds a provider (a registered stand-in); its name and verbs must be new. */
  add(provider: Provider<any>): void {
    if (this.byName.has(provider.name)) throw new Error(`provider ${provider.name} is registered already`);
    for (const verb of provider.verbs) if (this.byVerb.has(verb.verb)) throw new Error(`step verb ${verb.verb} belongs to ${this.byVerb.get(verb.verb)!.provider.name} already`);
    this.providers.push(provider);
    this.byName.set(provider.name, provider);
    for (const verb of provider.verbs) this.byVerb.set(verb.verb, { provider, verb });
  }

  async forPlan(input: unknown): Promise<ProviderSet> {
    await loadPlanChecks(input);
    return this;
  }

  async all(): Promise<ProviderSet> {
    await loadPlanChecks(undefined, true);
    return this;
  }

  provider(name: string): Provider<any> | undefined {
    const provider = this.byName.get(name);
    if (!provider && this.known?.names.includes(name)) throw notLoaded(name);
    return provider;
  }

  /** The verb and its provider for a step's first argument. */
  verb(verb: string): { provider: Provider<any>; verb: StepVerb<any> } | undefined {
    const found = this.byVerb.get(verb);
    if (!found) {
      const owner = this.known?.verbs.get(verb);
      if (owner !== undefined) throw notLoaded(owner, verb);
    }
    return found;
  }

  /** Every provider name the build knows (loaded or not). */
  names(): string[] {
    return this.known ? [...this.known.names] : [...this.byName.keys()];
  }

  /** Every step verb the build knows (loaded or not). */
  verbs(): string[] {
    return this.known ? [...this.known.verbs.keys()] : [...this.byVerb.keys()];
  }
}

function notLoaded(provider: string, verb?: string): Error {
  return new Error(`internal: provider "${provider}"${verb ? ` (verb ${verb})` : ''} is not loaded; a surface must await providers.forPlan(plan) before validating or running it`);
}
