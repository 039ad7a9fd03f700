/**
 * Where cloud_d's API keys come from, in the SPEC's order (2.5): the config (`cloud_d.secret_id` and
 * `cloud_d.secret_key`), then CLOUD_D_SECRET_ID / CLOUD_D_SECRET_KEY, then CLOUD_D_API_SECRET_ID /
 * CLOUD_D_API_SECRET_KEY, then the credential backend (`credentials store cloud_d`). A pair is taken
 * from one place only: half a pair (an id without its key) is passed over, and said when nothing else
 * is found. The region: `cloud_d.region` (default ap-singapore), else CLOUD_D_REGION, else the stored one.
 */
import type { Config } from '../../../schemas/config.js';
import { CLOUD_D_DEFAULT_REGION } from '../../../schemas/config-defaults.js';
import { UsageError } from '../../core/errors.js';
import type { ConnectOptions } from '../../core/provider.js';
import { registerSecret } from '../../core/redact.js';
import { storedFields } from '../../core/kits/http/stored-credentials.js';

export const CLOUD_D_ENV_FAMILIES = [
  ['CLOUD_D_SECRET_ID', 'CLOUD_D_SECRET_KEY'],
  ['CLOUD_D_API_SECRET_ID', 'CLOUD_D_API_SECRET_KEY'],
] as const;

export interface CloudDCredentials {
  secretId: string;
  secretKey: string;
  region: string;
  /** Where the pair came from (`cloud_d.secret_id/secret_key in the config file`, `CLOUD_D_SECRET_ID/CLOUD_D_SECRET_KEY`…). */
  source: string;
}

const val = (v: string | undefined) => (v?.trim() ? v.trim() : undefined);

function localPairs(config: Config, env: Record<string, string | undefined>): { id?: string; key?: string; where: string; kind: 'config' | 'env' }[] {
  return [
    { id: val(config.cloud_d?.secret_id), key: val(config.cloud_d?.secret_key), where: 'cloud_d.secret_id/secret_key in the config file', kind: 'config' },
    ...CLOUD_D_ENV_FAMILIES.map(([i, k]) => ({ id: val(env[i]), key: val(env[k]), where: `${i}/${k}`, kind: 'env' as const })),
  ];
}

export async function resolveCloudDCredentials(opts: ConnectOptions): Promise<CloudDCredentials> {
  const region = val(opts.config.cloud_d?.region) ?? val(opts.env.CLOUD_D_REGION);
  const halves: string[] = [];
  if (!opts.backendOnly) {
    for (const p of localPairs(opts.config, opts.env)) {
      if (p.id && p.key) return finish({ secretId: p.id, secretKey: p.key, region: region ?? CLOUD_D_DEFAULT_REGION, source: p.where });
      if (p.id || p.key) halves.push(`${p.where} has only the ${p.id ? 'id' : 'key'}`);
    }
  }
  const stored = await storedFields('cloud_d', opts);
  const f = stored?.fields ?? {};
  if (f.secret_id && f.secret_key) return finish({ secretId: f.secret_id, secretKey: f.secret_key, region: region ?? f.region ?? CLOUD_D_DEFAULT_REGION, source: stored!.where });
  throw new UsageError(`cloud_d: no API keys configured${halves.length ? ` (${halves.join('; ')})` : ''}`, {
    hint: 'set cloud_d.secret_id and cloud_d.secret_key in ~/.assistant.yaml, or CLOUD_D_SECRET_ID and CLOUD_D_SECRET_KEY (or CLOUD_D_API_SECRET_ID and CLOUD_D_API_SECRET_KEY), or `assistant credentials store cloud_d`',
  });
}

function finish(c: CloudDCredentials): CloudDCredentials {
  registerSecret(c.secretKey);
  registerSecret(c.secretId);
  return c;
}
