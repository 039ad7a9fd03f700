/**
 * Joint answerers (AnswerCapability.joint): one question parser shared by several providers, which
 * lives above them (in engine/producers, since it knows each of their records) and registers itself
 * here by name. A provider names it with `jointAnswerer(name)` and imports nothing of it, so providers
 * point down only; the registry (engine/providers/index.ts) loads the registered answerers when the
 * providers' `answer` capabilities are looked up, so a synchronous `answer` call finds its parser loaded,
 * and a path that answers nothing never loads the parser.
 */
import type { AnswerCapability } from './capabilities.js';

type Load = () => Promise<AnswerCapability>;

const loaders = new Map<string, Load>();
/** One load per answerer, shared by lookups running at once; a failed one is forgotten (the next lookup tries again). */
const loading = new Map<string, Promise<AnswerCapability>>();
const loaded = new Map<string, AnswerCapability>();

/** Registers the joint answerer `name` (its module loads on the first lookup of an `answer` capability naming it). */
export function registerJointAnswerer(name: string, load: Load): void {
  loaders.set(name, load);
  loading.delete(name);
  loaded.delete(name);
}

/** Loads the registered joint answerers among `names` (those not registered are left: `answer` says so when called). */
export async function loadJointAnswerers(names: Iterable<string>): Promise<void> {
  await Promise.all(
    [...new Set(names)].map(async (name) => {
      const load = loaders.get(name);
      if (!load || loaded.has(name)) return;
      let pending = loading.get(name);
      if (!pending) {
        pending = load();
        loading.set(name, pending);
        pending.catch(() => loading.delete(name));
      }
      loaded.set(name, await pending);
    }),
  );
}

/** The answer capability of a provider whose answers are the joint answerer `name`'s. */
export function jointAnswerer(name: string): AnswerCapability {
  return {
    joint: name,
    answer(question, results, ctx) {
      const answerer = loaded.get(name);
      // A wiring fault, not a user's: the producer registering it was not imported, or its capability was not looked up first.
      if (!answerer) throw new Error(`the joint answerer "${name}" is not loaded (registered: ${[...loaders.keys()].join(', ') || 'none'}); look the answer capabilities up through the provider registry`);
      return answerer.answer(question, results, ctx);
    },
  };
}
