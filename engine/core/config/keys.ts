/**
 * Dotted config keys (`gpucloud.default_location`, `infra.cloud_a.environments.dev.region`) checked
 * against the schema the loader is given, for `assistant config get|set|unset`: a key the schema has
 * no place for is refused with "did you mean", the way the loader treats a misspelt key in the file.
 * The schema is walked through zod's own definitions (`_zod.def`), the wrappers (optional, default…)
 * unwrapped; a record (`ai.providers.<name>`) takes any name.
 */
import { closest } from '../did-you-mean.js';
import { UsageError } from '../errors.js';

interface SchemaNode {
  type: string;
  def: Record<string, unknown>;
}

const WRAPPERS = ['optional', 'default', 'prefault', 'nullable', 'readonly', 'catch'];

function unwrap(schema: unknown): SchemaNode | undefined {
  let cur = schema as { _zod?: { def: Record<string, unknown> & { type: string } } } | undefined;
  for (let i = 0; i < 10 && cur?._zod; i++) {
    const def = cur._zod.def;
    if (WRAPPERS.includes(def.type)) cur = def.innerType as typeof cur;
    else if (def.type === 'pipe') cur = def.in as typeof cur;
    else return { type: def.type, def };
  }
  return undefined;
}

/** The schema node at `path` (unwrapped), or undefined when the schema has no such place. */
export function schemaNodeAt(schema: unknown, path: ReadonlyArray<PropertyKey>): SchemaNode | undefined {
  let node = unwrap(schema);
  for (const segment of path) {
    if (!node) return undefined;
    if (node.type === 'object') node = unwrap((node.def.shape as Record<string, unknown>)[String(segment)]);
    else if (node.type === 'record') node = unwrap(node.def.valueType);
    else return undefined;
  }
  return node;
}

export interface ConfigKey {
  path: string[];
  /** What the key holds: a section (a mapping), or a value and the type zod expects of it. */
  kind: 'section' | 'string' | 'number' | 'boolean' | 'list' | 'value';
}

/**
 * Checks a dotted key against the schema: every segment must be a key of its section (any name in a
 * record). Throws a usage error naming the first wrong segment and what it probably meant.
 */
export function resolveConfigKey(schema: unknown, dotted: string): ConfigKey {
  const path = dotted.split('.');
  if (!dotted || path.some((p) => p === '')) throw new UsageError(`"${dotted}" is not a config key`, { hint: 'keys are dotted paths: <section>.<key>, as in examples/assistant.example.yaml' });
  let node = unwrap(schema);
  for (let i = 0; i < path.length; i++) {
    const segment = path[i]!;
    const here = path.slice(0, i).join('.');
    if (node?.type === 'object') {
      const keys = Object.keys(node.def.shape as Record<string, unknown>);
      if (!keys.includes(segment)) {
        const meant = closest(segment, keys);
        const full = [...path.slice(0, i), segment].join('.');
        throw new UsageError(`unknown config key "${full}"${meant ? `; did you mean "${[...path.slice(0, i), meant].join('.')}"?` : ''}`, {
          hint: `keys${here ? ` under ${here}` : ''}: ${keys.join(', ')}`,
        });
      }
      node = unwrap((node.def.shape as Record<string, unknown>)[segment]);
    } else if (node?.type === 'record') {
      node = unwrap(node.def.valueType);
    } else {
      throw new UsageError(`"${here}" is a value, not a section: "${dotted}" cannot be set`, { hint: `set ${here} itself` });
    }
  }
  return { path, kind: kindOf(node) };
}

function kindOf(node: SchemaNode | undefined): ConfigKey['kind'] {
  switch (node?.type) {
    case 'object':
    case 'record':
      return 'section';
    case 'string':
    case 'enum':
      return 'string';
    case 'number':
    case 'int':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'array':
      return 'list';
    default:
      return 'value';
  }
}
