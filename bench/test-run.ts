/**
 * The `npm test` row (issue 40): the bench does not run the suite (minutes); it reports the last whole
 * run of it in this checkout, which scripts/run-tests.mjs records in dist/.test-run.json, with when it
 * ran, how many files ran at once and how busy the machine was.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { THIS_BUILD, type Row } from './fixtures.js';

interface TestRun {
  at: string;
  wallMs: number;
  files: number;
  jobs: number;
  load: number[];
  passed: number;
  failed: number;
}

export function lastTestRun(): Row {
  const measure = '`npm test` wall time (last whole run in this checkout)';
  let run: TestRun;
  try {
    run = JSON.parse(readFileSync(join(THIS_BUILD.root, 'dist', '.test-run.json'), 'utf8')) as TestRun;
  } catch {
    return { measure, values: { [THIS_BUILD.label]: 'no whole run recorded (npm test records one)' }, target: '≤ 8 min' };
  }
  const minutes = run.wallMs / 60_000;
  const value = `${minutes.toFixed(1)} min (${run.at}, ${run.files} files, ${run.jobs} at once, ${run.passed} passed / ${run.failed} failed, load at the end ${run.load.map((l) => l.toFixed(1)).join(' / ')})`;
  return { measure, values: { [THIS_BUILD.label]: value }, target: '≤ 8 min', met: minutes <= 8 };
}
