/**
 * The `yaml` package, loaded the first time YAML is read or written. It is 72 CommonJS modules (about
 * 25 ms of start-up): a command that prints JSON or a table and finds no config file never loads it.
 * `yaml` is CommonJS under Node whether imported or required, so this is the same module instance a
 * static `import … from 'yaml'` elsewhere gets.
 */
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';

const require = createRequire(import.meta.url);
let loaded: typeof Yaml | undefined;

export function yaml(): typeof Yaml {
  return (loaded ??= require('yaml') as typeof Yaml);
}

/** One of yaml's functions, resolved on first call (keeps its exact signature, type guards included). */
export function lazyYaml<K extends 'isMap' | 'isScalar' | 'isSeq' | 'parseDocument' | 'parse' | 'stringify'>(name: K): (typeof Yaml)[K] {
  return ((...args: unknown[]) => (yaml()[name] as (...a: unknown[]) => unknown)(...args)) as unknown as (typeof Yaml)[K];
}

export const toYaml: typeof Yaml.stringify = lazyYaml('stringify');
