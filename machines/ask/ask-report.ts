/**
 * The structured reports of `ask` (`--iam [--role-arn]`, `--compliance`, `--discovery`) and the
 * `--workspace` context, wired into the ask flow: every cloud read is a plan through the executor
 * (readPlan); the report is the flow's context, so with an AI provider it is summarised like any
 * context and with the built-in provider the report's own table is the answer.
 */
import { setMaxListeners } from 'node:events';
import type { Config } from '../../schemas/config.js';
import type { Plan } from '../../schemas/plan.js';
import { maskSecretLooking } from '../../engine/core/redact.js';
import { providerWith } from '../../engine/providers/index.js';
import { iamReport } from '../../engine/producers/reports/iam.js';
import { complianceReport } from '../../engine/producers/reports/compliance.js';
import { discoveryReport, type IacContext } from '../../engine/producers/reports/discovery.js';
import { renderCompliance, renderDiscovery, renderIam } from '../../engine/producers/reports/render.js';
import type { CapabilityRead } from '../../engine/core/capabilities.js';
import { readWorkspace, selectedWorkspace } from '../../engine/producers/iac/terraform.js';
import { driftAgainstCloudA } from '../../engine/producers/iac/drift.js';
import { fromPromise } from 'xstate';
import { readPlan } from '../apply/reads.js';
import type { AskActors, AskBackend, ContextRead, ContextResult, ReadContextInput } from './ask-flow.js';
import { answerActor } from './ask-actors.js';
import { cloudReadContext } from './ask.js';

/** The terraform client the workspace reader takes (the producer says what it needs of the provider's client). */
type WorkspaceClient = Parameters<typeof readWorkspace>[1];

export type ReportKind = 'iam' | 'compliance' | 'discovery';

export interface ReportOptions {
  backend: AskBackend;
  env: Record<string, string | undefined>;
  signal?: AbortSignal;
  /** `--profile`: the region shown in discovery is the selected environment's. */
  profile?: string;
  roleArn?: string;
  /** `--workspace`; terraform.default_workspace when not given. */
  workspace?: string;
}

/** What the AI is asked about a report when the user gave no question of their own. */
export const REPORT_QUESTIONS: Record<ReportKind, string> = {
  iam: 'Summarise this IAM security report: the findings by risk, and what to fix first.',
  compliance: 'Summarise this compliance report: which controls fail, why, and what to fix first.',
  discovery: 'Summarise this inventory of active services (and the infrastructure-as-code drift, if any).',
};

const reader = (o: ReportOptions): CapabilityRead => {
  // A report runs several one-step plans at once, each listening to the command's signal.
  if (o.signal) setMaxListeners(64, o.signal);
  return (plan: Plan) => readPlan(o.backend, plan, { signal: o.signal });
};

/** The terraform context of the selected workspace, with drift against cloud_a; undefined without a workspace. */
export async function workspaceContext(config: Config, o: ReportOptions): Promise<IacContext | undefined> {
  const ws = selectedWorkspace(config, o.env.HOME, o.workspace);
  if (!ws) return undefined;
  // The session's terraform client: its environment allowlist and sandbox, and --sandbox's refusal.
  const client = (await o.backend.runContext().client('terraform')) as WorkspaceClient;
  const state = await readWorkspace(ws, client, o.signal ?? new AbortController().signal);
  const drift = await driftAgainstCloudA(state.resources, reader(o));
  return { workspace: ws.name, path: ws.path, resources: state.resources.length, by_type: state.by_type, drift: drift.items, drift_checked: drift.checked };
}

/**
 * The workspace context of discovery and of a question. A workspace named with --workspace must be
 * readable (its failure is the command's); the configured default one failing (terraform missing, not
 * initialised) is noted in the context and the rest still stands.
 */
async function tolerantIac(config: Config, o: ReportOptions): Promise<IacContext | undefined> {
  try {
    return await workspaceContext(config, o);
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (o.workspace || code === 'interrupted' || code === 'timeout') throw err;
    const ws = selectedWorkspace(config, o.env.HOME);
    if (!ws) throw err;
    return { workspace: ws.name, path: ws.path, resources: 0, by_type: {}, drift: [], drift_checked: [], error: `${code ?? 'error'}: ${(err as Error).message}` };
  }
}

/**
 * The actors a report provides to the ask flow: its reads (several plans through the executor) are the
 * context, and the built-in provider's answer is its table. `onReport` receives the structured report (for `-o json`).
 */
export function reportActors(kind: ReportKind, o: ReportOptions, onReport: (report: unknown) => void): Partial<AskActors> {
  const read = reader(o);
  const config = o.backend.config;
  const result = (data: unknown): ContextResult[] => {
    onReport(data);
    // Data may leave for a third-party AI: secret-looking values are masked like any context.
    return [{ kind: `${kind}-report`, args: [], data: maskSecretLooking(data) }];
  };
  const gather = async (): Promise<ContextResult[]> => {
    if (kind === 'iam') return result(await iamReport(read, { roleArn: o.roleArn }));
    if (kind === 'compliance') return result(await complianceReport(read));
    // The reports read cloud_a: the region is its target's (the selected environment, or its CLI's own variables).
    const target = (await providerWith('target', 'cloud_a'))?.capabilities.target;
    const region = target?.region(config, o.env, o.profile) ?? 'default';
    return result(await discoveryReport(read, { region, iac: await tolerantIac(config, o) }));
  };
  const render = (results: readonly ContextResult[]) => {
    const data = results[0]?.data as never;
    return kind === 'iam' ? renderIam(data) : kind === 'compliance' ? renderCompliance(data) : renderDiscovery(data);
  };
  return {
    readContext: fromPromise<ContextRead, ReadContextInput>(async () => ({ results: await gather(), read: 'a report' })),
    answer: answerActor((input) => render(input.results)),
  };
}

/**
 * The `--workspace` context for a plain question: the state by type and its drift, after the plan's
 * reads. `terraform.default_workspace` joins only questions routed to cloud_a (a gpucloud question
 * does not run terraform); `--workspace` always.
 */
export function workspaceActors(o: ReportOptions): Partial<AskActors> | undefined {
  const config = o.backend.config;
  if (!selectedWorkspace(config, o.env.HOME, o.workspace)) return undefined;
  return {
    readContext: cloudReadContext({
      extra: async (route) => {
        if (!o.workspace && !route.providers.includes('cloud_a')) return [];
        const iac = await tolerantIac(config, o);
        return iac ? [{ kind: 'terraform', args: ['terraform', 'state'], data: iac }] : [];
      },
    }),
  };
}
