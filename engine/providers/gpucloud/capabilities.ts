/**
 * What gpucloud can do above running steps (engine/core/capabilities.ts): the words that route a question
 * to it (and it answers a question that names no provider), the context reads of a question, answers
 * without a model, its credentials, its predefined bindings, where its limits are shared, its sandbox
 * stand-in, its cost, its deploy targets, machines, the auto-stop of its instances and its records by kind.
 */
import type { ProviderCapabilities } from '../../core/capabilities.js';
import type { Plan } from '../../../schemas/plan.js';
import { gpucloudCredentials } from './credentials-capability.js';
import { predefinedBindings, resolveRateLimit } from './credentials.js';
import { gpucloudSandbox } from './sandbox.js';
import { jointAnswerer } from '../../core/joint-answerers.js';
import { findKind, type KindSpec } from './catalogue.js';
import { COST_KIND, GPUCLOUD_ROUTING, readsCost } from './routing.js';
import { gpucloudCost } from './cost-capability.js';
import { gpucloudDeploy } from './deploy-capability.js';
import { gpucloudMachines } from './machines-capability.js';
import { gpucloudAutostop } from './autostop-capability.js';
import { gpucloudMaker } from './maker.js';
import { gpucloudRecords } from './records.js';
import { COST_READ_KINDS, listPlan } from './static-plans.js';

/** Kinds always read for an answer, before the ones the question is about. */
export const ALWAYS_CONTEXT_KINDS = ['instances', 'balance'];


/**
 * Instances and balance always, plus every catalogue kind the question is about (and the kinds each
 * reads with); `cost` stands for the reads of `cost summary`. One list step per kind.
 */
export function gpucloudContextReads(kinds: readonly string[]): { commands: Plan['commands']; kinds: string[] } {
  const specs: KindSpec[] = [];
  const asked = kinds.flatMap((k) => (k === COST_KIND ? [...COST_READ_KINDS] : [k, ...(findKind(k)?.readWith ?? [])]));
  for (const name of [...ALWAYS_CONTEXT_KINDS, ...asked]) {
    const spec = findKind(name);
    if (spec && !specs.includes(spec)) specs.push(spec);
  }
  return { commands: specs.flatMap((s) => listPlan(s).commands), kinds: specs.map((s) => s.kind) };
}

export const gpucloudCapabilities: ProviderCapabilities = {
  routing: GPUCLOUD_ROUTING,
  maker: gpucloudMaker,
  reads: {
    label: 'the gpucloud account',
    // A question about money or GPU counts reads what `cost summary` reads too (routing.ts readsCost).
    contextReads: (question, { kinds }) => gpucloudContextReads(readsCost(question) && !kinds.includes(COST_KIND) ? [...kinds, COST_KIND] : kinds),
  },
  // One question parser for gpucloud and cloud_a (engine/producers/planner/answer.ts, registered from there under this joint name): exact answers or a reasoned decline.
  answer: jointAnswerer('planner'),
  credentials: gpucloudCredentials,
  // DEFAULT_SSH_KEY_ID, DEFAULT_LOCATION and PROJECT_ID from the gpucloud section (and GPUCLOUD_PROJECT_ID).
  bindings: { predefined: predefinedBindings },
  limits: { redisUrl: (config, env) => resolveRateLimit(config, env).redisUrl },
  sandbox: gpucloudSandbox,
  cost: gpucloudCost,
  deploy: gpucloudDeploy,
  // Machines for steps over SSH (k8s create kubeadm --workers <n>): CPU instances with an Ubuntu image.
  machines: gpucloudMachines,
  // Idle auto-stop of its instances (`autostop check`/`resume`, and what hibernations saved).
  autostop: gpucloudAutostop,
  // Its resources by kind, found by ID or name (`gpucloud list|get`, the MCP list and get tools).
  records: gpucloudRecords,
};
