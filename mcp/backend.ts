import type { Config } from '../schemas/config.js';
import type { PlanBackend } from '../machines/run/run-plan.js';

/** What the tools run against: one per server, so all concurrent calls share one gpucloud client and its rate limits. */
export interface McpBackend extends PlanBackend {
  config: Config;
  /** Home directory (run journals, AI history). */
  home: string;
  env: Record<string, string | undefined>;
  sandbox: boolean;
  /** The server was started with --destroyer: destructive plans may be applied. */
  destroyer: boolean;
  /** --read-only: tools that can change anything are not registered at all (not listed, "tool not found"). */
  readOnly?: boolean;
  /** --timeout / config `timeout`: each tool call's deadline in seconds (the server itself lives until stopped). */
  requestTimeoutS?: number;
  /** Where a provider's credentials came from (config, env, credentials file, backend store); never values. */
  credentialSource?(provider: string): Promise<string>;
  /** `assistant mcp --ai-profile <name>`: the AI profile the ask tool uses (as `ask --ai-profile` does). */
  aiProfile?: string;
  /** --debug: one line per tool call (name, duration, outcome; never the arguments). */
  log?: (line: string) => void;
}

