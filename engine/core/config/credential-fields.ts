/**
 * Which fields each provider keeps in the credential backend: the one table `credentials store`,
 * `credentials list|delete|test` and credential resolution read. (Later this becomes each provider's
 * `credentials` capability in the provider contract; the shape is meant to move there as it is.)
 *
 * k8s (a minified single-context kubeconfig, sanitised by engine/core/kubeconfig/sanitise.ts) is not in the table
 * yet: it joins when that sanitiser lands.
 */

export interface CredentialField {
  /** The name stored in the backend (also the config key where one exists). */
  name: string;
  /** The `credentials store` flag that gives it. */
  flag: string;
  /** Masked everywhere, read from stdin with `<flag> -` or a hidden prompt. */
  secret: boolean;
  required: boolean;
  description: string;
}

export interface ProviderCredentials {
  /** One line for help and errors. */
  what: string;
  fields: readonly CredentialField[];
  /** How `credentials test` checks them; absent: the provider has no client here to test with. */
  test?: 'gpucloud-balance';
  /**
   * Where else the fields can come from (cloud_a: a profile of the aws CLI's files, read with
   * `--profile`), so the command can offer it.
   */
  from?: 'aws-profile';
}

const secret = (name: string, flag: string, description: string): CredentialField => ({ name, flag, secret: true, required: true, description });
const plain = (name: string, flag: string, description: string, required = true): CredentialField => ({ name, flag, secret: false, required, description });
const token = (name: string, description: string): ProviderCredentials => ({
  what: description,
  fields: [secret(name, `--${name.replace(/_/g, '-')}`, description)],
});

export const CREDENTIAL_FIELDS = {
  gpucloud: {
    what: 'gpucloud OAuth client credentials (console: Project → Keys → Cloud API Credentials)',
    fields: [
      plain('client_id', '--client-id', 'OAuth client id'),
      secret('client_secret', '--client-secret', 'OAuth client secret'),
      plain('project_id', '--project-id', 'project id (optional)', false),
    ],
    test: 'gpucloud-balance',
  },
  cloud_a: {
    what: "cloud_a access keys (a profile's long-term keys; session keys only with --allow-session)",
    fields: [
      plain('access_key_id', '--access-key-id', 'access key id'),
      secret('secret_access_key', '--secret-access-key', 'secret access key'),
      { name: 'session_token', flag: '--session-token', secret: true, required: false, description: 'session token (expiring keys; needs --allow-session)' },
      plain('region', '--region', 'default region (optional)', false),
    ],
    from: 'aws-profile',
  },
  cloud_d: {
    what: 'cloud_d API keys',
    fields: [plain('secret_id', '--secret-id', 'SecretId'), secret('secret_key', '--secret-key', 'SecretKey'), plain('region', '--region', 'region (optional; ap-singapore when omitted)', false)],
  },
  postgres: {
    what: 'the password of a postgres connection (--name: the connection, postgres.connections.<name>)',
    fields: [secret('password', '--password', 'database password')],
  },
  repohost: token('token', 'code host token'),
  errtracker: token('auth_token', 'error tracker auth token'),
  issuetracker: token('api_key', 'issue tracker API key'),
  notes: token('integration_token', 'workspace notes integration token'),
  appplatform: token('api_token', 'app platform API token'),
  edge: token('api_token', 'CDN/DNS API token'),
  vps_a: token('api_token', 'vps_a API token'),
  vps_b: token('api_token', 'vps_b API token'),
} as const satisfies Record<string, ProviderCredentials>;

export type CredentialProvider = keyof typeof CREDENTIAL_FIELDS;

export function credentialProviders(): CredentialProvider[] {
  return Object.keys(CREDENTIAL_FIELDS) as CredentialProvider[];
}

export function credentialsOf(provider: string): ProviderCredentials | undefined {
  return Object.hasOwn(CREDENTIAL_FIELDS, provider) ? (CREDENTIAL_FIELDS as Record<string, ProviderCredentials>)[provider] : undefined;
}

/** Every flag any provider's fields use (the store command declares them all, then checks per provider). */
export function allCredentialFlags(): CredentialField[] {
  const seen = new Map<string, CredentialField>();
  for (const p of Object.values(CREDENTIAL_FIELDS) as ProviderCredentials[]) for (const f of p.fields) if (!seen.has(f.flag)) seen.set(f.flag, f);
  return [...seen.values()];
}
