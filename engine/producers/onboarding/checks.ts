/**
 * The read-only checks behind `onboarding scan --check`, one per provider that has one: gpucloud asks
 * for a fresh token and reads the balance through the plan executor; the cloud CLIs are asked who is
 * logged in (`aws sts get-caller-identity`, `gcloud auth list`, `az account show`, `gh auth status`);
 * k8s asks the API server of the current context. Each child gets an allowlisted environment: its own
 * tool's settings and credentials, never ours.
 */
import { findKind } from '../../providers/gpucloud/catalogue.js';
import { listPlan } from '../../providers/gpucloud/static-plans.js';
import { awsArgs, resolveAwsTarget } from '../../providers/cloud_a/provider.js';
import { AssistantError } from '../../core/errors.js';
import { KubeApiError, KubeClient } from '../../providers/k8s/client.js';
import { contextFor } from '../../core/kubeconfig/kubeconfig.js';
import { maskSecretsInText, redactText } from '../../core/redact.js';
import { childEnvironment } from './child-env.js';
import type { CheckInput, CheckResult } from './check-types.js';
import { failureLine, runChild } from './run.js';

const notInstalled = (tool: string): CheckResult => ({ authenticated: null, detail: `${tool} is not installed, so its login cannot be checked` });

const shortError = (err: unknown): string => {
  const text = err instanceof Error ? err.message : String(err);
  const line = maskSecretsInText(redactText(text.split('\n')[0] ?? text));
  return line.length > 240 ? `${line.slice(0, 240)}…` : line;
};

/** gpucloud: a fresh token and the balance, read through the plan executor like `credentials test`. */
export async function checkGpucloud(input: CheckInput): Promise<CheckResult> {
  if (!input.sources.some((s) => s.used)) return { authenticated: false, detail: 'no credentials found' };
  try {
    const { results, source } = await input.plans.read(listPlan(findKind('balance')!), 'gpucloud', input.signal);
    const balance = results[0] as { amount?: unknown; currency?: unknown } | undefined;
    const amount = balance && balance.amount !== undefined ? ` (balance ${String(balance.amount)} ${String(balance.currency ?? '').toUpperCase()})`.replace(/ \)$/, ')') : '';
    return { authenticated: true, detail: `token issued and balance read${amount}; source: ${source}` };
  } catch (err) {
    if (input.signal.aborted) throw err;
    const code = err instanceof AssistantError ? err.code : undefined;
    // A refused secret is "not authenticated"; an unreachable API says nothing about the credentials.
    const refused = code !== undefined && /unauthori[sz]ed|invalid_client|no_credentials|forbidden|auth/i.test(code);
    return { authenticated: refused ? false : null, detail: `${code ? `${code}: ` : ''}${shortError(err)}` };
  }
}

/** cloud_a: `aws sts get-caller-identity` with the profile and region the steps would use. */
export async function checkCloudA(input: CheckInput): Promise<CheckResult> {
  const aws = input.toolPath('aws');
  if (!aws) return notInstalled('aws');
  let args: string[];
  try {
    args = awsArgs(['sts', 'get-caller-identity'], resolveAwsTarget(input.config, input.env));
  } catch (err) {
    return { authenticated: false, detail: shortError(err) };
  }
  const env = childEnvironment(input.env, { prefixes: ['AWS_'], set: { AWS_PAGER: '', AWS_CLI_AUTO_PROMPT: 'off' } });
  const run = await runChild(aws, args, { env, timeoutMs: input.timeoutMs, signal: input.signal });
  input.debug?.(`onboarding: aws ${args.join(' ')} -> ${run.timedOut ? 'timed out' : `exit ${run.code}`} in ${run.ms} ms`);
  if (run.code === 0) {
    const arn = parseJson<{ Arn?: string }>(run.stdout)?.Arn;
    return { authenticated: true, ...(arn ? { identity: arn } : {}), detail: 'aws sts get-caller-identity answered' };
  }
  return { authenticated: run.timedOut || run.aborted || run.notFound ? null : false, detail: failureLine(run, input.timeoutMs) };
}

/** cloud_b: `gcloud auth list`: an active account. */
export async function checkCloudB(input: CheckInput): Promise<CheckResult> {
  const gcloud = input.toolPath('gcloud');
  if (!gcloud) return notInstalled('gcloud');
  const env = childEnvironment(input.env, { prefixes: ['CLOUDSDK_'], set: { CLOUDSDK_CORE_DISABLE_PROMPTS: '1' } });
  const args = ['auth', 'list', '--format=json'];
  const run = await runChild(gcloud, args, { env, timeoutMs: input.timeoutMs, signal: input.signal });
  input.debug?.(`onboarding: gcloud ${args.join(' ')} -> ${run.timedOut ? 'timed out' : `exit ${run.code}`} in ${run.ms} ms`);
  if (run.code !== 0) return { authenticated: run.timedOut || run.aborted || run.notFound ? null : false, detail: failureLine(run, input.timeoutMs) };
  const accounts = parseJson<{ account?: string; status?: string }[]>(run.stdout) ?? [];
  const active = Array.isArray(accounts) ? accounts.find((a) => String(a.status).toUpperCase() === 'ACTIVE') : undefined;
  if (!active) return { authenticated: false, detail: Array.isArray(accounts) && accounts.length ? 'gcloud has accounts but none is active' : 'gcloud has no credentialed accounts' };
  return { authenticated: true, ...(active.account ? { identity: active.account } : {}), detail: 'gcloud auth list shows an active account' };
}

/** cloud_c: `az account show` (of infra.cloud_c.subscription_id when set). */
export async function checkCloudC(input: CheckInput): Promise<CheckResult> {
  const az = input.toolPath('az');
  if (!az) return notInstalled('az');
  const sub = input.config.infra?.cloud_c?.subscription_id?.trim();
  const args = ['account', 'show', '-o', 'json', ...(sub ? ['--subscription', sub] : [])];
  const env = childEnvironment(input.env, { names: ['AZURE_CONFIG_DIR'], set: { AZURE_CORE_NO_COLOR: 'true', AZURE_CORE_OUTPUT: 'json', AZURE_CORE_COLLECT_TELEMETRY: 'false' } });
  const run = await runChild(az, args, { env, timeoutMs: input.timeoutMs, signal: input.signal });
  input.debug?.(`onboarding: az ${args.join(' ')} -> ${run.timedOut ? 'timed out' : `exit ${run.code}`} in ${run.ms} ms`);
  if (run.code !== 0) return { authenticated: run.timedOut || run.aborted || run.notFound ? null : false, detail: failureLine(run, input.timeoutMs) };
  const account = parseJson<{ name?: string; id?: string; user?: { name?: string } }>(run.stdout);
  const identity = [account?.user?.name, account?.name ? `subscription "${account.name}"` : undefined].filter(Boolean).join(', ');
  return { authenticated: true, ...(identity ? { identity } : {}), detail: 'az account show answered' };
}

/** k8s: the API server of the context a command would use: its /version, then an authenticated read. */
export async function checkK8s(input: CheckInput): Promise<CheckResult> {
  let context: string;
  let client: KubeClient;
  try {
    const found = contextFor(input.config, input.env, input.home);
    context = found.context;
    // exec credential plugins (aws eks get-token, gke-gcloud-auth-plugin) get their cloud's settings only.
    const env = childEnvironment(input.env, { prefixes: ['AWS_', 'CLOUDSDK_'], names: ['KUBECONFIG', 'GOOGLE_APPLICATION_CREDENTIALS', 'AZURE_CONFIG_DIR'] });
    client = new KubeClient({ kubeconfig: found.kubeconfig, env, timeoutMs: input.timeoutMs, debug: input.debug });
  } catch (err) {
    return { authenticated: false, detail: shortError(err) };
  }
  try {
    let version: string | undefined;
    try {
      const v = await client.request(context, { method: 'GET', path: '/version', signal: input.signal });
      const data = v.data as { gitVersion?: unknown } | undefined;
      if (typeof data?.gitVersion === 'string') version = data.gitVersion;
    } catch (err) {
      // /version is often open to anyone: only a refusal or an unreachable server ends the check here.
      if (!(err instanceof KubeApiError) || err.status === 401) throw err;
    }
    // Discovery and /version may be anonymous; listing one namespace needs an identity.
    try {
      await client.request(context, { method: 'GET', path: '/api/v1/namespaces?limit=1', signal: input.signal });
    } catch (err) {
      if (!(err instanceof KubeApiError) || err.status !== 403 || /system:anonymous/.test(err.message)) throw err;
    }
    return { authenticated: true, identity: `context "${context}"`, detail: `the API server accepted the credentials${version ? ` (Kubernetes ${version})` : ''}` };
  } catch (err) {
    if (input.signal.aborted) throw err;
    const refused = err instanceof KubeApiError && (err.status === 401 || err.status === 403);
    return { authenticated: refused ? false : null, identity: `context "${context}"`, detail: shortError(err) };
  } finally {
    client.close();
  }
}

/**
 * repohost: `gh auth status`. When the project's own token is what deploy would use (repohost.token,
 * REPOHOST_TOKEN), that token is the one checked: it reaches gh as GH_TOKEN in its environment, never
 * on its command line.
 */
export async function checkRepohost(input: CheckInput): Promise<CheckResult> {
  const gh = input.toolPath('gh');
  if (!gh) return notInstalled('gh');
  const used = input.sources.find((s) => s.used);
  const set: Record<string, string> = { GH_PROMPT_DISABLED: '1', NO_COLOR: '1' };
  const names = ['GH_CONFIG_DIR', 'GH_HOST'];
  if (used?.where.endsWith('repohost.token') && input.config.repohost?.token) set.GH_TOKEN = input.config.repohost.token.trim();
  else if (used?.where === 'REPOHOST_TOKEN' && input.env.REPOHOST_TOKEN) set.GH_TOKEN = input.env.REPOHOST_TOKEN.trim();
  else if (used?.where === 'GH_TOKEN') names.push('GH_TOKEN');
  else if (used?.where === 'GITHUB_TOKEN') names.push('GITHUB_TOKEN');
  const env = childEnvironment(input.env, { names, set });
  const run = await runChild(gh, ['auth', 'status'], { env, timeoutMs: input.timeoutMs, signal: input.signal });
  input.debug?.(`onboarding: gh auth status -> ${run.timedOut ? 'timed out' : `exit ${run.code}`} in ${run.ms} ms`);
  if (run.code !== 0) return { authenticated: run.timedOut || run.aborted || run.notFound ? null : false, detail: failureLine(run, input.timeoutMs) };
  const text = `${run.stdout}\n${run.stderr}`;
  const m = /Logged in to (\S+) (?:account|as) ([\w-]+)/.exec(text);
  return { authenticated: true, ...(m ? { identity: `${m[2]} on ${m[1]}` } : {}), detail: 'gh auth status: logged in' };
}

function parseJson<T>(text: string): T | undefined {
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}
