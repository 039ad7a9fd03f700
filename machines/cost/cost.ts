/**
 * Reading what an account costs: the one function behind every `cost` command, the MCP cost tool and
 * the budget guard's view of the live burn. Which provider can figure what is asked of the registry
 * (`providersWith('cost')`, engine/core/capabilities.ts CostCapability): a provider with live figures reads
 * and prices its account through the one executor, and each reading is recorded as a snapshot for
 * `cost trend`; a provider with a bill reads it per day. No provider is named here.
 */
import type { Config } from '../../schemas/config.js';
import type { BilledCost, BilledDay, BilledGroup, CapabilityRead, CostCapability, CostSummary } from '../../engine/core/capabilities.js';
import { PROVIDERS, providersWith, providerWith } from '../../engine/providers/index.js';
import { UsageError } from '../../engine/core/errors.js';
import { recordSnapshot } from '../../engine/producers/cost/snapshots.js';
import { readPlan } from '../apply/reads.js';
import type { PlanBackend } from '../run/run-plan.js';

export interface CostReadOptions {
  home: string;
  env: Record<string, string | undefined>;
  sandbox: boolean;
  signal?: AbortSignal;
}

/** The `cost` commands. */
export type CostCommand = 'summary' | 'detail' | 'trend' | 'anomalies' | 'tags' | 'forecast' | 'export';

/** Live figures answer every command; a bill what its groupings allow: the month so far, its forecast and days, detail and export by usage type, anomalies by service, tags by tag. */
const LIVE: readonly CostCommand[] = ['summary', 'detail', 'trend', 'anomalies', 'tags', 'forecast', 'export'];
const BILLED: readonly CostCommand[] = ['summary', 'trend', 'forecast', 'anomalies'];
const BILLED_BY_GROUP: Record<NonNullable<BilledCost['groups']>[number], readonly CostCommand[]> = { usage: ['detail', 'export'], tag: ['tags'] };

/** The commands a provider's cost capability answers. */
export function costCommandsOf(cost: CostCapability): CostCommand[] {
  const out = new Set<CostCommand>();
  if (cost.live) for (const c of LIVE) out.add(c);
  if (cost.billed) for (const c of [...BILLED, ...(cost.billed.groups ?? []).flatMap((g) => BILLED_BY_GROUP[g])]) out.add(c);
  return LIVE.filter((c) => out.has(c));
}

export interface CostProvider {
  name: string;
  cost: CostCapability;
}

const list = (names: readonly string[]): string => (names.length > 1 ? `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}` : (names[0] ?? 'none'));

/**
 * The provider a cost command runs for: the one named, or else the first (in registry order) that
 * answers the command. A provider without cost figures, or without the ones this command needs, is a
 * usage error (exit 2) that lists the providers that can — checked before anything is read.
 */
export async function costProvider(command: CostCommand, name?: string): Promise<CostProvider> {
  // The usual case loads one provider's capabilities: the one named, or the first in order that fits.
  for (const candidate of name === undefined ? PROVIDERS.namesWith('cost') : [name]) {
    const p = await providerWith('cost', candidate);
    if (p && costCommandsOf(p.capabilities.cost).includes(command)) return { name: p.name, cost: p.capabilities.cost };
  }
  const all = (await providersWith('cost')).map((p) => ({ name: p.name, cost: p.capabilities.cost }));
  const able = all.filter((p) => costCommandsOf(p.cost).includes(command));
  if (name === undefined) throw new UsageError(`no provider of this build answers cost ${command}`, { hint: `providers with cost figures: ${list(all.map((p) => p.name))}` });
  const has = all.find((p) => p.name === name);
  if (has) {
    throw new UsageError(`cost for provider "${name}" is not available for this command yet: cost ${command} works for ${list(able.map((p) => p.name))}`, {
      hint: `${name} answers cost ${list(costCommandsOf(has.cost))}`,
    });
  }
  throw new UsageError(`cost for provider "${name}" is not available yet: providers with cost figures are ${list(all.map((p) => p.name))}`, {
    hint: `cost ${command} works for --provider ${list(able.map((p) => p.name))}`,
  });
}

const reader = (backend: PlanBackend, signal?: AbortSignal): CapabilityRead => (plan) => readPlan(backend, plan, { signal });

/**
 * Reads and prices a provider's account now (live figures) and records the snapshot under its
 * account. The history is a convenience: when it cannot be written (a full disk, a folder in the
 * file's place) the figures are still answered, with a warning.
 */
export async function readLiveCost(
  backend: PlanBackend & { config: Config },
  provider: CostProvider,
  o: CostReadOptions & { warn?: (message: string) => void },
): Promise<{ summary: CostSummary; account: string }> {
  const live = provider.cost.live;
  if (!live) throw new UsageError(`${provider.name} has no live cost figures`, { hint: `its cost commands: ${costCommandsOf(provider.cost).join(', ')}` });
  const summary = await live.price(reader(backend, o.signal), Date.now());
  const account = live.account({ config: backend.config, env: o.env, sandbox: o.sandbox });
  await recordSnapshot(o.home, {
    at: summary.as_of,
    provider: summary.provider,
    account,
    currency: summary.currency,
    balance: summary.balance,
    hourly_cost: summary.hourly_cost,
    resources: summary.resources.length,
  }).catch((err: NodeJS.ErrnoException) => o.warn?.(`the cost snapshot was not recorded (${err.code ?? err.message}); trend and anomalies miss this reading`));
  return { summary, account };
}

/**
 * Reads and prices the account of the provider named, else of the first with live figures (the MCP
 * cost tools, the budget guard), and records the snapshot.
 */
export async function readAccountCost(backend: PlanBackend & { config: Config }, o: CostReadOptions & { warn?: (message: string) => void; provider?: string }): Promise<CostSummary> {
  return (await readLiveCost(backend, await liveCostProvider(o.provider), o)).summary;
}

/**
 * The provider named, else the first (in registry order) with live figures: what bills now, priced
 * (a bill per day has no resources to price). One without them is a usage error, before anything is read.
 */
export async function liveCostProvider(name?: string): Promise<CostProvider> {
  for (const candidate of name === undefined ? PROVIDERS.namesWith('cost') : [name]) {
    const p = await providerWith('cost', candidate);
    if (p?.capabilities.cost.live) return { name: p.name, cost: p.capabilities.cost };
  }
  const all = (await providersWith('cost')).filter((p) => p.capabilities.cost.live).map((p) => p.name);
  throw new UsageError(name === undefined ? 'no provider of this build has live cost figures' : `provider "${name}" has no live cost figures (what bills now, priced)`, { hint: `providers with live figures: ${list(all)}` });
}

/** A provider's bill per day over [start, endExclusive), read through the executor. */
export async function readBilledDays(backend: PlanBackend & { config: Config }, provider: CostProvider, period: { start: string; endExclusive: string; group?: BilledGroup }, signal?: AbortSignal): Promise<{ days: BilledDay[]; currency: string }> {
  const billed = provider.cost.billed;
  if (!billed) throw new UsageError(`${provider.name} has no billed cost figures`, { hint: `its cost commands: ${costCommandsOf(provider.cost).join(', ')}` });
  return billed.days(reader(backend, signal), period, { config: backend.config });
}
