/**
 * gpucloud's `cost` capability (engine/core/capabilities.ts): live figures — every billable resource priced
 * from the live catalogue, the balance, the runway. A light module: the pricing code (./cost.ts) loads
 * when a `cost` command prices, not with every gpucloud command.
 */
import type { CostCapability } from '../../core/capabilities.js';

export const gpucloudCost: CostCapability = {
  live: {
    price: async (read, now) => (await import('./cost.js')).priceGpuCloud(read, now),
    // The same account key as the conversation history's (engine/producers/ai/history.ts historyProject), so the
    // snapshots recorded before this capability existed keep counting for the same account.
    account: ({ config, env, sandbox }) =>
      sandbox ? 'sandbox' : (config.gpucloud?.default_project_id ?? env.GPUCLOUD_PROJECT_ID)?.trim() || (config.gpucloud?.base_url ?? env.GPUCLOUD_BASE_URL)?.trim().replace(/\/+$/, '') || 'default',
  },
};
