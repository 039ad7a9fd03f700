/**
 * What a provider can do above running plan steps (issue 23): each capability optional and typed, so
 * that commands ask the registry "who can answer, make, price, deploy, store credentials, run in the sandbox"
 * instead of naming providers. A new cloud is one folder: its provider module exports a `Provider` whose
 * `capabilities` say what it offers, and one manifest entry (engine/providers/index.ts) lists their names so
 * a command can choose providers without loading any.
 */
import type { Config } from '../../schemas/config.js';
import type { Plan, PlanCommand } from '../../schemas/plan.js';
import type { CredentialsCapability } from './credentials-capability.js';
import type { FetchLike } from './fetch-like.js';
import type { TableSpec } from './render/columns.js';
import type { HibernationPeriod, HibernationSavings } from './kits/autostop/hibernation-periods.js';

export type * from './credentials-capability.js';

/** One fetched result of a context read: the step's args, what it read (a kind), its parsed response. */
export interface ContextResult {
  kind: string;
  args: string[];
  data: unknown;
}

/** A word of a provider's vocabulary, with the kind of thing it asks about when it says one (`volumes`). */
export type RouteWord = string | { term: string; kind?: string };

/** Words that send a question to a provider. */
export interface RoutingCapability {
  /** The provider's names (`aws`, `amazon`): select it outright. */
  names: readonly string[];
  /** Words only this provider uses (`ec2`, `s3`, `bucket`): select it outright. */
  specific: readonly RouteWord[];
  /** Words other providers share (`instances`, `price`): select it only when no provider was named outright. */
  generic?: readonly RouteWord[];
  /**
   * Whether the generic words count with this config (an integration that is not set up is not guessed
   * from common words like "errors" or "issues"; its names, specific words and flag still select it).
   * Absent: they always count.
   */
  genericWhen?(config: Config): boolean;
  /**
   * Technologies this provider sells too (`kubernetes`, `serverless`): they route nowhere by themselves,
   * but no later provider may take them (or a phrase containing one of this provider's words) as a
   * generic word — "which k8s clusters do I have" is not about cloud_a alone.
   */
  shared?: readonly string[];
  /** Patterns (instance-type codes, with the `g` flag) with a label for `--route-only`; they select it outright. */
  patterns?: readonly { label: string; pattern: RegExp; kind?: string }[];
  /** Extra specific words from the config (cloud_a `service_keywords`). */
  fromConfig?(config: Config): readonly RouteWord[];
  /** The `ask` flag that selects it (`cloud-a` for `--cloud-a`); default: the name with `_` as `-`. */
  flag?: string;
  /**
   * It answers a question that names or implies no provider, when `infra.default_provider` is not set
   * (the first provider in registry order that says so; else the first routable one).
   */
  default?: boolean;
}

/**
 * What `ask` reads to answer a question about this provider: read-only plan commands (of the
 * provider's own verbs), each labelled with what it reads (`kinds[i]` for `commands[i]`). `kinds` are
 * what routing found in the question (gpucloud catalogue kinds); most providers choose from the words.
 */
export interface ReadsCapability {
  contextReads(question: string, ctx: { kinds: readonly string[]; config: Config }): { commands: PlanCommand[]; kinds: string[] };
  /** The label of its data in the prompt (`the gpucloud account`). */
  label: string;
  /** What the model is told about this provider's data (one or two sentences). */
  prompt?: string;
}

/**
 * Answers without a model (`--ai-profile builtin`), from this provider's context reads. `undefined`:
 * it cannot answer the question exactly, and the flow declines with the reason and a hint to configure
 * an AI provider — never a different list.
 */
export interface AnswerCapability {
  answer(question: string, results: readonly ContextResult[], ctx: AnswerContext): string | undefined;
  /**
   * Providers whose answers share one question parser name the same joint answerer (`planner`: gpucloud
   * and cloud_a, engine/producers/planner/answer.ts): it is called once with all their results, so a word one of
   * them understands is not declined by the other, and the question is declined as a whole when any
   * part of it cannot be answered. It may throw an InvalidInputError that says why it declines.
   */
  joint?: string;
  /**
   * Words this provider's answers understand besides its routing words ("open", "failing", "urgent"):
   * in a combined view another provider's answerer does not decline a question for them.
   */
  understood?: readonly string[];
}

/**
 * What an answerer needs of a routing decision (engine/core/routing/route.ts RouteDecision fits it): the
 * terms that chose each provider are understood words. Declared here so the contract imports no router.
 */
export interface RouteSummary {
  reasons: readonly { terms: readonly string[] }[];
  defaulted: boolean;
}

export interface AnswerContext {
  kinds: readonly string[];
  defaulted?: boolean;
  /** The routing decision (its terms are understood words). */
  route?: RouteSummary;
  /** Words the other answering providers understand (their routing words): not unknown to this one. */
  knownWords?: readonly string[];
  /** Other providers answer too: this one needs no part of the question of its own. */
  answeredElsewhere?: boolean;
  /** The conversation the question is part of (talk): what its last answer was about, replaced by this answer's. */
  thread?: AnswerThread;
}

/**
 * What a conversation remembers between built-in answers (talk keeps one per session): the resources the
 * last answer was about, by provider, kind and ID, so "which of them are in FIN-03?" can be answered.
 */
export interface AnswerThread {
  subjects?: { provider: string; kind: string; ids: string[] }[];
}

/**
 * Plans for requests (`ask --maker`): what the maker needs, read through the executor — the catalogue
 * and current resources a model plans against, the model's instructions, and the built-in planner that
 * answers offline (`--ai-profile builtin`) and refuses what it does not understand.
 */
export interface MakerCapability {
  prepare(request: string, ctx: MakerContext): Promise<MakerInput>;
  /**
   * Notes on what a plan leaves to the provider's API that costs money (a size the request does not
   * name): added to every plan this maker writes, by a model or a built-in planner, so that a default
   * no one chose on purpose is said in the plan and its dry run (issue 39 item 8).
   */
  statedDefaults?(plan: Plan): string[];
  /**
   * Its plans' instances can carry an auto-stop watcher (`ask --maker --autostop`): the read-only plan
   * that lists the account's scripts, so that a watcher script already there is reused, not made twice.
   */
  autostopScripts?(): Plan;
}

export interface MakerContext {
  read(plan: Plan): Promise<unknown[]>;
  config: Config;
  predefined: Record<string, string>;
  /** The plan is written by the built-in planner (only what it needs is read). */
  builtin: boolean;
  /** Destructive steps are allowed (`--destroyer`): the model is told so. */
  destroyer: boolean;
  onPhase?(text: string): void;
}

/** What a maker plans against: the catalogue and current resources, the defaults, and (for a provider with its own planner) the model's instructions and the built-in planner. */
export interface MakerInput {
  catalogue: MakerCatalogue;
  /** Values of predefined bindings known in this run (the session's, from every provider's `bindings`). */
  defaults: Record<string, string>;
  /**
   * Current records by kind, as the provider's API lists them, for a built-in planner that resolves
   * names to ids (each provider knows its own records' shapes: gpucloud/maker.ts).
   */
  lookup?: MakerLookup;
  /** A provider's own maker: the model's system prompt and its built-in planner. */
  target?: { system: string; builtin: () => Plan };
}

/** Catalogue data passed to the maker: plain API records by a name the provider chooses (`instanceTypes`), shown to the model. */
export type MakerCatalogue = Record<string, unknown[] | undefined>;

/** Current records by kind (`instances`), as the provider's API lists them. */
export type MakerLookup = Readonly<Record<string, readonly unknown[] | undefined>>;

/**
 * Plan bindings this provider predefines from config and environment (DESIGN §3: `<DEFAULT_LOCATION>`),
 * only those set: the session collects every provider's before a plan is validated.
 */
export interface BindingsCapability {
  predefined(config: Config, env: Record<string, string | undefined>): Record<string, string>;
}

/**
 * Where this provider's processes share their rate limits across machines (a Redis URL), when one is
 * configured: the session reserves the names being created there too, so two machines never create one twice.
 */
export interface LimitsCapability {
  redisUrl(config: Config, env: Record<string, string | undefined>): string | undefined;
}

/** An in-process stand-in for the provider's endpoint (`--sandbox`): nothing leaves the machine. */
export interface SandboxCapability {
  /** Starts the stand-in on the first step that needs it, keeping its state in `dir` (the sandbox's own directory); closed with the sandbox. */
  start(dir: string): Promise<SandboxStandIn>;
  /**
   * Values of this provider's predefined bindings (its `bindings`) in the sandbox where the config sets
   * none: the stand-in's own SSH key, its location. Asked when the session opens, before anything starts.
   */
  defaults?(): Record<string, string> | Promise<Record<string, string>>;
}

export interface SandboxStandIn {
  baseUrl: string;
  credentials: Record<string, string>;
  /** The stand-in's own fetch (an in-process server without a socket). */
  fetch?: FetchLike;
  /** Where tokens of the stand-in are cached between runs (never the real cloud's cache). */
  tokenCacheDir?: string;
  close(): Promise<void>;
}

/** The default-deny table, for the README and `--help`: what runs freely, what needs --destroyer, what is refused. */
export interface ClassifyCapability {
  table(): readonly { operation: string; verdict: 'read' | 'harmless' | 'destructive' | 'refused'; why: string }[];
}

/** A read-only plan run through the one executor; its responses in step order. */
export type CapabilityRead = (plan: Plan) => Promise<unknown[]>;

/** One billable resource, priced now (a row of `cost summary|detail|export`). */
export interface CostResource {
  /** `instance`, `volume`, `cluster`, … (the provider's kinds). */
  kind: string;
  id: string;
  name: string;
  type: string;
  status: string;
  spot?: boolean;
  /** Instances: GPUs of the type (0 for CPU instances). */
  gpus?: number;
  size_gb?: number;
  /** Deployments: the most replicas it may run (what it is priced at). */
  replicas?: number;
  /** null when the provider has no price for its type (listed under `unpriced`). */
  hourly_cost: number | null;
  created_at?: string;
  /** Its tags (engine/producers/cost/tags.ts groups by them) and where they come from. */
  tags?: Record<string, string>;
  tag_from?: 'api' | 'description' | 'instance' | 'cluster';
  hours_running?: number;
  cost_so_far?: number | null;
}

/** What an account costs now: every billable resource priced, the burn, the balance and the runway. */
export interface CostSummary {
  provider: string;
  currency: string;
  as_of: string;
  based_on: string;
  hourly_cost: number;
  daily_cost: number;
  /** The current burn over a 30-day month (720 h). */
  monthly_forecast: number;
  /** null when the provider has no balance (it bills afterwards) or did not say. */
  balance: number | null;
  /** balance / burn; null when nothing bills or the balance is unknown. */
  runway_hours: number | null;
  runway_until: string | null;
  resources: CostResource[];
  unpriced: string[];
}

/** How a bill is grouped: by service, by service and usage type (`cost detail|export`), by a tag's value (`cost tags`). */
export type BilledGroup = { by: 'service' } | { by: 'usage' } | { by: 'tag'; key: string };

/** The key of a `usage` group: service and usage type, joined so a row can be split back. */
export const USAGE_KEY_SEPARATOR = ' / ';

/** One day of a provider's own bill. */
export interface BilledDay {
  /** YYYY-MM-DD (UTC). */
  date: string;
  cost: number;
  /** The provider has not closed the day yet. */
  estimated: boolean;
  /** Cost by service (empty unless asked for by service). */
  services: Record<string, number>;
}

/**
 * Live figures: what bills now, priced from the provider's prices (with its balance, the runway). Every
 * `cost` command works from them; each reading is recorded as a snapshot, the history of `cost trend`
 * and `cost anomalies`.
 */
export interface LiveCost {
  /** Reads the account through the executor and prices what bills at `now`. */
  price(read: CapabilityRead, now: number): Promise<CostSummary>;
  /** Which account the snapshots belong to (the sandbox is an account of its own). */
  account(ctx: { config: Config; env: Record<string, string | undefined>; sandbox: boolean }): string;
}

/**
 * The provider's own bill, per day (a cloud that bills afterwards: no balance, no runway): `cost
 * summary` (the month to date by service), `cost forecast` (linear to month end) and `cost trend`.
 */
export interface BilledCost {
  /**
   * The bill per day over [start, endExclusive) (YYYY-MM-DD), read through the executor: the total, or
   * grouped as asked (each day's `services` keyed by the group: the service, `service / usage type`, or
   * the tag's value with '' for untagged). `ctx.config` names what the bill is read from where the
   * provider needs it (cloud_b's export table, cloud_c's subscription).
   */
  days(read: CapabilityRead, period: { start: string; endExclusive: string; group?: BilledGroup }, ctx: { config: Config }): Promise<{ days: BilledDay[]; currency: string }>;
  /** The groupings `days` answers besides `service` (each opens `cost` commands: detail and export, tags). */
  groups?: readonly Exclude<BilledGroup['by'], 'service'>[];
  /** What the figures are (for `based_on`). */
  basis: string;
  /** Said after the forecast's method (which forecast of its own the provider's bill does not use). */
  forecastNote?: string;
}

/** What the `cost` commands can figure for this provider: live prices and spend (with runway), or its bill. */
export interface CostCapability {
  live?: LiveCost;
  billed?: BilledCost;
}

/** A place `deploy` can put a service (an instance, a container deployment, a VM). */
export interface DeployTarget {
  name: string;
  /** One line for --help. */
  about: string;
  /**
   * The machine fetches the repository and runs it itself (an instance, a VM): it needs a start command
   * and a URL it can reach. A container target runs a prebuilt image instead.
   */
  runsSource: boolean;
  /** Takes --autostop (the machine's idle auto-stop watcher). */
  autostop?: boolean;
}

/**
 * What `deploy` can compile a repository into for this provider. The plan it compiles is printed or
 * applied by the command through the one apply path (machines/apply/), like every other plan.
 */
export interface DeployCapability {
  /** Its targets, in the order --help lists them. */
  targets: readonly DeployTarget[];
  /** The target when --target is not given, from what the analysis found (a prebuilt image, say). */
  defaultTarget(found: { image?: string }): string;
  /** Flags only this provider takes (`ami` for `--ami`), by option name; refused for the others. */
  flags?: readonly string[];
  /** The plan for a deploy, reading what exists through the executor where it needs to (a redeploy is an update). */
  compile(request: DeployCompileRequest, ctx: DeployContext): Promise<DeployCompiled>;
}

export interface DeployContext {
  read: CapabilityRead;
  /** The session's predefined values (`DEFAULT_LOCATION`). */
  predefined: Record<string, string>;
}

/** What deploy asks for once the repository is analysed and the flags are read (DeployRequest of engine/core/deploy-types.ts, any target). */
export type DeployCompileRequest = Omit<import('./deploy-types.js').DeployRequest, 'target' | 'location'> & {
  target: string;
  /** --location as given (the provider knows its default). */
  location?: string;
  /** The provider's own flags (`flags`), by name. */
  options: Record<string, string | undefined>;
};

/** A compiled deploy: the plan, the secrets bound at apply time only, and the URL once applied. */
export interface DeployCompiled {
  plan: Plan;
  /** Placeholder → value, bound at apply time only (never in the plan). */
  secretBindings: Record<string, string>;
  /** The URL once applied, with placeholders (`http://<INSTANCE_IP>:8000`). */
  url: string;
  mode: 'create' | 'update' | 'unchanged';
  /** Instance type or compute chosen, for people. */
  chosen: string;
}

/**
 * Where a machine's firewall lets traffic in from: the caller's address (`callerCidr`), the other
 * machines of the same request, or anywhere.
 */
export interface MachineIngress {
  protocol: 'tcp' | 'udp' | 'all';
  /** The port (tcp, udp); `all` opens every port. */
  port?: number;
  from: 'caller' | 'group';
  /** Why it is open, for the step's reason (`SSH`, `the Kubernetes API`). */
  why: string;
}

/**
 * "Make these machines" (`k8s create kubeadm --workers <n>`): so many machines of at least this size,
 * with this OS, reachable as root over SSH with the key the SSH steps use, with these firewall openings.
 * The provider chooses what the request leaves open (type, image, location) and says it in the notes.
 */
export interface MachinesRequest {
  /** What the machines belong to: names their firewall and tags (`lab`). */
  name: string;
  /** One per machine, in order: its hostname and what it is (`control plane`, `worker 1`). */
  machines: readonly { hostname: string; role: string }[];
  minCores: number;
  minMemoryGb: number;
  /** The OS family the steps after them are written for. */
  os: 'ubuntu';
  ingress: readonly MachineIngress[];
  /** The caller's address (CIDR) for `from: 'caller'`: where SSH and the steps after them come from. */
  callerCidr?: string;
  /** The OpenSSH public key line the SSH steps log in with as root (providers without an SSH key registry put it on the machine). */
  sshPublicKey?: string;
  /** Flags as given (each provider reads them as its own: a location is a region on some clouds). */
  instanceType?: string;
  location?: string;
  image?: string;
  /** One line saying what they are for (descriptions, tags). */
  purpose: string;
}

/** A compiled machine request: steps that end with each machine's public IP bound to a placeholder. */
export interface MachinesCompiled {
  /** The providers of its steps (`["gpucloud"]`). */
  providers: string[];
  commands: PlanCommand[];
  /** Each machine's public IP as a placeholder (`<CP_IP>`), in the request's order. */
  ips: string[];
  /** The defaults it chose that cost money, how to remove what it makes. */
  remarks: string[];
  /** For people: `3 × t3.small in us-east-1, image ami-0abc`. */
  chosen: string;
}

/** Makes machines for steps that follow over SSH (engine/producers/k8s-create/kubeadm-machines.ts). */
export interface MachinesCapability {
  /** What it says about itself in --help (`gpucloud instances`, `EC2 instances`). */
  about: string;
  /** What it chooses when a flag is not given, for --help (`the cheapest CPU type with 2 cores and 2 GB`). */
  defaults: { instanceType: string; location: string; image: string };
  /** It needs `callerCidr` (its machines have a firewall that opens only what the request names). */
  needsCallerCidr?: boolean;
  /** It needs `sshPublicKey` (it puts the key on the machines itself). */
  needsSshPublicKey?: boolean;
  /** Reads what it chooses from through the executor (catalogue, images, the region) and compiles the steps. */
  compile(request: MachinesRequest, ctx: DeployContext): Promise<MachinesCompiled>;
}

/**
 * Idle auto-stop's provider side (`autostop check`, `autostop resume`, `cost summary`'s saved lines;
 * machines/autostop/): the read-only plans that read its instances, an instance's startup script and
 * its volumes, the statuses of a hibernation, and what the hibernations auto-stop recorded saved.
 */
export interface AutostopCapability {
  reads: {
    /** Every instance (records with id, hostname, status, ip, startup_script_id, instance_type). */
    instances(): Plan;
    instance(id: string): Plan;
    /** A startup script by ID (its text holds the auto-stop policy marker). */
    script(id: string): Plan;
    volumes(): Plan;
  };
  /** The statuses of an instance on its way into hibernation, hibernated, and on its way back. */
  statuses: { readonly entering: string; readonly hibernated: string; readonly leaving: string };
  /** The periods priced against the account's instance and volume lists read now (a light module: the pricing loads here). */
  savings(periods: readonly HibernationPeriod[], instances: unknown, volumes: unknown, now: number): Promise<HibernationSavings>;
}

/**
 * A provider's resources by kind, as users name them (`list <kind>`, `get <kind> <id or name>`): the
 * CLI's list and get, the MCP list and get tools and `k8s delete` all choose kinds, read and resolve
 * names through it (machines/records/), so every surface resolves a name the same way. Reads go
 * through the caller's `read` (a plan run through the executor), never straight to HTTP.
 */
export interface RecordsCapability {
  /** Its kinds' plural names, in the order help lists them. */
  kinds(): readonly string[];
  /** A kind by any of its names (plural, singular, alias), with its table; a UsageError listing the kinds when none. */
  kind(name: string): RecordKind;
  /** The read-only plan that lists a kind. */
  list(kind: string): Plan;
  /** One record by ID or by name: not_found, or ambiguous with the matching IDs in its hint. */
  resolve(read: (plan: Plan) => Promise<unknown>, kind: string, idOrName: string): Promise<Record<string, unknown>>;
}

/** One kind of record: its names and the table it is shown in. */
export interface RecordKind extends TableSpec {
  /** Plural (`instances`). */
  kind: string;
  /** Singular (`instance`). */
  singular: string;
}

/**
 * What must hold before a plan that runs this provider's steps is paid for (`k8s create kubeadm`: the
 * private key its SSH steps connect with is readable), checked against the session's client for it.
 * Throws an InvalidInputError saying what is missing (nothing was sent); answers where its steps write
 * a kubeconfig, when they write one, so the caller can check the context name is free.
 */
export interface PreflightCapability {
  check(client: unknown): { kubeconfigPath?: string };
  /** The OpenSSH public key line of the key its steps log in with: what a machine without a key registry gets in root's authorized_keys. */
  publicKey?(client: unknown): Promise<string>;
}

/**
 * Where this provider's steps go for a selection (`--profile`, the environment, the config's default):
 * the region reports name (`ask --discovery`). Undefined when nothing says and the provider's tool
 * picks its own default.
 */
export interface TargetCapability {
  region(config: Config, env: Record<string, string | undefined>, profile?: string): string | undefined;
}

/**
 * Questions about one cluster of this provider (`k8s ask`): the read-only plan of a cluster's context
 * (one step per kind it reads), the model's instructions, and the built-in answer from those reads.
 */
export interface ClusterAskCapability {
  system: string;
  contextReads(cluster: string, namespace: string | undefined): { plan: Plan; kinds: string[] };
  answer(question: string, results: readonly ContextResult[], where: string): string;
}

export interface ProviderCapabilities {
  routing?: RoutingCapability;
  reads?: ReadsCapability;
  answer?: AnswerCapability;
  maker?: MakerCapability;
  credentials?: CredentialsCapability;
  bindings?: BindingsCapability;
  limits?: LimitsCapability;
  sandbox?: SandboxCapability;
  classify?: ClassifyCapability;
  cost?: CostCapability;
  deploy?: DeployCapability;
  machines?: MachinesCapability;
  autostop?: AutostopCapability;
  records?: RecordsCapability;
  preflight?: PreflightCapability;
  target?: TargetCapability;
  clusterAsk?: ClusterAskCapability;
}
