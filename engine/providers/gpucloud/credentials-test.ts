/**
 * What `credentials test` runs, shared by the CLI and the MCP tool: gpucloud's balance, read through the
 * plan executor by the caller's `read` (the session's client fetches a token for it, so a wrong secret
 * fails here).
 */
import type { Plan } from '../../../schemas/plan.js';
import { findKind } from './catalogue.js';
import { listPlan } from './static-plans.js';

export interface GpuCloudBalance {
  amount?: unknown;
  currency?: string;
}

export async function testGpuCloudCredentials(read: (plan: Plan) => Promise<unknown[]>): Promise<GpuCloudBalance> {
  const [balance] = (await read(listPlan(findKind('balance')!))) as [GpuCloudBalance];
  return balance ?? {};
}
