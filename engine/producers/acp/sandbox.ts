/**
 * Where an external agent runs (box and talk alike): in the sandbox of engine/core/process/contain.ts,
 * with the network (it talks to its model), a scratch folder as its HOME and working directory, exactly
 * the environment its launch computed (an allowlist plus its own key), and only the paths the user
 * granted in the config (`agent.read_only`, `agent.read_write`). The assistant's config file and data
 * folder are hidden even inside a granted folder. Without a sandbox it refuses unless `--unsandboxed`.
 */
import { isAbsolute, resolve } from 'node:path';
import type { AgentConfig } from '../../../schemas/config.js';
import { contain, sandboxSettings, type Contained, type SandboxSettings } from '../../core/process/contain.js';

/** The command's sandbox settings, and what the user granted the agent (`agent.read_only`, `agent.read_write`). */
export interface AgentSandbox extends SandboxSettings {
  readOnly: string[];
  readWrite: string[];
}

export interface AgentSandboxOptions {
  config?: AgentConfig;
  home: string;
  /** `--config` (else ~/.assistant.yaml). */
  configPath?: string;
  unsandboxed?: boolean;
}

const expand = (path: string, home: string) => {
  const p = path.replace(/^~(?=$|\/)/, home);
  return isAbsolute(p) ? p : resolve(home, p);
};

/** The sandbox of the agents of this config and home. */
export function agentSandbox(o: AgentSandboxOptions): AgentSandbox {
  return {
    ...sandboxSettings(o),
    readOnly: (o.config?.read_only ?? []).map((p) => expand(p, o.home)),
    readWrite: (o.config?.read_write ?? []).map((p) => expand(p, o.home)),
  };
}

/** One agent process's launch, contained (throws SandboxUnavailable where none can be made without --unsandboxed). */
export function containAgent(launch: { name: string; command: string; args: readonly string[]; env: Record<string, string> }, sandbox: AgentSandbox): Contained {
  return contain({
    what: `the agent ${launch.name}`,
    command: launch.command,
    args: launch.args,
    env: launch.env,
    network: true,
    readOnly: sandbox.readOnly,
    readWrite: sandbox.readWrite,
    hidden: sandbox.hidden,
    unsandboxed: sandbox.unsandboxed,
  });
}
