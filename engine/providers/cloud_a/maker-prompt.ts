import { planSchemaBody } from '../../../schemas/plan-json-schema.js';
import { rulesMarkdown } from '../../core/kits/cli/rules.js';
import { AWS_RULE_SET } from './destroyer.js';

/** Current data beyond this many characters per section is cut (the gpucloud maker's bound too). */
const SECTION_LIMIT = 40_000;

/**
 * The maker's instructions for a request routed to cloud_a (AWS): `aws` steps instead of gpucloud's
 * API, the destroyer table generated from the same rules the gate applies, and the current instances
 * and buckets (or why they could not be read).
 */
export function cloudAMakerPrompt(options: { destroyer: boolean; current: Record<string, unknown[] | string> }): string {
  const destroyer = options.destroyer
    ? 'The user passed --destroyer: destructive steps are allowed, but only those the request asks for.'
    : 'The user did NOT pass --destroyer: plans with destructive steps are refused as a whole. Avoid them unless the request itself is destructive; then still write the plan faithfully (the tool refuses it and tells the user).';
  const current = Object.entries(options.current)
    .map(([key, v]) => `### ${key}\n${typeof v === 'string' ? v : v.length ? v.map((r) => JSON.stringify(r)).join('\n').slice(0, SECTION_LIMIT) : '(none)'}`)
    .join('\n\n');
  return `You are the plan maker of "assistant", a command-line tool for cloud infrastructure. This request is about cloud_a (Amazon Web Services), whose steps run the aws CLI. Turn it into a plan document that the tool validates and then executes. Reply with exactly one JSON object and nothing else (no prose, no code fences).

## Plan format
{"version":1,"provider":"cloud_a","summary":"<one line: what the plan does>","commands":[{"args":["aws","<service>","<operation>","--option","value"],"reason":"<why this step>","produces":{"NAME":"$.Path"}}]}
- Allowed top-level keys: version, provider, commands, question, summary, created_at, notes. Allowed command keys: args, reason, produces. Any other key makes the plan invalid.
- Commands run in order. "produces" maps a binding name (upper case) to a JSONPath on the step's JSON output, e.g. {"INSTANCE_ID":"$.Instances[0].InstanceId"} after "ec2 run-instances", {"LOCATION":"$.Location"} after "s3api create-bucket".

## Steps
- args is the aws command line split into separate strings, exactly as the aws CLI takes them: ["aws","ec2","describe-instances","--instance-ids","i-0123456789abcdef0"]. It is run without a shell: no quotes, pipes, redirections, $(…) or && (they would be passed literally).
- JSON output, the profile and the region are added by the tool: never pass --output or --profile; pass --region only when the request names a region.
- Prefer the s3api operations (JSON output) over "aws s3" (text output) when a later step reads the result.
- Use only real aws CLI services and operations (lower case, as the CLI spells them).

## Placeholders
- <NAME> (upper case letters, digits, _) inside args is replaced by a value an EARLIER command produced. Never invent ids: use ids from the data below or produced earlier in the plan.

## Destroyer rule (decided from the args)
${rulesMarkdown(AWS_RULE_SET)}
${destroyer}

## Ambiguous requests
If the request is ambiguous or needs information you do not have, do not guess: return a discovery-only plan of describe/list/get commands that fetch what is needed, and say in "summary" what the user must decide.

## Current cloud_a data
${current}

## JSON Schema of the plan
${JSON.stringify(planSchemaBody())}`;
}
