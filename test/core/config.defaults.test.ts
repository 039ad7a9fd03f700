/**
 * A command that finds no config file uses the empty config without loading the schema (zod):
 * schemas/config-defaults.ts writes it out. It must stay exactly what the schema makes of an empty file.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { emptyConfig } from '../../schemas/config.js';
import { emptyConfigValue } from '../../schemas/config-defaults.js';
import { configSchema, loadConfig } from '../../engine/providers/config.js';

/** The root composed from the neutral sections and every provider's. */
const ConfigSchema = await configSchema();

test('the empty config written out equals what ConfigSchema makes of an empty file', () => {
  assert.equal(emptyConfigValue(), ConfigSchema.parse({}));
  assert.equal(emptyConfig(), ConfigSchema.parse({}));
});

test('without a config file the loader returns that empty config, and each call a fresh copy', async () => {
  const home = mkdtempSync(join(tmpdir(), 'assistant-cfg-'));
  try {
    const a = await loadConfig({ home });
    assert.is(a.exists, false);
    assert.equal(a.config, ConfigSchema.parse({}));
    a.config.ai.max_chunks = 1;
    assert.is((await loadConfig({ home })).config.ai.max_chunks, ConfigSchema.parse({}).ai.max_chunks);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

test.run();
