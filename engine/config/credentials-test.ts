/**
 * What `credentials test` runs, shared by the CLI and the MCP tool: gpucloud's balance read through the
 * plan executor (the session's client fetches a token for it, so a wrong secret fails here).
 */
import { findKind } from '../gpucloud/catalogue.js';
import { listPlan } from '../gpucloud/static-plans.js';
import { runForResults, type PlanBackend } from '../../machines/run-plan.js';

export interface GpuCloudBalance {
  amount?: unknown;
  currency?: string;
}

export async function testGpuCloudCredentials(backend: PlanBackend, signal?: AbortSignal): Promise<GpuCloudBalance> {
  const [balance] = (await runForResults(backend, listPlan(findKind('balance')!), signal ? { signal } : undefined)) as [GpuCloudBalance];
  return balance ?? {};
}
