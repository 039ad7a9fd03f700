/**
 * `k8s ask "<question>"`: the ask flow (machines/ask/ask-flow.ts: summarisation, streaming, the built-in
 * provider answering without a model) with a cluster's actors: the route is the cluster, the context a
 * read-only plan of its nodes, pods, deployments, services and events, the built-in answer the k8s
 * renderer. The conversation is kept per AI profile and cluster (context).
 */
import { fromPromise } from 'xstate';
import type { ClusterAskCapability } from '../../engine/core/capabilities.js';
import { providerWith } from '../../engine/providers/index.js';
import { maskSecretLooking } from '../../engine/core/redact.js';
import type { AskOptions, AskResult } from '../ask/ask.js';
import { askFlowMachine, redactingTokens, runAskFlow, type AskActors, type AskObserver, type ContextRead, type ReadContextInput, type Routed, type RouteInput } from '../ask/ask-flow.js';
import { actorSignal, answerActor, chooseModelActor, conversationOf, historyRecall, summariseActor } from '../ask/ask-actors.js';
import { readPlan } from '../apply/reads.js';

export interface ClusterAskOptions extends Omit<AskOptions, 'providers'> {
  /** The kubeconfig context of the cluster. */
  cluster: string;
  /** undefined: every namespace. */
  namespace?: string;
}

/** The actors of a cluster question, from the cluster provider's clusterAsk capability. */
export function clusterActors(o: Pick<ClusterAskOptions, 'cluster' | 'namespace'>, cluster: ClusterAskCapability): AskActors {
  const where = `cluster ${o.cluster}${o.namespace ? `, namespace ${o.namespace}` : ', all namespaces'}`;
  return {
    route: fromPromise<Routed, RouteInput>(async () => ({
      route: { providers: ['k8s'], reasons: [{ provider: 'k8s', terms: [], note: `k8s ask (${where})` }], kinds: [], defaulted: false },
      prompt: { system: cluster.system, label: `Kubernetes ${where}` },
    })),
    chooseModel: chooseModelActor,
    // One conversation per cluster: a follow-up about "that pod" means this cluster's pod.
    recall: historyRecall(() => `k8s:${o.cluster}`),
    readContext: fromPromise<ContextRead, ReadContextInput>(async ({ input, signal }) => {
      const { plan, kinds } = cluster.contextReads(o.cluster, o.namespace);
      const data = maskSecretLooking(await readPlan(input.context.backend, plan, { signal: actorSignal(input.context, signal) }));
      return { results: plan.commands.map((c, i) => ({ kind: kinds[i]!, args: c.args, data: data[i] })), read: where };
    }),
    summarise: summariseActor,
    answer: answerActor((input) => cluster.answer(input.question, input.results, `Cluster ${o.cluster}${o.namespace ? ` (namespace ${o.namespace})` : ''}`)),
  };
}

export async function askCluster(o: ClusterAskOptions, hooks: { observe?: AskObserver } = {}): Promise<AskResult> {
  const observe = hooks.observe ?? (() => undefined);
  const cluster = (await providerWith('clusterAsk', 'k8s'))!.capabilities.clusterAsk;
  const machine = askFlowMachine.provide({ actors: clusterActors(o, cluster) });
  const out = await runAskFlow(machine, o, redactingTokens((event) => {
    if (event.type === 'ask.answer') {
      const r = event.output;
      observe({ type: 'ask.debug', line: `k8s ask: ${r.read}; context ${r.contextChars} characters, summarised: ${r.summarised ? 'yes' : 'no'}, provider ${r.provider}` });
    }
    observe(event);
  }));
  if (o.history !== false && out.provider !== 'builtin' && out.profile) conversationOf(o.context, out.profile, `k8s:${o.cluster}`).append(o.question, out.answer);
  const { sizes: _s, summaryCalls: _c, ...result } = out;
  return result;
}
