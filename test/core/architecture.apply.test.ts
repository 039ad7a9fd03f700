/**
 * One apply path (issue 22): the executor (`runPlan`, machines/run/run-plan.ts) is called by the apply
 * module (machines/apply/) and by nothing else among the producers — commands, the MCP server, the ask
 * flow, engine code. A producer that imported it could change things past the budget, the name
 * reservations and the journal. Types (PlanBackend, RunOutcome…) may be imported anywhere.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const PRODUCER_DIRS = ['commands', 'mcp', 'machines', 'engine', 'emulator', 'schemas'];

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : name.endsWith('.ts') ? [path] : [];
  });
}

/** The value (not type-only) names a file imports from machines/run-plan. */
function runPlanValueImports(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/import\s+(type\s+)?\{([^}]*)\}\s+from\s+'[^']*run-plan\.js'/g)) {
    if (m[1]) continue;
    for (const part of m[2]!.split(',')) {
      const name = part.trim();
      if (name && !name.startsWith('type ')) out.push(name.split(/\s+as\s+/)[0]!);
    }
  }
  if (/import\(\s*'[^']*run-plan\.js'\s*\)/.test(text)) out.push('(dynamic import)');
  return out;
}

test('only the apply module calls the executor: no producer imports runPlan', () => {
  const offenders: string[] = [];
  const callers: string[] = [];
  for (const dir of PRODUCER_DIRS) {
    for (const file of sources(join(ROOT, dir))) {
      const rel = relative(ROOT, file);
      const names = runPlanValueImports(readFileSync(file, 'utf8'));
      if (!names.length) continue;
      if (rel.startsWith('machines/apply/')) callers.push(rel);
      else offenders.push(`${rel}: ${names.join(', ')}`);
    }
  }
  assert.equal(offenders, [], `these import the executor directly:\n${offenders.join('\n')}`);
  assert.ok(callers.length >= 1, 'the apply module itself imports runPlan');
});

test('the check finds a direct import (the test can fail)', () => {
  assert.equal(runPlanValueImports("import { runPlan, type PlanBackend } from '../machines/run-plan.js';"), ['runPlan']);
  assert.equal(runPlanValueImports("import type { PlanBackend } from './run-plan.js';"), []);
});

test.run();
