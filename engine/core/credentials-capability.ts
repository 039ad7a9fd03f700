/**
 * The `credentials` capability (engine/core/capabilities.ts): everything a command knows about a
 * provider's credentials comes from here, so `credentials store|test|list`, `config show` and
 * `onboarding scan` ask the registry instead of keeping tables of their own. Terraform's core does not
 * know how AWS finds credentials; the provider does.
 *
 * - `sources`: where the credentials can come from, in the order the provider itself resolves them, and
 *   which one it would use now (names and paths only, never values);
 * - `fields` (with `what` and `profile`): what `credentials store <provider>` keeps in the backend;
 * - `scan`: how `onboarding scan` checks them cheaply and read-only, and what to do when they are missing
 *   or refused;
 * - `test`, `show`: `credentials test` and `config show`.
 */
import type { Config } from '../../schemas/config.js';
import type { Plan } from '../../schemas/plan.js';

export type SourceKind = 'config' | 'env' | 'file' | 'backend' | 'cli-profile';

/** The operating systems onboarding knows (engine/producers/onboarding/platform.ts). */
export type OsName = 'linux' | 'darwin' | 'windows';

export interface CredentialSource {
  kind: SourceKind;
  /** A config key, environment variable name(s), a file path or a CLI profile: never a value. */
  where: string;
  present: boolean;
  /** The source the provider would use now (at most one per provider). */
  used?: boolean;
  /** Why a source does not count (half set, overridden, unreadable) or what it selects. */
  note?: string;
}

export interface SourceInput {
  config: Config;
  /** The config file in use (shown in `where`). */
  configPath: string;
  env: Record<string, string | undefined>;
  home: string;
  os: OsName;
}

/** Runs a read-only plan through the plan executor with fresh credentials (given by the command layer). */
export interface PlanReader {
  read(plan: Plan, provider: string, signal: AbortSignal): Promise<{ results: unknown[]; source: string }>;
}

export interface CheckInput extends SourceInput {
  sources: CredentialSource[];
  /** Bounds the check (its own time limit and the command's signal). */
  signal: AbortSignal;
  timeoutMs: number;
  plans: PlanReader;
  /** The path of a tool found by the scan (undefined: not installed). */
  toolPath(name: string): string | undefined;
  debug?: (line: string) => void;
}

export interface CheckResult {
  /** true: the credentials were accepted; false: refused or missing; null: could not tell (tool missing, unreachable). */
  authenticated: boolean | null;
  /** Who the credentials belong to, when the check says (an ARN, an account, a subscription). Never a secret. */
  identity?: string;
  detail: string;
}

export interface NextStep {
  why: string;
  /** The exact command to run; absent when the step is an edit of a file. */
  command?: string;
}

/** What `onboarding scan` shows and checks for a provider. */
export interface CredentialScan {
  /** `cloud_a (AWS, through the aws CLI)`. */
  title: string;
  /** A cheap, read-only verification of the source that would be used. */
  check?(input: CheckInput): Promise<CheckResult>;
  /** What to do when nothing is configured. */
  setup(input: SourceInput): NextStep[];
  /** What to do when the credentials are configured but refused. */
  login?(input: SourceInput, sources: CredentialSource[]): NextStep[];
}

/** One field the backend store keeps for a provider (`credentials store <provider> --<flag>`). */
export interface CredentialField {
  /** The name stored in the backend (also the config key where one exists). */
  name: string;
  /** The `credentials store` flag that gives it. */
  flag: string;
  /** Masked everywhere, read from stdin with `<flag> -` or a hidden prompt. */
  secret: boolean;
  required: boolean;
  description: string;
}

/** Another tool's profile the fields can be read from (`credentials store cloud_a --profile prod`). */
export interface CredentialProfile {
  /** One line for `--profile`'s help. */
  about: string;
  /** The fields of the named profile (secrets registered for redaction); an error when it has none. */
  read(profile: string, ctx: { env: Record<string, string | undefined>; home: string }): Record<string, string>;
  /** Expiring session keys: refused unless `--allow-session` (teammates would get keys that stop working). */
  expiring?(values: Record<string, string>): boolean;
}

export interface CredentialsCapability {
  /** Where the credentials can come from, in the provider's own order; the one it would use now is `used` (a promise when reading them imports a parser). */
  sources(input: SourceInput): CredentialSource[] | Promise<CredentialSource[]>;
  /** One line on what the credentials are, for help and errors (with `fields`). */
  what?: string;
  /** What the backend store keeps for this provider (`credentials store <provider>`); absent: nothing to store. */
  fields?: readonly CredentialField[];
  /** Where else the fields can be read from (`--profile`). */
  profile?: CredentialProfile;
  /** Why `credentials store` keeps nothing for this provider, said when it is asked to (`k8s kubeconfigs come later`). */
  notStored?: string;
  /** How `onboarding scan` checks them and what it suggests. */
  scan?: CredentialScan;
  /** A cheap read-only check that the credentials work, run through the executor (`credentials test`). */
  test?(read: (plan: Plan) => Promise<unknown[]>, ctx?: { config: Config; name?: string }): Promise<{ detail: string; data?: unknown }>;
  /**
   * What a stored credential's name stands for when it is not one account's `default` (postgres: the
   * connection, `postgres/<connection>`): `credentials test` then tests each stored name with `test`'s `name`.
   */
  namedBy?: string;
  /**
   * Where git reaches this code host with its token, besides nowhere (deploy's clone): the token goes to
   * git only at these origins. Absent: its token is never handed to git.
   */
  gitOrigins?(input: { config: Config; env: Record<string, string | undefined> }): string[];
  /** What `config show` prints under `credentials.<provider>`: where they come from, secrets masked. */
  show?(input: { config: Config; env: Record<string, string | undefined>; home: string; configPath: string; warn(line: string): void }): Record<string, unknown> | Promise<Record<string, unknown>>;
}
