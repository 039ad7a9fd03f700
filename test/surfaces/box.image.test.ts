/**
 * The box image's recipe (no container engine runs here, so the image itself is not built in tests):
 * the Dockerfile runs `assistant box serve` from the packed package, and the package carries the box.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const dockerfile = readFileSync(`${root}Dockerfile`, 'utf8');

/** The JSON array of a Dockerfile instruction (exec form). */
const execForm = (instruction: string): string[] => JSON.parse(new RegExp(`^${instruction} (\\[.*\\])$`, 'm').exec(dockerfile)![1]!);

test('the image runs assistant box serve; its default agent listens on every interface, so it needs a token to start', () => {
  assert.equal(execForm('ENTRYPOINT'), ['assistant', 'box', 'serve']);
  assert.equal(execForm('CMD'), ['--agent', 'empty', '--listen', '0.0.0.0:8080']);
  assert.match(dockerfile, /^USER node$/m, 'not root');
  assert.match(dockerfile, /npm pack/, 'built from the package');
  assert.match(dockerfile, /npm ci --omit=dev --ignore-scripts/, 'production dependencies from the lockfile');
  const ignore = readFileSync(`${root}.dockerignore`, 'utf8').split('\n');
  for (const p of ['node_modules', 'dist', '.git']) assert.ok(ignore.includes(p), p);
});

test('the package the image is built from carries the box server, its command and its dependencies', async () => {
  const out = await new Promise<string>((resolve, reject) =>
    execFile('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, timeout: 120_000 }, (err, stdout) => (err ? reject(err) : resolve(stdout))),
  );
  const files = new Set((JSON.parse(out)[0].files as { path: string }[]).map((f) => f.path));
  for (const f of ['bin/assistant.js', 'dist/cli.js', 'dist/commands/box.js', 'dist/box/server.js', 'dist/box/agents/assistant.js', 'dist/engine/producers/box/manifest.js', 'package.json']) assert.ok(files.has(f), f);
  const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8'));
  assert.ok(pkg.dependencies.ws, 'ws is a runtime dependency');
});

test.run();
