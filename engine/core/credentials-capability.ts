/** The shapes of a credential source and its check, shared by the table (credentials.ts) and the checks it loads lazily (checks.ts). */
import type { Config } from '../../../schemas/config.js';
import type { Plan } from '../../../schemas/plan.js';
import type { OsName } from './platform.js';

export type SourceKind = 'config' | 'env' | 'file' | 'backend' | 'cli-profile';

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
