/**
 * `assistant config init`: a first config file without hand-editing the example (issue 38 §6). It
 * asks on a terminal (a provider with a credentials capability, then each of its fields that is a key
 * of its config section, secrets hidden), or takes `--set KEY=VALUE` and `--secret KEY` (read from
 * stdin) in a script. Every key is checked against the schema (did-you-mean) and the whole file is
 * validated before it is written, 0600. Then the credentials are verified with the same checks as
 * `onboarding scan --check` (that command itself runs, for the providers written).
 *
 * Names no provider: the questions come from the providers' `credentials.fields` and the schema.
 */
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { resolveConfigPath } from '../engine/core/config/load.js';
import { resolveConfigKey } from '../engine/core/config/keys.js';
import { InvalidInputError, UsageError } from '../engine/core/errors.js';
import { ensurePrivateDir, writePrivateFile } from '../engine/core/private-file.js';
import { registerSecret, redactText } from '../engine/core/redact.js';
import { yaml } from '../engine/core/yaml.js';
import { configSchema, parseConfigText } from '../engine/providers/config.js';
import { providersWith } from '../engine/providers/index.js';
import { isSecretKey } from '../schemas/config-defaults.js';
import { readValue } from './config-edit.js';
import { warn, writeLine, type CommandContext } from './context.js';
import { flag, type FlagSpec, type OptionsOf } from './flag-spec.js';

/** What `config init`'s flags are; InitFlags is derived from it. */
export const INIT_FLAGS = {
  set: flag.list(flag.text()).option('--set <key=value>', 'A key to write (repeatable): --set gpucloud.client_id=ID'),
  secret: flag.text().option('--secret <key>', 'A secret key whose value is read from stdin (never from argv)'),
  force: flag.bool().option('--force', 'Replace an existing file'),
  /** false with --no-check. */
  check: flag.bool().option('--no-check', "Do not verify the credentials afterwards (the check is 'onboarding scan --check')"),
} satisfies FlagSpec;

export type InitFlags = OptionsOf<typeof INIT_FLAGS>;

export async function init(ctx: CommandContext, flags: InitFlags): Promise<number> {
  const file = resolveConfigPath(ctx.globals.config, ctx.home);
  if (existsSync(file) && !flags.force) {
    throw new InvalidInputError('config_exists', `${file} exists already; nothing was written`, {
      hint: `change one key with 'assistant config set KEY VALUE', or add --force to replace the file (a new context: assistant --context NAME config init)`,
    });
  }
  const schema = await configSchema();
  const values: { path: string[]; value: unknown }[] = [];
  for (const pair of flags.set ?? []) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`--set ${pair}: expected KEY=VALUE`, { hint: 'assistant config init --set gpucloud.client_id=abc' });
    const { path, kind } = resolveConfigKey(schema, pair.slice(0, eq));
    if (kind === 'section') throw new UsageError(`--set ${pair}: ${pair.slice(0, eq)} is a section, not a value`);
    const raw = pair.slice(eq + 1);
    if (isSecretKey(path[path.length - 1]!)) warn(ctx, `the value of ${pair.slice(0, eq)} is now in your shell's history; next time use --secret ${pair.slice(0, eq)} and pipe it in`);
    values.push({ path, value: kind === 'string' ? raw : yaml().parse(raw) });
  }
  if (flags.secret !== undefined) {
    const { path } = resolveConfigKey(schema, flags.secret);
    const value = await readValue(ctx, `--secret ${flags.secret}`);
    registerSecret(value);
    values.push({ path, value });
  }
  if (values.length === 0) {
    if (!ctx.io.stdinIsTTY) {
      throw new UsageError('config init needs a terminal to ask on, or the values as flags', {
        hint: 'assistant config init --set gpucloud.client_id=ID --secret gpucloud.client_secret < secret.txt',
      });
    }
    values.push(...(await ask(ctx)));
  }

  const doc = new (yaml().Document)({});
  for (const { path, value } of values) doc.setIn(path, value);
  const text = `# written by 'assistant config init'; every key: examples/assistant.example.yaml, docs/configuration.md\n${doc.toString({ lineWidth: 0 })}`;
  const { warnings } = await parseConfigText(text, file); // refuses a wrong value with the loader's message; nothing written
  for (const w of warnings) warn(ctx, redactText(w));
  if (dirname(file) !== ctx.home) ensurePrivateDir(dirname(file));
  writePrivateFile(file, text);
  writeLine(ctx.io.stderr, `wrote ${file} (mode 0600)`);

  const withCredentials = new Set((await providersWith('credentials')).map((p) => p.name));
  const providers = [...new Set(values.map((v) => v.path[0]!))].filter((s) => withCredentials.has(s));
  if (flags.check === false || providers.length === 0) return 0;
  // The same checks as `onboarding scan --check`: that command, for the providers just written.
  writeLine(ctx.io.stderr, `checking ${providers.join(', ')} (as 'assistant onboarding scan --check' does)…`);
  const { run } = await import('./onboarding.js');
  const code = await run(['scan', '--provider', providers.join(','), '--require', providers.join(',')], ctx);
  if (code !== 0) writeLine(ctx.io.stderr, `the file is written; fix the values with 'assistant config set KEY VALUE' and check again with 'assistant onboarding scan --check'`);
  return code;
}

async function ask(ctx: CommandContext): Promise<{ path: string[]; value: unknown }[]> {
  const { askLine, prompt } = await import('./prompt.js');
  const schema = await configSchema();
  const providers = (await providersWith('credentials'))
    .map((p) => ({
      name: p.name,
      what: p.capabilities.credentials.what,
      // A field that is also a key of the provider's own section is asked for; the others live elsewhere (the backend store).
      fields: (p.capabilities.credentials.fields ?? []).filter((f) => {
        try {
          return resolveConfigKey(schema, `${p.name}.${f.name}`).kind !== 'section';
        } catch {
          return false;
        }
      }),
    }))
    .filter((p) => p.fields.length > 0);
  const names = providers.map((p) => p.name);
  writeLine(ctx.io.stderr, `providers you can set up here: ${names.join(', ')}`);
  const chosen = await askLine(ctx, `provider (${names[0]}, …):`, (a) => (names.includes(a) ? undefined : `one of ${names.join(', ')}`));
  const provider = providers.find((p) => p.name === chosen)!;
  if (provider.what) writeLine(ctx.io.stderr, provider.what);
  const out: { path: string[]; value: unknown }[] = [];
  for (const f of provider.fields) {
    const answer = (await prompt(ctx, `${f.description}${f.required ? '' : ' (Enter to skip)'}: `, f.secret)).trim();
    if (!answer) {
      if (f.required) throw new UsageError(`${provider.name}.${f.name} is required; nothing was written`, { hint: 'run assistant config init again' });
      continue;
    }
    if (f.secret) registerSecret(answer);
    out.push({ path: [provider.name, f.name], value: answer });
  }
  return out;
}
