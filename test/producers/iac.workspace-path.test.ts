/**
 * Where `terraform.workspaces.<name>.path` points (engine/producers/iac/terraform.ts `selectedWorkspace`):
 * `~` and `~/x` under the command's own HOME (engine/core/home-path.ts, the one expander), every other
 * form — `~user/x`, a relative path — under the working directory, and without a HOME `~` is a folder
 * name like any other. A path that is not a directory is a usage error naming the resolved path.
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { emptyConfig, type Config } from '../../schemas/config.js';
import { selectedWorkspace } from '../../engine/producers/iac/terraform.js';
import { removeTempDir, tempDir } from '../support/temp.js';

const home = tempDir('assistant-iac-home-');
mkdirSync(join(home, 'infra', 'prod'), { recursive: true });
test.after(() => removeTempDir(home));

const config = (path: string): Config => ({ ...emptyConfig(), terraform: { default_workspace: 'w', workspaces: { w: { path } } } });

/** The resolved path, or the path the usage error names when it is not a directory. */
function resolvedPath(path: string, at: string | undefined): string {
  try {
    return selectedWorkspace(config(path), at)!.path;
  } catch (err) {
    return /\(([^)]+)\) is not a directory/.exec((err as Error).message)![1]!;
  }
}

test('`~` and `~/x` are under the command’s HOME', () => {
  assert.is(resolvedPath('~', home), home);
  assert.is(resolvedPath('~/infra/prod', home), join(home, 'infra', 'prod'));
  assert.is(resolvedPath('~/infra/../infra/prod', home), join(home, 'infra', 'prod'));
});

test('`~user/x`, `~x` and relative paths are under the working directory; absolute ones stay', () => {
  assert.is(resolvedPath('~user/infra', home), resolve('~user/infra'));
  assert.is(resolvedPath('~infra', home), resolve('~infra'));
  assert.is(resolvedPath('infra/prod', home), resolve('infra/prod'));
  assert.is(resolvedPath(join(home, 'infra'), home), join(home, 'infra'));
});

test('without a HOME, `~` is a folder name under the working directory', () => {
  assert.is(resolvedPath('~/infra', undefined), resolve('~', 'infra'));
  assert.is(resolvedPath('~', undefined), resolve('~'));
});

test('a path that is not a directory is a usage error naming where it resolved', () => {
  assert.throws(() => selectedWorkspace(config('~/missing'), home), (err: Error) => err.message === `terraform.workspaces.w.path (${join(home, 'missing')}) is not a directory`);
  assert.is(selectedWorkspace(emptyConfig(), home), undefined, 'no workspace named or configured');
});

test.run();
