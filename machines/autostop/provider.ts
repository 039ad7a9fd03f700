/**
 * The provider whose instances auto-stop watches, through its `autostop` capability
 * (engine/core/capabilities.ts): `autostop check`, `autostop resume` and `cost summary` read its
 * instances, scripts and volumes with the plans it gives, and name no provider's folder.
 */
import type { AutostopCapability } from '../../engine/core/capabilities.js';
import { OperationError } from '../../engine/core/errors.js';
import { providersWith, providerWith } from '../../engine/providers/index.js';

/** The provider with the `autostop` capability (the registry's first; only its capabilities load). */
export async function autostopProvider(): Promise<{ name: string; autostop: AutostopCapability }> {
  const [found] = await providersWith('autostop');
  if (!found) throw new OperationError('autostop_unavailable', 'no provider of this build can auto-stop instances');
  return { name: found.name, autostop: found.capabilities.autostop };
}

/** The `autostop` capability of `provider`, or undefined when it has none. */
export async function autostopOf(provider: string): Promise<AutostopCapability | undefined> {
  return (await providerWith('autostop', provider))?.capabilities.autostop;
}
