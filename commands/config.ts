/**
 * `assistant config show|path|get|set|unset|init|use|contexts`: the effective configuration (secrets
 * masked) and where each provider's credentials come from, as its `credentials` capability shows them;
 * the file edited by key (config-edit.ts), written the first time (config-init.ts), and the named
 * contexts (engine/core/config/contexts.ts). Thin: loading is engine/core/config/load.ts, resolution
 * the providers' own.
 */
import { existsSync } from 'node:fs';
import { stringify } from 'yaml';
import { resolveConfigPath } from '../engine/core/config/load.js';
import { loadConfig } from '../engine/providers/config.js';
import { redactText } from '../engine/core/redact.js';
import { contexts, getKey, maskConfig, setKey, unsetKey, use } from './config-edit.js';
import { init, INIT_FLAGS, type InitFlags } from './config-init.js';
import { withFlags } from './flag-spec.js';
import { providersWith } from '../engine/providers/index.js';
import { warn, writeLine, type CommandContext } from './context.js';
import { runGroup } from './group.js';

/** What `assistant config --help` says after the commands. */
const FOOTER = 'The file is ~/.assistant.yaml unless --config <path> or a context (--context NAME, ASSISTANT_CONTEXT, config use) names another;\n' +
  'examples/assistant.example.yaml lists every key. Output follows -o: yaml (default, also for table) or json. Secrets are always masked.';

export async function run(argv: string[], ctx: CommandContext): Promise<number> {
  return runGroup('config', argv, ctx, { footer: FOOTER, flags: { init: INIT_FLAGS } }, (cli, start) => {
    cli
      .command('show', 'Print the effective configuration (secrets masked) and where gpucloud credentials come from')
      .example('  assistant config show')
      .example('  assistant config show -o json | jq .credentials')
      .example('  assistant --config ./team.yaml config show')
      .action(() => start(() => show(ctx)));
    cli
      .command('path', 'Print the path of the configuration file in use')
      .example('  assistant config path')
      .action(() => start(async () => showPath(ctx)));
    cli
      .command('get <key>', 'Print one key of the effective configuration (dotted: gpucloud.default_location); exit 1 when not set')
      .example('  assistant config get gpucloud.default_location')
      .example('  assistant config get ai.max_prompt_chars')
      .action((key: string) => start(async () => getKey(ctx, key)));
    cli
      .command('set <key> [value]', 'Set one key in the config file (checked against the schema; comments kept; 0600). Without a value (or -) it is read from stdin or a hidden prompt')
      .example('  assistant config set gpucloud.default_location FIN-01')
      .example('  printf %s "$SECRET" | assistant config set gpucloud.client_secret')
      .example('  assistant --context work config set budget.max_hourly 20')
      .action((key: string, value: string | number | undefined) => start(() => setKey(ctx, key, value === undefined ? undefined : String(value))));
    cli
      .command('unset <key>', 'Remove one key from the config file')
      .example('  assistant config unset gpucloud.default_location')
      .action((key: string) => start(() => unsetKey(ctx, key)));
    withFlags(cli.command('init', 'Write a first config file: asks on a terminal, or takes --set/--secret; then checks the credentials'), INIT_FLAGS)
      .example('  assistant config init                                  # asks')
      .example('  printf %s "$SECRET" | assistant config init --set gpucloud.client_id=ID --secret gpucloud.client_secret')
      .example('  assistant --context work config init                   # a new context: ~/.assistant/contexts/work.yaml')
      .action((flags: InitFlags) => start(() => init(ctx, flags)));
    cli
      .command('use <context>', 'Make a context current for later commands: default, sandbox, or a named one')
      .example('  assistant config use sandbox      # every command runs against the local sandbox')
      .example('  assistant config use work         # ~/.assistant/contexts/work.yaml')
      .example('  assistant config use default      # back to ~/.assistant.yaml')
      .action((name: string) => start(async () => use(ctx, name)));
    cli
      .command('contexts', 'List the contexts, the current one marked')
      .example('  assistant config contexts')
      .action(() => start(async () => contexts(ctx)));
    cli.example('  assistant config show');
    cli.example('  assistant config show -o json');
    cli.example('  assistant --config ./team.yaml config show');
    cli.example('  assistant config path');
    cli.example('  assistant config set gpucloud.default_location FIN-01');
    cli.example('  assistant config use sandbox');
  });
}

function showPath(ctx: CommandContext): number {
  const path = resolveConfigPath(ctx.globals.config, ctx.home);
  ctx.out.text(path + '\n');
  if (!existsSync(path)) writeLine(ctx.io.stderr, `note: ${path} does not exist; built-in defaults apply`);
  return 0;
}

async function show(ctx: CommandContext): Promise<number> {
  const loaded = await loadConfig({ path: ctx.globals.config, home: ctx.home, env: ctx.env });
  for (const w of loaded.warnings) warn(ctx, redactText(w));

  const credentials: Record<string, Record<string, unknown>> = {};
  for (const p of await providersWith('credentials')) {
    const shown = await p.capabilities.credentials.show?.({ config: loaded.config, env: ctx.env, home: ctx.home, configPath: loaded.path, warn: (line) => warn(ctx, redactText(line)) });
    if (shown) credentials[p.name] = redactStrings(shown);
  }

  const document = {
    file: loaded.path,
    exists: loaded.exists,
    config: maskConfig(loaded.config),
    credentials,
  };
  // YAML by default (also for -o table): the document nests too deep for a table.
  ctx.out.value(document, { table: () => stringify(document, { lineWidth: 0 }) });
  return 0;
}

function redactStrings(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, typeof v === 'string' && k !== 'client_secret' ? redactText(v) : v]),
  );
}
