/**
 * `k8s ask` without a model: a short account of the cluster from its context plan's results (nodes,
 * pods, deployments, services, warning events), limited to the kinds the question names.
 */
import { containsTerm } from '../../core/routing/match.js';
import { findK8sKind } from './kinds.js';

export const K8S_SYSTEM_PROMPT = [
  'You are assistant, a command-line assistant for cloud infrastructure. You answer questions about a',
  "Kubernetes cluster using only the data given with the question, fetched from the cluster's API server just now",
  '(nodes, pods, deployments, services and events). Each data line is "<kind>: <object as JSON>". Be brief and',
  'concrete: name objects by namespace/name, give counts, phases, readiness, restarts and images as in the data.',
  'When the data does not answer the question, say so and name the `assistant k8s` command (get, logs, stats)',
  'that would. Never invent objects. Plain text, no Markdown tables.',
].join(' ');

type Item = Record<string, any>;
const MAX_NAMES = 15;

const list = (names: string[]) => (names.length > MAX_NAMES ? `${names.slice(0, MAX_NAMES).join(', ')} and ${names.length - MAX_NAMES} more` : names.join(', '));
const ref = (o: Item) => (o.metadata?.namespace ? `${o.metadata.namespace}/${o.metadata?.name}` : String(o.metadata?.name));
const count = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function byValue(values: string[]): string {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts].map(([v, n]) => `${n} ${v}`).join(', ');
}

const sections: Record<string, (items: Item[]) => string> = {
  nodes: (nodes) => {
    const ready = nodes.filter((n) => (n.status?.conditions ?? []).some((c: Item) => c.type === 'Ready' && c.status === 'True'));
    const notReady = nodes.filter((n) => !ready.includes(n));
    return `${count(nodes.length, 'node')} (${ready.length} Ready${notReady.length ? `; not ready: ${list(notReady.map(ref))}` : ''}): ${list(nodes.map(ref))}.`;
  },
  pods: (pods) => {
    if (!pods.length) return 'No pods.';
    const phase = (p: Item) => (p.metadata?.deletionTimestamp ? 'Terminating' : String(p.status?.phase ?? 'Unknown'));
    const restarts = pods
      .map((p) => ({ p, n: (p.status?.containerStatuses ?? []).reduce((s: number, c: Item) => s + (Number(c.restartCount) || 0), 0) }))
      .filter((x) => x.n > 0)
      .sort((a, b) => b.n - a.n);
    const notRunning = pods.filter((p) => !['Running', 'Succeeded'].includes(phase(p)));
    return (
      `${count(pods.length, 'pod')}: ${byValue(pods.map(phase))}.` +
      (notRunning.length ? ` Not running: ${list(notRunning.map((p) => `${ref(p)} (${phase(p)})`))}.` : '') +
      (restarts.length ? ` Restarting: ${list(restarts.map((x) => `${ref(x.p)} (${x.n} restarts)`))}.` : '')
    );
  },
  deployments: (ds) =>
    ds.length
      ? `${count(ds.length, 'deployment')}: ${list(ds.map((d) => `${ref(d)} ${d.status?.availableReplicas ?? 0}/${d.spec?.replicas ?? 1} available (${(d.spec?.template?.spec?.containers ?? []).map((c: Item) => c.image).join(', ')})`))}.`
      : 'No deployments.',
  services: (ss) =>
    ss.length
      ? `${count(ss.length, 'service')}: ${list(ss.map((s) => `${ref(s)} (${s.spec?.type ?? 'ClusterIP'} ${s.spec?.clusterIP ?? '-'}, ports ${(s.spec?.ports ?? []).map((p: Item) => `${p.port}/${p.protocol ?? 'TCP'}`).join(', ') || '-'})`))}.`
      : 'No services.',
  events: (es) => {
    const warnings = es.filter((e) => e.type === 'Warning');
    if (!warnings.length) return 'No warning events.';
    return `${count(warnings.length, 'warning event')}: ${list(warnings.map((e) => `${String(e.involvedObject?.kind ?? '').toLowerCase()}/${e.involvedObject?.name}: ${e.reason}: ${e.message ?? ''}`.trim()))}.`;
  },
};

export function answerK8s(question: string, results: readonly { kind: string; data: unknown }[], where: string): string {
  // Kinds the question names (pods, deployment, svc…); none named means the whole picture.
  const named = results.filter((r) => {
    const k = findK8sKind(r.kind);
    return k && [k.resource, k.singular].some((w) => containsTerm(question, w));
  });
  const chosen = named.length ? named : results;
  const lines = chosen.map((r) => sections[r.kind]?.(((r.data as { items?: Item[] })?.items ?? []) as Item[])).filter(Boolean);
  return `${where}: ${lines.join(' ')}`;
}
