import { q } from '../../../core/render/quote.js';
import { OperationError } from '../../../core/errors.js';
import type { ArgProblem, StepVerb } from '../../../core/provider.js';
import { KubeApiError, type KubeClient } from '../client.js';
import { findK8sKind, objectPath } from '../kinds.js';
import { substituteRaw } from './api.js';

const DEFAULT_TIMEOUT_S = 600;
const INTERVAL_MS = 2_000;

/** How far a Deployment's rollout is, in kubectl's terms (`kubectl rollout status`). */
export function rolloutState(d: Record<string, any>): { done: boolean; text: string; failed?: string } {
  const desired = Number(d?.spec?.replicas ?? 1);
  const s = d?.status ?? {};
  const updated = Number(s.updatedReplicas ?? 0);
  const total = Number(s.replicas ?? 0);
  const available = Number(s.availableReplicas ?? 0);
  const progressing = (s.conditions ?? []).find((c: any) => c?.type === 'Progressing');
  if (progressing?.reason === 'ProgressDeadlineExceeded') return { done: false, text: 'progress deadline exceeded', failed: progressing.message ?? 'the rollout exceeded its progress deadline' };
  if (Number(s.observedGeneration ?? 0) < Number(d?.metadata?.generation ?? 0)) return { done: false, text: 'waiting for the controller to see the new spec' };
  if (updated < desired) return { done: false, text: `${updated} of ${desired} replicas updated` };
  if (total > updated) return { done: false, text: `${total - updated} old replicas are pending termination` };
  if (available < updated) return { done: false, text: `${available} of ${updated} updated replicas available` };
  return { done: true, text: `${available} of ${desired} replicas available` };
}

/**
 * `["k8s-wait", "<context>", "deployment", "<namespace>", "<name>", "available", "<timeout s>"?]`: polls
 * the Deployment until its rollout is available (observedGeneration caught up, every replica updated and
 * available, no old ones left). Each run is one poll; until then it answers `pending`.
 */
export const k8sWait: StepVerb<KubeClient> = {
  verb: 'k8s-wait',

  checkArgs(args) {
    const problems: ArgProblem[] = [];
    if (args.length < 6 || args.length > 7) {
      problems.push({ field: 'args', message: 'k8s-wait takes a context, "deployment", a namespace, a name, "available" and optionally a timeout in seconds' });
      return problems;
    }
    if (!args[1]?.trim()) problems.push({ field: 'args[1]', message: 'the kubeconfig context is empty' });
    if (args.slice(1).some((a) => /[\u0000-\u001f\u007f-\u009f]/.test(a))) problems.push({ field: 'args', message: 'an argument contains control characters' });
    if (findK8sKind(args[2] ?? '')?.resource !== 'deployments') problems.push({ field: 'args[2]', message: `cannot wait for ${q(args[2])} (only deployment)` });
    if (!args[3]) problems.push({ field: 'args[3]', message: 'the namespace is empty' });
    if (!args[4]) problems.push({ field: 'args[4]', message: 'the name is empty' });
    if (args[5] !== 'available') problems.push({ field: 'args[5]', message: `${q(args[5])} is not a condition to wait for (use available)` });
    const timeout = args[6] === undefined ? DEFAULT_TIMEOUT_S : Number(args[6]);
    if (!(timeout > 0 && timeout <= 86_400)) problems.push({ field: 'args[6]', message: 'the timeout must be 1 to 86400 seconds' });
    return problems;
  },

  classify: () => ({ effect: 'read', kind: 'deployments', reasons: [] }),

  substitute(args, bindings) {
    return args.map((arg, i) => (i === 0 ? arg : substituteRaw(arg, bindings)));
  },

  async run(args, ctx) {
    const [, context, , namespace, name] = args as [string, string, string, string, string];
    const timeoutMs = (args[6] === undefined ? DEFAULT_TIMEOUT_S : Number(args[6])) * 1000;
    const since = ctx.pollingSince ?? Date.now();
    const client = await ctx.client();
    let deployment: Record<string, any>;
    try {
      deployment = (await client.request(context, { method: 'GET', path: objectPath(findK8sKind('deployments')!, namespace, name), signal: ctx.signal })).data as Record<string, any>;
    } catch (err) {
      if (err instanceof KubeApiError && err.status === 404) throw new OperationError('wait_failed', `deployment ${namespace}/${name} does not exist (context ${context})`);
      throw err;
    }
    const state = rolloutState(deployment);
    if (state.done) return { status: 200, data: deployment };
    if (state.failed) {
      throw new OperationError('wait_failed', `the rollout of deployment ${namespace}/${name} failed: ${state.failed}`, {
        hint: `see why with 'assistant k8s get pods -n ${namespace}' and 'assistant k8s logs <pod> -n ${namespace}'`,
      });
    }
    const elapsed = Date.now() - since;
    if (elapsed + INTERVAL_MS > timeoutMs) {
      throw new OperationError('wait_timeout', `deployment ${namespace}/${name} is not available after ${Math.round(timeoutMs / 1000)} s (${state.text})`, {
        hint: `see why with 'assistant k8s get pods -n ${namespace}'; raise the timeout (7th argument of k8s-wait)`,
      });
    }
    ctx.waiting({ reason: 'poll', waitMs: INTERVAL_MS, message: `waiting for deployment ${namespace}/${name} to be available: ${state.text} (${Math.round(elapsed / 1000)} s)` });
    return { data: deployment, pending: { afterMs: INTERVAL_MS, status: state.text } };
  },

  describe(args) {
    return `WAIT deployment ${args[3]}/${args[4]} until available   [kubectl --context ${args[1]} -n ${args[3]} rollout status deployment/${args[4]}]`;
  },
};
