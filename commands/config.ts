/**
 * `assistant config show|path`: the effective configuration (secrets masked) and where each provider's
 * credentials come from, as its `credentials` capability shows them (gpucloud's). Thin: loading is
 * engine/core/config/load.ts, resolution the providers' own.
 */
import { existsSync } from 'node:fs';
import { stringify } from 'yaml';
import { isSecretKey } from '../schemas/config.js';
import { resolveConfigPath } from '../engine/core/config/load.js';
import { loadConfig } from '../engine/providers/config.js';
import { maskSecret, redactText } from '../engine/core/redact.js';
import { providersWith } from '../engine/providers/index.js';
import { warn, writeLine, type CommandContext } from './context.js';
import { runGroup } from './group.js';

export async function run(argv: string[], ctx: CommandContext): Promise<number> {
  return runGroup(
    'config',
    argv,
    ctx,
    (cli, start) => {
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
      cli.example('  assistant config show');
      cli.example('  assistant config show -o json');
      cli.example('  assistant --config ./team.yaml config show');
      cli.example('  assistant config path');
    },
    'The file is ~/.assistant.yaml unless --config <path> is given; examples/assistant.example.yaml lists every key.\n' +
      'Output follows -o: yaml (default, also for table) or json. Secrets are always masked.',
  );
}

function showPath(ctx: CommandContext): number {
  const path = resolveConfigPath(ctx.globals.config, ctx.home);
  ctx.out.text(path + '\n');
  if (!existsSync(path)) writeLine(ctx.io.stderr, `note: ${path} does not exist; built-in defaults apply`);
  return 0;
}

async function show(ctx: CommandContext): Promise<number> {
  const loaded = loadConfig({ path: ctx.globals.config, home: ctx.home, env: ctx.env });
  for (const w of loaded.warnings) warn(ctx, redactText(w));

  const credentials: Record<string, Record<string, unknown>> = {};
  for (const p of await providersWith('credentials')) {
    const shown = p.capabilities.credentials.show?.({ config: loaded.config, env: ctx.env, home: ctx.home, configPath: loaded.path, warn: (line) => warn(ctx, redactText(line)) });
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

/** Secret-named keys are shown as maskSecret does (prefix + ***); other strings still pass the registered-secret filter. */
function maskConfig(value: unknown, key?: string): unknown {
  if (typeof value === 'string') return key !== undefined && isSecretKey(key) ? maskSecret(value) : redactText(value);
  if (Array.isArray(value)) return value.map((v) => maskConfig(v));
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => [k, maskConfig(v, k)]),
    );
  }
  return value;
}

function redactStrings(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, typeof v === 'string' && k !== 'client_secret' ? redactText(v) : v]),
  );
}
