/**
 * Small real git repositories for deploy tests, made with the git CLI, and a `git daemon` serving them
 * on 127.0.0.1 (a free port) so tests clone over git:// as well as file://.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { tempDir } from './temp.js';
import { accepts, onFreePort } from './net.js';

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'deploy test',
  GIT_AUTHOR_EMAIL: 'deploy@test.invalid',
  GIT_COMMITTER_NAME: 'deploy test',
  GIT_COMMITTER_EMAIL: 'deploy@test.invalid',
  GIT_CONFIG_NOSYSTEM: '1',
};

export const git = (cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8' }).trim();

export interface TestRepo {
  /** Working directory (also a valid local path to clone). */
  dir: string;
  /** file:// URL of it. */
  url: string;
  /** The head commit. */
  sha: string;
  /** Commits more files on a new commit and returns its sha. */
  commit(files: Record<string, string>, message?: string): string;
}

/** A repository (in a folder named `name` under `root`) with `files` committed on `main`. */
export function makeRepo(name: string, files: Record<string, string>, root = tempDir('deploy-repos-')): TestRepo {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  git(dir, 'init', '--quiet', '--initial-branch=main');
  const commit = (more: Record<string, string>, message = 'change') => {
    for (const [path, text] of Object.entries(more)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    git(dir, 'add', '-A');
    git(dir, 'commit', '--quiet', '-m', message);
    return git(dir, 'rev-parse', 'HEAD');
  };
  const repo: TestRepo = { dir, url: pathToFileURL(dir).href, sha: commit(files, 'initial'), commit: (f, m) => (repo.sha = commit(f, m)) };
  return repo;
}

/** A FastAPI service that needs a GPU (torch), with an env example holding a secret and a declared model. */
export const FASTAPI_TORCH: Record<string, string> = {
  'requirements.txt': 'fastapi==0.115.0\nuvicorn[standard]>=0.30\ntorch==2.4.0  # inference\n',
  'app/main.py': 'from fastapi import FastAPI\n\napp = FastAPI()\n\n@app.get("/")\ndef root():\n    return {"ok": True}\n',
  '.env.example': 'MODEL_ID=meta-llama/Llama-3.1-8B-Instruct\nHF_TOKEN=\nLOG_LEVEL=info\n',
};

/** A Node (express) app with a Dockerfile exposing one port. */
export const NODE_DOCKER: Record<string, string> = {
  'package.json': JSON.stringify({ name: 'web', version: '1.0.0', main: 'server.js', scripts: { start: 'node server.js' }, dependencies: { express: '^4.19.0' } }, null, 2),
  'server.js': "const express = require('express');\nconst app = express();\napp.get('/', (_q, r) => r.send('ok'));\napp.listen(process.env.PORT || 3000);\n",
  Dockerfile: 'FROM node:20-slim\nWORKDIR /app\nCOPY . .\nRUN npm ci --omit=dev\nEXPOSE 3000\nCMD ["node", "server.js"]\n',
};

/** A compose file naming a prebuilt image (target container by default). */
export const COMPOSE_IMAGE: Record<string, string> = {
  'compose.yaml': 'services:\n  api:\n    image: ghcr.io/acme/inference:1.4.2\n    ports:\n      - "8080:9000"\n    environment:\n      - LOG_LEVEL=info\n  cache:\n    image: redis:7.2\n',
  '.env.example': 'API_KEY=\nLOG_LEVEL=info\n',
};

/** A repository with nothing to run. */
export const NOTHING: Record<string, string> = { 'README.md': '# notes\n\nJust text.\n' };

export interface GitDaemon {
  /** git://127.0.0.1:<port>/<name> for a repository under the served root. */
  urlOf(name: string): string;
  close(): Promise<void>;
}

/** `git daemon` serving every repository under `root` (export-all) on 127.0.0.1; resolves once it accepts connections. */
export async function startGitDaemon(root: string): Promise<GitDaemon> {
  return onFreePort((port) => startGitDaemonOn(root, port));
}

async function startGitDaemonOn(root: string, port: number): Promise<GitDaemon> {
  const child: ChildProcess = spawn('git', ['daemon', '--reuseaddr', '--export-all', '--listen=127.0.0.1', `--port=${port}`, `--base-path=${root}`, '--informative-errors', root], {
    env: GIT_ENV,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const started = Date.now();
  // Ready when it accepts a connection (polled with a generous bound).
  for (;;) {
    if (await accepts(port)) break;
    if (child.exitCode !== null) throw new Error(`git daemon exited: ${stderr}`);
    if (Date.now() - started > 60_000) throw new Error(`git daemon did not start: ${stderr}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    urlOf: (name) => `git://127.0.0.1:${port}/${name}`,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

export interface GitHttp {
  /** http://127.0.0.1:<port>/<name> */
  urlOf(name: string): string;
  /** Every request seen: URL and headers (to prove where a token did and did not travel). */
  seen: { url: string; authorization?: string }[];
  /** While held, requests are accepted but not answered (a stalled server, for Ctrl-C tests). */
  hold(on: boolean): void;
  close(): Promise<void>;
}

/**
 * git's smart HTTP protocol on 127.0.0.1 through `git http-backend` (CGI), for private-repository
 * tests: with `token`, every request without `Authorization: Basic base64(x-access-token:<token>)` is 401.
 */
export async function startGitHttp(root: string, opts: { token?: string } = {}): Promise<GitHttp> {
  const { createServer: createHttp } = await import('node:http');
  const expected = opts.token ? `Basic ${Buffer.from(`x-access-token:${opts.token}`).toString('base64')}` : undefined;
  const seen: GitHttp['seen'] = [];
  let held = false;
  const server = createHttp((req, res) => {
    seen.push({ url: req.url ?? '', authorization: req.headers.authorization });
    if (held) return; // never answered
    if (expected && req.headers.authorization !== expected) {
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="git"' }).end('authentication required');
      return;
    }
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const cgi = spawn('git', ['http-backend'], {
      env: {
        ...GIT_ENV,
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: '1',
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.slice(1),
        REQUEST_METHOD: req.method ?? 'GET',
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        GIT_PROTOCOL: String(req.headers['git-protocol'] ?? ''),
        REMOTE_ADDR: '127.0.0.1',
      },
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    req.pipe(cgi.stdin!);
    let head = Buffer.alloc(0);
    let headersDone = false;
    cgi.stdout!.on('data', (chunk: Buffer) => {
      if (headersDone) return void res.write(chunk);
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      headersDone = true;
      let status = 200;
      for (const line of head.subarray(0, end).toString('utf8').split('\r\n')) {
        const i = line.indexOf(':');
        const k = line.slice(0, i).trim();
        const v = line.slice(i + 1).trim();
        if (k.toLowerCase() === 'status') status = parseInt(v, 10);
        else res.setHeader(k, v);
      }
      res.writeHead(status);
      res.write(head.subarray(end + 4));
    });
    cgi.stdout!.on('end', () => res.end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    urlOf: (name) => `http://127.0.0.1:${port}/${name}`,
    seen,
    hold: (on) => (held = on),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A repository's URL over git's smart HTTP, as an instance could fetch it (deploy refuses a path or
 * file:// URL for an instance or VM). The server is closed with `close()`.
 */
export async function httpRepoUrl(repo: TestRepo): Promise<{ url: string; close(): Promise<void> }> {
  const { basename, dirname } = await import('node:path');
  const server = await startGitHttp(dirname(repo.dir));
  return { url: server.urlOf(basename(repo.dir)), close: () => server.close() };
}

export { freePort } from './net.js';
