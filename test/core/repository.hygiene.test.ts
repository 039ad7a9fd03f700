/**
 * The repository holds source, not runtime state: a command once run with HOME inside the checkout left
 * npm's cache in a folder literally named `~` and the assistant's own state in `.assistant/`, and both got
 * committed. `git ls-files` must list none of that (issue 38 §5).
 */
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const RUNTIME_STATE = [/^~\//, /(^|\/)\.assistant\//, /^node_modules\//, /^dist\//, /\.tsbuildinfo$/, /(^|\/)\.npm\//];

function tracked(): string[] | undefined {
  try {
    return execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
  } catch {
    return undefined; // not a git checkout (an unpacked tarball): nothing to check
  }
}

test('git tracks no runtime state (a "~" folder, .assistant/, caches, build output)', () => {
  const files = tracked();
  if (!files) return;
  assert.ok(files.length > 50, `git ls-files saw ${files.length} files: the check must see the checkout`);
  const state = files.filter((f) => RUNTIME_STATE.some((re) => re.test(f)));
  assert.equal(state, [], `runtime state is tracked; git rm --cached it and keep it in .gitignore`);
});

test('.gitignore keeps runtime state out', () => {
  const ignored = (path: string) => {
    try {
      execFileSync('git', ['check-ignore', '-q', '--no-index', path], { cwd: ROOT });
      return true;
    } catch {
      return false;
    }
  };
  if (!tracked()) return;
  for (const path of ['~/.npm/_cacache/x', '.assistant/sandbox/state.json', 'dist/cli.js', 'node_modules/x/index.js']) assert.ok(ignored(path), `${path} is not ignored`);
});

test.run();
