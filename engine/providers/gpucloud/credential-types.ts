/** The shapes of a gpucloud credential look-up, shared by the resolver (credentials.ts) and the backend store it asks last (backend-lookup.ts). */
import type { Config } from '../../../schemas/config.js';

export type GpuCloudCredentialSource = 'config' | 'env' | 'credentials-file' | 'backend';

export interface ResolveGpuCloudCredentialsOptions {
  config: Config;
  env: NodeJS.ProcessEnv;
  home: string;
  /** The config file the `config` came from, for messages; defaults to `<home>/.assistant.yaml`. */
  configPath?: string;
}

/** One place that was searched, as the `no_credentials` message lists it. */
export interface SearchedPlace {
  source: GpuCloudCredentialSource;
  where: string;
  outcome: string;
}
