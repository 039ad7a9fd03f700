/**
 * What an `aws` step's parameters really say, and which of them touch the user's machine.
 *
 * Decoding (engine/core/kits/cli/decode.ts): a value the CLI reads as JSON (it starts with `{` or `[`) must be
 * strict JSON; `--cli-input-json` is decoded and searched for the parameters the rules look at;
 * `--cli-input-yaml` is refused (aws-cli reads YAML 1.1, which no reader here reproduces exactly);
 * the parameters the rules look at are decoded as JSON or shorthand and converted the way aws-cli
 * converts them (`int()` for counts).
 *
 * Local side effects: aws-cli reads a local file for any parameter written `file://` or `fileb://`
 * (also `key@=file://…` inside shorthand), for a streaming blob parameter (`s3api put-object --body
 * PATH`), for `s3 cp|sync|mv` local paths and a few customizations (`--template-file`,
 * `--priv-launch-key`, …), and writes one for every streaming output (`s3api get-object … OUTFILE`),
 * every `--…-outfile` and `s3 cp|sync|mv` to a local destination. Each is refused, except a read of
 * an artefact under `--files DIR` (engine/core/kits/cli/artefacts.ts).
 */
import { option, type ParsedCommand } from '../../core/kits/cli/argv.js';
import { artefactIn, artefactProblem } from '../../core/kits/cli/artefacts.js';
import { decodeAwsParam, decodeJson, looksLikeJson, valuesAt } from '../../core/kits/cli/decode.js';
import { AWS_STREAMING_INPUT, AWS_STREAMING_OUTPUT } from './streaming.js';

/** Options that are not API parameters: aws-cli never decodes them (`--query` is a JMESPath expression). */
const NOT_PARAMETERS = new Set(['--query', '--output', '--region', '--profile', '--endpoint-url', '--color', '--ca-bundle', '--cli-read-timeout', '--cli-connect-timeout', '--cli-binary-format', '--cli-input-json']);

/** The high-level `s3` commands (their options are filters and flags, not API parameters). */
const S3_COMMANDS = new Set(['cp', 'mv', 'sync', 'rm', 'ls', 'mb', 'rb', 'presign', 'website']);
const isS3HighLevel = (cmd: ParsedCommand) => cmd.words[0] === 's3' && S3_COMMANDS.has(cmd.words[1] ?? '');

/** Parameters some rule looks at: decoded (JSON or shorthand) whenever present. */
export const INSPECTED_PARAMETERS: Record<string, string> = {
  '--scaling-config': 'scalingConfig',
  '--change-batch': 'ChangeBatch',
  '--request-items': 'RequestItems',
  '--lifecycle-configuration': 'LifecycleConfiguration',
  '--desired-count': 'desiredCount',
  '--desired-capacity': 'DesiredCapacity',
  '--max-size': 'MaxSize',
  '--reserved-concurrent-executions': 'ReservedConcurrentExecutions',
  '--overwrite': 'Overwrite',
};

/** A parameter's values from argv (decoded) and from inline `--cli-input-json`; a placeholder is `undefined` (decided at run time). */
export function param(cmd: ParsedCommand, opt: string, jsonKey: string): unknown[] {
  const out: unknown[] = [];
  for (const v of option(cmd, opt) ?? []) {
    if (/<[A-Z][A-Z0-9_]*>/.test(v)) {
      out.push(undefined);
      continue;
    }
    const d = decodeAwsParam(v);
    out.push('value' in d ? d.value : undefined);
  }
  for (const v of option(cmd, '--cli-input-json') ?? []) {
    const d = decodeJson(v);
    if (!('value' in d)) out.push(undefined);
    else out.push(...valuesAt(d.value, jsonKey));
  }
  return out;
}

/** Problems decoding the step's parameters as aws-cli would (the step is invalid). */
export function decodeProblems(cmd: ParsedCommand): string[] {
  const problems: string[] = [];
  if (option(cmd, '--cli-input-yaml') !== undefined) {
    problems.push('--cli-input-yaml is not accepted (aws-cli reads YAML 1.1, which the gate cannot reproduce exactly); use --cli-input-json');
  }
  for (const v of option(cmd, '--cli-input-json') ?? []) {
    if (/^fileb?:\/\//i.test(v)) continue; // a local file: refused as a side effect instead
    const d = decodeJson(v);
    if ('problem' in d) problems.push(`--cli-input-json: ${d.problem}`);
  }
  if (!isS3HighLevel(cmd)) {
    for (const [name, values] of cmd.options) {
      if (!name || NOT_PARAMETERS.has(name)) continue;
      for (const v of values) {
        if (!looksLikeJson(v)) continue;
        const d = decodeJson(v);
        if ('problem' in d) problems.push(`${name}: ${d.problem}`);
      }
    }
  }
  for (const opt of Object.keys(INSPECTED_PARAMETERS)) {
    for (const v of option(cmd, opt) ?? []) {
      if (/<[A-Z][A-Z0-9_]*>/.test(v) || /^fileb?:\/\//i.test(v)) continue;
      const d = decodeAwsParam(v);
      if ('problem' in d && !looksLikeJson(v)) problems.push(`${opt}: ${d.problem}`);
    }
  }
  return [...new Set(problems)];
}

// --- local side effects -------------------------------------------------------------------------

/** s3 high-level options that take no value (awscli/customizations/s3), and those whose value is optional (taken only when it is one of the choices). */
const S3_FLAGS = new Set([
  '--dryrun', '--follow-symlinks', '--no-follow-symlinks', '--force', '--force-glacier-transfer', '--human-readable', '--ignore-glacier-warnings',
  '--no-guess-mime-type', '--no-progress', '--only-show-errors', '--quiet', '--recursive', '--summarize', '--validate-same-s3-paths',
  '--delete', '--exact-timestamps', '--size-only', '--debug', '--no-verify-ssl', '--no-paginate', '--no-sign-request', '--no-cli-pager',
]);
const S3_OPTIONAL: Record<string, readonly string[]> = { '--sse': ['AES256', 'aws:kms'], '--sse-c': ['AES256'], '--sse-c-copy-source': ['AES256'], '--request-payer': ['requester'] };

/** The positional paths of an `s3` high-level command, in order (options and their values skipped as aws-cli's argparse would). */
export function s3Paths(cmd: ParsedCommand): string[] {
  const args = cmd.args;
  const start = args.findIndex((a, i) => a.toLowerCase() === cmd.words[1] && args[i - 1]?.toLowerCase() === 's3');
  const out: string[] = [];
  for (let i = start + 1; i < args.length; i++) {
    const a = args[i]!;
    if (!a.startsWith('--') || a === '--') {
      out.push(a);
      continue;
    }
    if (a.includes('=')) continue;
    const name = a.toLowerCase();
    if (S3_FLAGS.has(name)) continue;
    if (S3_OPTIONAL[name]) {
      if (S3_OPTIONAL[name]!.includes(args[i + 1] ?? '')) i++;
      continue;
    }
    if (name === '--grants') {
      while (i + 1 < args.length && /^\w+=/.test(args[i + 1]!)) i++;
      continue;
    }
    // Every other option takes one value (an unknown one too: over-cautious is fine, every path is checked).
    i++;
  }
  return out;
}

const isS3Url = (p: string) => /^s3:\/\//i.test(p);

/** Options whose value names a local file the CLI writes. */
const WRITES_LOCAL = /^--(?:.*-)?outfile$|^--save-as$|^--output-template-file$|^--kubeconfig$/;
/** Options whose value names a local file the CLI reads: an artefact may be named, nothing else. */
const READS_LOCAL = /^--(?:template-file|data-file|build-root)$/;
/** Options whose value names a local secret the CLI reads (a private key): never from a plan. */
const READS_SECRET = /^--(?:priv-launch-key|key-pair-file)$/;

/** Why an `aws` step would read or write the user's files (each refuses the step), or []. */
export function localEffects(cmd: ParsedCommand): string[] {
  const out: string[] = [];
  const op = `${cmd.words[0] ?? ''} ${cmd.words[1] ?? ''}`;
  const allValues = [...cmd.rawWords.slice(2), ...[...cmd.options.entries()].flatMap(([, v]) => v)];
  const artefactOk = (v: string) => {
    const ref = artefactIn(v);
    if (!ref) return false;
    const problem = artefactProblem(ref.relative);
    if (problem) out.push(problem);
    return true;
  };
  for (const v of allValues) {
    if (/^\s*fileb?:\/\//i.test(v) && !(/^fileb?:\/\//.test(v) && artefactOk(v))) out.push(`${v.split('//')[0]}// makes the CLI read a local file (${v}); name an artefact instead: file://<FILES>/name with --files DIR`);
    if (/@=\s*['"]?\s*fileb?:\/\//i.test(v)) out.push('a shorthand key written "key@=file://…" makes the CLI read a local file');
  }
  if (AWS_STREAMING_OUTPUT.has(op)) out.push(`${op} writes its response to a local file (OUTFILE); plan steps never write your files`);
  const streamed = AWS_STREAMING_INPUT.get(op);
  if (streamed) for (const v of option(cmd, streamed) ?? []) if (!artefactOk(v)) out.push(`${streamed} ${v}: the CLI reads that local file; name an artefact instead (<FILES>/name with --files DIR)`);
  for (const [name, values] of cmd.options) {
    if (WRITES_LOCAL.test(name)) out.push(`${name} makes the CLI write a local file`);
    if (READS_SECRET.test(name)) out.push(`${name} makes the CLI read a private key file on this machine`);
    if (READS_LOCAL.test(name)) for (const v of values) if (!artefactOk(v)) out.push(`${name} ${v}: the CLI reads that local file; name an artefact instead (<FILES>/name with --files DIR)`);
  }
  // Where the signed request goes is the user's setting (AWS_ENDPOINT_URL, the profile), never a plan's:
  // another server gets a request it can replay to AWS within minutes (`sts get-session-token` → credentials).
  if (option(cmd, '--endpoint-url') !== undefined) out.push('--endpoint-url sends the signed request to another server, which could replay it to AWS; set AWS_ENDPOINT_URL or the profile\'s endpoint_url yourself');
  if (option(cmd, '--ca-bundle') !== undefined) out.push('--ca-bundle reads a certificate file on this machine');
  if (option(cmd, '--no-verify-ssl') !== undefined) out.push('--no-verify-ssl turns off TLS verification (the signed request could be read and replayed)');
  if (cmd.words[0] === 's3' && ['cp', 'mv', 'sync'].includes(cmd.words[1] ?? '')) {
    const paths = s3Paths(cmd);
    const [source, target] = paths;
    const local = (p: string | undefined) => p !== undefined && !isS3Url(p) && p !== '-';
    if (cmd.words[1] === 'mv' && (local(source) || local(target))) out.push('s3 mv with a local path moves (deletes) or writes a file on this machine');
    else {
      if (local(source) && !artefactOk(source!)) out.push(`s3 ${cmd.words[1]} from ${source}: the CLI reads local files; name an artefact instead (<FILES>/name with --files DIR)`);
      if (local(target) && !artefactIn(target!)) out.push(`s3 ${cmd.words[1]} to ${target}: plan steps never write your files`);
      if (local(target) && artefactIn(target!)) out.push(`s3 ${cmd.words[1]} to ${target}: artefacts are read, never written`);
    }
    if (paths.length > 2) out.push(`s3 ${cmd.words[1]} takes two paths (${paths.length} given): the extra ones cannot be told apart from local files`);
    if (option(cmd, '--follow-symlinks') !== undefined) out.push('--follow-symlinks would follow links out of the --files directory');
  }
  return [...new Set(out)];
}
