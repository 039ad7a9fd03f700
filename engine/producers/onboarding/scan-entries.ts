/**
 * What `onboarding scan` covers: every provider whose `credentials` capability can be scanned, asked of
 * the registry in its order, then the assistant's own keys (the talk agent's router key, the credential
 * backend's API key), which belong to no provider.
 */
import type { CredentialScan, CredentialSource, SourceInput } from '../../core/capabilities.js';
import { configKey, envSet, isSet, markUsed, sectionCredentials } from '../../core/credential-sources.js';
import { registerSecret } from '../../core/redact.js';
import { providersWith } from '../../providers/index.js';

/** One row of the scan: a provider's credentials (its capability) or one of the assistant's own keys. */
export interface ScanEntry {
  provider: string;
  sources(input: SourceInput): CredentialSource[] | Promise<CredentialSource[]>;
  scan: CredentialScan;
}

const agent = sectionCredentials({ provider: 'agent', title: 'agent (talk)', section: 'agent', keys: ['router_api_key'], envFamilies: [['AGENT_ROUTER_API_KEY']] });

const OWN_CREDENTIALS: readonly ScanEntry[] = [
  { provider: 'agent', ...agent },
  {
    provider: 'backend',
    sources: (input) => {
      if (isSet(input.config.backend?.api_key)) registerSecret(input.config.backend!.api_key);
      return markUsed([
        { kind: 'config', where: configKey(input, ['backend.api_key']), present: isSet(input.config.backend?.api_key) },
        { kind: 'env', where: 'ASSISTANT_BACKEND_API_KEY', present: envSet(input.env, 'ASSISTANT_BACKEND_API_KEY') },
      ]);
    },
    scan: { title: 'backend (credential store)', setup: () => [{ why: 'backend: optional; a team runs one to share credentials (ASSISTANT_BACKEND_API_KEY selects it)' }] },
  },
];

export async function scanEntries(): Promise<ScanEntry[]> {
  const providers = (await providersWith('credentials')).filter((p) => p.capabilities.credentials.scan);
  return [...providers.map((p) => ({ provider: p.name, sources: p.capabilities.credentials.sources, scan: p.capabilities.credentials.scan! })), ...OWN_CREDENTIALS];
}
