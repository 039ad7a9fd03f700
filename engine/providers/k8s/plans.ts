/**
 * The plans behind `assistant k8s …`: every read and change is a plan of `k8s-api` / `k8s-wait` steps
 * with the context name in it, so it applies the same later and goes through the one executor
 * (journal, gate, dry run). Deploys are server-side applies: the same plan creates or updates.
 */
import type { Plan } from '../../../schemas/plan.js';
import { collectionPath, findK8sKind, objectPath, type K8sKind } from './kinds.js';

const plan = (commands: Plan['commands'], extra: Partial<Plan> = {}): Plan => ({ version: 1, provider: 'k8s', commands, ...extra });
const kind = (name: string) => findK8sKind(name)!;

export interface DeploySpec {
  context: string;
  namespace: string;
  name: string;
  image: string;
  port: number;
  replicas: number;
  /** Seconds the rollout may take. */
  timeoutS?: number;
}

/** The Deployment and Service a deploy applies (labels tie the Service to the Deployment's pods). */
export function deployObjects(d: DeploySpec): { deployment: Record<string, unknown>; service: Record<string, unknown> } {
  const labels = { app: d.name, 'app.kubernetes.io/managed-by': 'assistant' };
  const selector = { app: d.name };
  return {
    deployment: {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: d.name, namespace: d.namespace, labels },
      spec: {
        replicas: d.replicas,
        selector: { matchLabels: selector },
        template: {
          metadata: { labels: selector },
          spec: { containers: [{ name: d.name, image: d.image, ports: [{ containerPort: d.port, protocol: 'TCP' }] }] },
        },
      },
    },
    service: {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: d.name, namespace: d.namespace, labels },
      spec: { selector, ports: [{ name: 'http', port: d.port, targetPort: d.port, protocol: 'TCP' }] },
    },
  };
}

/** Apply the Deployment, apply the Service, wait for the rollout. Redeploying the same name updates both. */
export function deployPlan(d: DeploySpec): Plan {
  const { deployment, service } = deployObjects(d);
  return plan(
    [
      {
        args: ['k8s-api', d.context, 'PATCH', objectPath(kind('deployments'), d.namespace, d.name), JSON.stringify(deployment)],
        reason: `apply deployment ${d.name} (${d.image}, ${d.replicas} replica${d.replicas === 1 ? '' : 's'})`,
      },
      { args: ['k8s-api', d.context, 'PATCH', objectPath(kind('services'), d.namespace, d.name), JSON.stringify(service)], reason: `apply service ${d.name} on port ${d.port}` },
      { args: ['k8s-wait', d.context, 'deployment', d.namespace, d.name, 'available', String(d.timeoutS ?? 600)], reason: `wait until deployment ${d.name} is available` },
    ],
    { summary: `deploy ${d.image} as ${d.name} in ${d.namespace} on ${d.context}` },
  );
}

export function deletePlan(context: string, k: K8sKind, namespace: string | undefined, name: string): Plan {
  return plan([{ args: ['k8s-api', context, 'DELETE', objectPath(k, k.namespaced ? namespace : undefined, name)], reason: `delete ${k.singular} ${name}` }]);
}

/** One list; `namespace` undefined means every namespace. */
export function listPlan(context: string, k: K8sKind, namespace: string | undefined): Plan {
  return plan([{ args: ['k8s-api', context, 'GET', collectionPath(k, namespace)], reason: `list ${k.resource}${namespace ? ` in ${namespace}` : ''}` }]);
}

export interface LogOptions {
  tail?: number;
  sinceSeconds?: number;
  container?: string;
  follow?: boolean;
}

export function logPath(namespace: string, pod: string, o: LogOptions): string {
  const q = new URLSearchParams();
  if (o.container) q.set('container', o.container);
  if (o.tail !== undefined) q.set('tailLines', String(o.tail));
  if (o.sinceSeconds !== undefined) q.set('sinceSeconds', String(o.sinceSeconds));
  if (o.follow) q.set('follow', 'true');
  const query = q.toString();
  return `${objectPath(kind('pods'), namespace, pod)}/log${query ? `?${query}` : ''}`;
}

export function logsPlan(context: string, namespace: string, pod: string, o: LogOptions): Plan {
  return plan([{ args: ['k8s-api', context, 'GET', logPath(namespace, pod, o)], reason: `logs of pod ${pod}` }]);
}

export const METRICS_PREFIX = '/apis/metrics.k8s.io/v1beta1';

/** The reads of `k8s stats`: metrics of nodes or pods, and the nodes' allocatable capacity. */
export function statsPlan(context: string, what: 'nodes' | 'pods' | 'cluster', namespace: string | undefined): Plan {
  const metrics = what === 'pods' ? (namespace ? `${METRICS_PREFIX}/namespaces/${encodeURIComponent(namespace)}/pods` : `${METRICS_PREFIX}/pods`) : `${METRICS_PREFIX}/nodes`;
  const commands: Plan['commands'] = [{ args: ['k8s-api', context, 'GET', metrics], reason: `metrics of ${what === 'pods' ? 'pods' : 'nodes'}` }];
  if (what !== 'pods') commands.push({ args: ['k8s-api', context, 'GET', collectionPath(kind('nodes'))], reason: 'allocatable capacity of the nodes' });
  return plan(commands);
}

/** What `k8s ask` reads: nodes, pods, deployments, services and events (of the namespace, or all). */
export const ASK_CONTEXT_KINDS = ['nodes', 'pods', 'deployments', 'services', 'events'] as const;

export function askContextPlan(context: string, namespace: string | undefined): { plan: Plan; kinds: string[] } {
  return {
    plan: plan(ASK_CONTEXT_KINDS.map((k) => listPlan(context, kind(k), namespace).commands[0]!)),
    kinds: [...ASK_CONTEXT_KINDS],
  };
}
