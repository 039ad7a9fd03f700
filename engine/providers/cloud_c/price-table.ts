// The Azure VM price table the budget reads (engine/providers/cloud_c/prices.ts). Rewritten as a whole
// by `node scripts/refresh-prices.mjs cloud_c [--region R]…` from the Azure Retail Prices API; edit by
// hand only to add a size, and keep the date and source honest.
import type { PriceTable } from '../../core/kits/cli/pricing.js';

export const AZURE_VM_PRICES: PriceTable = {
  basis: 'Azure virtual machines, pay-as-you-go, Linux (managed disks and public IPs are billed on top)',
  currency: 'usd',
  date: '2025-01-01',
  source: "hand-entered from Azure's public pay-as-you-go price list",
  regions: {
    eastus: {
      Standard_B1s: 0.0104,
      Standard_B1ms: 0.0207,
      Standard_B2s: 0.0416,
      Standard_B2ms: 0.0832,
      Standard_B4ms: 0.166,
      Standard_DS1_v2: 0.073,
      Standard_DS2_v2: 0.146,
      Standard_DS3_v2: 0.293,
      Standard_D2s_v3: 0.096,
      Standard_D4s_v3: 0.192,
      Standard_D8s_v3: 0.384,
      Standard_D16s_v3: 0.768,
      Standard_D2s_v5: 0.096,
      Standard_D4s_v5: 0.192,
      Standard_D8s_v5: 0.384,
      Standard_D2as_v5: 0.086,
      Standard_D4as_v5: 0.172,
      Standard_D2ds_v5: 0.113,
      Standard_D4ds_v5: 0.226,
      Standard_D8ds_v5: 0.452,
      Standard_F2s_v2: 0.0846,
      Standard_F4s_v2: 0.169,
      Standard_E2s_v3: 0.126,
      Standard_E4s_v3: 0.252,
      Standard_E2s_v5: 0.126,
      Standard_NC4as_T4_v3: 0.526,
      Standard_NC8as_T4_v3: 0.752,
      Standard_NC6s_v3: 3.06,
      Standard_NC12s_v3: 6.12,
      Standard_NC24s_v3: 12.24,
      Standard_NC24ads_A100_v4: 3.673,
      Standard_NC48ads_A100_v4: 7.346,
      Standard_ND96asr_v4: 27.197,
      Standard_ND96isr_H100_v5: 98.32,
    },
  },
};

/** The AKS control plane per cluster and hour, by tier (`--tier`; free is the default). */
export const AKS_TIER_HOURLY: Readonly<Record<string, number>> = { free: 0, standard: 0.1, premium: 0.6 };
