/**
 * Gemini on the cloud model platform (provider value `gemini`): application-default credentials via
 * google-auth-library, no key. It speaks the platform's OpenAI-compatible endpoint, so the openai SDK
 * adapter does the talking and this module only builds the connection (project, location, token).
 */
import { registerSecret } from '../../../core/redact.js';
import { AiNotConfiguredError } from '../errors.js';
import { configHint } from '../hints.js';
import type { OpenAiConnection } from './openai-compatible.js';

export interface VertexOptions {
  profile: string;
  /** Location of the model endpoint; `global` or a region such as us-central1. */
  location: string;
  env: Record<string, string | undefined>;
  /** Base URL override (tests, private endpoints). */
  baseUrl?: string;
}

/** Vertex model ids on the OpenAI-compatible endpoint carry the publisher: `google/<model>`. */
export function vertexModelName(model: string): string {
  return model.includes('/') ? model : `google/${model}`;
}

export function vertexBaseUrl(project: string, location: string): string {
  const host = location === 'global' ? 'aiplatform.googleapis.com' : `${location}-aiplatform.googleapis.com`;
  return `https://${host}/v1/projects/${encodeURIComponent(project)}/locations/${encodeURIComponent(location)}/endpoints/openapi`;
}

export async function connectVertex(opts: VertexOptions): Promise<OpenAiConnection> {
  const notConfigured = (why: string, cause?: unknown) =>
    new AiNotConfiguredError(`the AI provider gemini needs application-default credentials: ${why}`, {
      hint: configHint('gemini', opts.profile),
      cause,
    });
  let auth: import('google-auth-library').GoogleAuth;
  try {
    const { GoogleAuth } = await import('google-auth-library');
    auth = new GoogleAuth({ scopes: ['https://www.googleapis.com/auth/cloud-platform'] });
  } catch (err) {
    throw notConfigured('google-auth-library could not be loaded', err);
  }
  const token = async (): Promise<string> => {
    try {
      const t = await auth.getAccessToken();
      if (!t) throw new Error('no access token returned');
      registerSecret(t);
      return t;
    } catch (err) {
      throw notConfigured(err instanceof Error ? err.message : String(err), err);
    }
  };
  if (opts.baseUrl) return { baseURL: opts.baseUrl, apiKey: token };
  let project = opts.env.GOOGLE_CLOUD_PROJECT ?? opts.env.GCLOUD_PROJECT ?? opts.env.CLOUDSDK_CORE_PROJECT;
  if (!project) {
    try {
      project = await auth.getProjectId();
    } catch (err) {
      throw notConfigured('no project found (set GOOGLE_CLOUD_PROJECT)', err);
    }
  }
  return { baseURL: vertexBaseUrl(project, opts.location), apiKey: token };
}
