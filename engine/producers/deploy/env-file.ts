/**
 * `--env-file`: `NAME=value` lines (`export` allowed, `#` comments, single or double quotes stripped).
 * Values whose names look secret are registered with the redactor at once, so no output can show them.
 */
import { readFileSync } from 'node:fs';
import { InvalidInputError } from '../../core/errors.js';
import { registerSecret } from '../../core/redact.js';
import { SECRET_NAME } from './analyse.js';
import type { EnvValue } from '../../core/deploy-types.js';

export function readEnvFile(path: string): EnvValue[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new InvalidInputError('env_file_not_found', `cannot read --env-file ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  return parseEnv(text, path);
}

export function parseEnv(text: string, source = 'env file'): EnvValue[] {
  const out = new Map<string, EnvValue>();
  text.replace(/^\uFEFF/, '').split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (!line || line.startsWith('#')) return;
    const m = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
    // The line is not shown: it may hold a secret.
    if (!m) throw new InvalidInputError('invalid_env_file', `${source} line ${i + 1} is not NAME=value`);
    let value = m[2]!;
    const quoted = /^(['"])(.*)\1$/.exec(value);
    if (quoted) value = quoted[2]!;
    else value = value.replace(/\s+#.*$/, '');
    const secret = SECRET_NAME.test(m[1]!);
    if (secret) registerSecret(value);
    out.set(m[1]!, { name: m[1]!, value, secret });
  });
  return [...out.values()];
}
