/** `onboarding scan --check` for cloud_a: `aws sts get-caller-identity` with the profile and region the steps would use. */
import type { CheckInput, CheckResult } from '../../core/capabilities.js';
import { notInstalled, parseJson, shortError } from '../../core/credential-sources.js';
import { childEnvironment } from '../../core/process/child-env.js';
import { failureLine, runChild } from '../../core/process/run-child.js';
import { awsArgs } from './args.js';
import { resolveAwsTarget } from './target.js';

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
