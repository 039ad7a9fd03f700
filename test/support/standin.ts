/**
 * A stand-in for a cloud CLI that has no emulator here (`gcloud`, `az`): a small node script with the
 * tool's name in a temp dir put first on PATH. It records each call's argv (one JSON line per call) and
 * answers with canned output: the first response whose `match` is contained in the joined argv, else
 * `[]`. A real executable, spawned like the real CLI would be.
 */
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './temp.js';

export interface CannedResponse {
  /** Substring of the argv joined by spaces (`compute instances list`). */
  match: string;
  /** Printed as JSON on stdout (a string is printed as is). */
  stdout?: unknown;
  stderr?: string;
  exit?: number;
  /** Answer only after this long (a slow cloud, to interrupt). */
  sleepMs?: number;
}

export interface StandIn {
  dir: string;
  /** PATH with the stand-in first. */
  path: string;
  /** Every call's argv (without the executable), in order. */
  calls(): string[][];
  /** The process id of every call, in order. */
  pids(): number[];
}

export function standIn(tool: string, responses: CannedResponse[] = [], opts: { dir?: string } = {}): StandIn {
  const dir = opts.dir ?? tempDir('standin-');
  const log = join(dir, `${tool}.calls.jsonl`);
  const config = join(dir, `${tool}.responses.json`);
  const pids = join(dir, `${tool}.pids`);
  writeFileSync(config, JSON.stringify(responses));
  const script = `#!${process.execPath}
const fs = require('fs');
const argv = process.argv.slice(2);
fs.appendFileSync(${JSON.stringify(log)}, JSON.stringify(argv) + '\\n');
fs.appendFileSync(${JSON.stringify(pids)}, process.pid + '\\n');
const joined = argv.join(' ');
const r = JSON.parse(fs.readFileSync(${JSON.stringify(config)}, 'utf8')).find((x) => joined.includes(x.match)) || { stdout: [] };
const answer = () => {
  if (r.stderr) process.stderr.write(r.stderr + '\\n');
  if (r.stdout !== undefined) process.stdout.write((typeof r.stdout === 'string' ? r.stdout : JSON.stringify(r.stdout)) + '\\n');
  process.exitCode = r.exit || 0;
};
if (r.sleepMs) setTimeout(answer, r.sleepMs); else answer();
`;
  const file = join(dir, tool);
  writeFileSync(file, script);
  chmodSync(file, 0o755);
  return {
    dir,
    path: `${dir}:${process.env.PATH ?? ''}`,
    pids: () => (existsSync(pids) ? readFileSync(pids, 'utf8').split('\n').filter(Boolean).map(Number) : []),
    calls: () =>
      existsSync(log)
        ? readFileSync(log, 'utf8')
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l) as string[])
        : [],
  };
}
