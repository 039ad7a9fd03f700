/**
 * Test helpers for onboarding: stand-in executables on a controlled PATH (package managers and cloud
 * CLIs as small node scripts that record their argv and environment and answer by rules), a local HTTP
 * server serving archives, and archive builders. Every temp dir is registered and removed by `cleanup()`.
 */
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tar from 'tar';
import yazl from 'yazl';

const dirs: string[] = [];

/** A temp dir removed by cleanup(). */
export function tempDir(prefix = 'onboarding-test-'): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
}

export function cleanup(): void {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
}

export interface Rule {
  /** Substring of the argv joined by spaces; '' matches every call. */
  match: string;
  stdout?: string;
  stderr?: string;
  exit?: number;
  /** Files to write (absolute path → content), mode 0755: an installer "installing" a tool. */
  create?: Record<string, string>;
  sleepMs?: number;
}

export interface Call {
  tool: string;
  argv: string[];
  env: Record<string, string>;
  pid: number;
}

export interface FakeBin {
  dir: string;
  /** PATH holding only the stand-ins (and `env`, which the apt recipe runs through). */
  path: string;
  log: string;
  /** Adds (or replaces) a stand-in executable. */
  add(name: string, rules: Rule[]): void;
  /** The text of a stand-in script, to be written by another stand-in (`create`). */
  script(name: string, rules: Rule[]): string;
  calls(tool?: string): Call[];
}

export function fakeBin(): FakeBin {
  const dir = tempDir('onboarding-bin-');
  const log = join(dir, '.calls.jsonl');
  // `env` is how the apt recipe sets DEBIAN_FRONTEND; it looks the next program up on our PATH.
  if (existsSync('/usr/bin/env')) symlinkSync('/usr/bin/env', join(dir, 'env'));
  const script = (name: string, rules: Rule[]) => `#!${process.execPath}
const fs = require('fs');
const path = require('path');
const argv = process.argv.slice(2);
fs.appendFileSync(${JSON.stringify(log)}, JSON.stringify({ tool: ${JSON.stringify(name)}, argv, env: process.env, pid: process.pid }) + '\\n');
const joined = argv.join(' ');
const rules = ${JSON.stringify(rules)};
const r = rules.find((x) => joined.includes(x.match)) || {};
for (const [file, content] of Object.entries(r.create || {})) { fs.mkdirSync(path.dirname(file), { recursive: true }); fs.writeFileSync(file, content, { mode: 0o755 }); }
const answer = () => {
  if (r.stdout) process.stdout.write(r.stdout + '\\n');
  if (r.stderr) process.stderr.write(r.stderr + '\\n');
  process.exitCode = r.exit || 0;
};
if (r.sleepMs) setTimeout(answer, r.sleepMs); else answer();
`;
  return {
    dir,
    path: dir,
    log,
    script,
    add(name, rules) {
      const file = join(dir, name);
      writeFileSync(file, script(name, rules));
      chmodSync(file, 0o755);
    },
    calls(tool) {
      if (!existsSync(log)) return [];
      const all = readFileSync(log, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Call);
      return tool ? all.filter((c) => c.tool === tool) : all;
    },
  };
}

export interface ArtefactServer {
  url: string;
  requests: string[];
  set(path: string, body: Buffer): void;
  close(): Promise<void>;
}

/** Serves fixed bodies by path on 127.0.0.1; records every requested path. */
export async function artefactServer(files: Record<string, Buffer> = {}): Promise<ArtefactServer> {
  const bodies = new Map(Object.entries(files));
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    requests.push(path);
    const body = bodies.get(path);
    if (!body) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      return res.end('not found');
    }
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(body.length) });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    set: (path, body) => void bodies.set(path, body),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A zip holding `files` (path → content; executables get mode 0755). */
export function zipOf(files: Record<string, string>): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const [name, content] of Object.entries(files)) zip.addBuffer(Buffer.from(content), name, { mode: 0o100755 });
  zip.end();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    zip.outputStream.on('data', (c: Buffer) => chunks.push(c));
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
    zip.outputStream.on('error', reject);
  });
}

/** A gzipped tar holding `files` (path → content). */
export async function tarGzOf(files: Record<string, string>): Promise<Buffer> {
  const src = tempDir('onboarding-tar-src-');
  for (const [name, content] of Object.entries(files)) {
    const file = join(src, name);
    mkdirSync(file.slice(0, file.lastIndexOf('/')), { recursive: true });
    writeFileSync(file, content, { mode: 0o755 });
  }
  const out = join(tempDir('onboarding-tar-'), 'a.tar.gz');
  await tar.c({ gzip: true, file: out, cwd: src, portable: true }, Object.keys(files));
  return readFileSync(out);
}

export function sha256(buf: Buffer): string {
  return createHash('sha256').update(buf).digest('hex');
}

/** A recipe file (--recipes) for `tool` downloading from the server, per `<os>/<arch>`. */
export function recipeFile(tool: string, binary: string, artefacts: Record<string, { url: string; sha256: string; format: 'binary' | 'zip' | 'tar.gz'; size?: number }>): string {
  const file = join(tempDir('onboarding-recipes-'), 'recipes.json');
  writeFileSync(file, JSON.stringify({ schema_version: 1, recipes: { [tool]: [{ method: 'download', version: '9.9.9', binary, artefacts }] } }));
  return file;
}

/** A shell script printing a version: what an installed binary looks like to the re-scan. */
export function versionScript(text: string): string {
  return `#!/bin/sh\necho "${text}"\n`;
}
