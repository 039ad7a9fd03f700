/**
 * The provider registry (engine/providers/index.ts): providers known by a static manifest, loaded when a plan
 * needs them. The manifest must say what the modules say, a plan gets exactly its providers, and a
 * verb nobody owns is still one clear validation error listing every known verb, without any load.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PROVIDER_MANIFEST, PROVIDERS, ProviderRegistry, providerRoutings, providersWith, routableProviders } from '../../engine/providers/index.js';
import { z } from 'zod';
import { validatePlan } from '../../engine/core/plan/validate.js';
import { composeConfigSchema } from '../../schemas/config.js';
import { routingFlag } from '../../engine/core/routing/terms.js';
import { jointAnswerer, registerJointAnswerer } from '../../engine/core/joint-answerers.js';

test('each manifest entry names its module\'s provider and exactly its verbs', async () => {
  for (const entry of PROVIDER_MANIFEST) {
    const provider = await entry.load();
    assert.is(provider.name, entry.name);
    assert.equal([...entry.verbs].sort(), provider.verbs.map((v) => v.verb).sort(), `${entry.name}: the manifest's verbs`);
  }
  const all = PROVIDER_MANIFEST.flatMap((e) => e.verbs);
  assert.is(new Set(all).size, all.length, 'no verb belongs to two providers');
});

test('each manifest entry lists exactly its module\'s capabilities, and a light capabilities module holds the very object the provider does', async () => {
  for (const entry of PROVIDER_MANIFEST) {
    const provider = await entry.load();
    const offered = Object.entries(provider.capabilities ?? {}).filter(([, v]) => v !== undefined).map(([k]) => k).sort();
    assert.equal([...(entry.has ?? [])].sort(), offered, `${entry.name}: the manifest's \`has\``);
    if (entry.capabilities) assert.is(await entry.capabilities(), provider.capabilities, `${entry.name}: its capabilities module is the provider's own`);
  }
});

test('each manifest entry with a config part gives its own sections as strict objects, and no two entries claim one key', async () => {
  const claimed = new Map<string, string>();
  for (const entry of PROVIDER_MANIFEST) {
    if (!entry.config) continue;
    const part = await entry.config();
    const keys = Object.keys(part.sections ?? {});
    assert.ok(keys.length > 0 || part.infra, `${entry.name}: its config part adds a section or an infra block`);
    for (const key of keys) {
      assert.not.ok(claimed.has(key), `${key}: ${entry.name} and ${claimed.get(key)} both claim it`);
      claimed.set(key, entry.name);
      const def = (part.sections![key] as unknown as { _zod: { def: { type: string; catchall?: { _zod: { def: { type: string } } } } } })._zod.def;
      assert.is(def.type, 'object', `${entry.name}.${key} is an object`);
      assert.is(def.catchall?._zod.def.type, 'never', `${entry.name}.${key} is strict (unknown keys are refused)`);
    }
  }
  assert.ok(claimed.has('gpucloud') && claimed.get('gpucloud') === 'gpucloud');
});

test('composing the config file refuses a section two providers claim, or one the neutral sections hold', () => {
  const section = { x: z.strictObject({ a: z.string().optional() }) };
  assert.throws(() => composeConfigSchema([{ provider: 'one', part: { sections: section } }, { provider: 'two', part: { sections: section } }]), /config section x of two is one's already/);
  assert.throws(() => composeConfigSchema([{ provider: 'one', part: { sections: { ai: z.strictObject({}) } } }]), /config section ai of one is the neutral sections'/);
  const root = composeConfigSchema([{ provider: 'one', part: { sections: section, infra: z.strictObject({ id: z.string().optional() }) } }]);
  assert.equal(root.parse({ x: { a: 'b' }, infra: { default_provider: 'one', one: { id: 'i' } } }), { x: { a: 'b' }, ai: root.parse({}).ai, infra: { default_provider: 'one', one: { id: 'i' } } });
  assert.not.ok(root.safeParse({ x: { c: 1 } }).success, 'a provider section stays strict');
  assert.not.ok(root.safeParse({ infra: { default_provider: 'two' } }).success, 'infra.default_provider names a provider with an infra block');
});

test('the ask flags from the manifest are the flags the routing capabilities give', async () => {
  const routings = await providerRoutings();
  assert.equal(routableProviders(), routings.map((r) => ({ provider: r.provider, flag: routingFlag(r) })));
});

test('a capability lookup loads the light capabilities modules, not the providers: routing words load no step code', async () => {
  const registry = new ProviderRegistry([
    { name: 'heavy', verbs: ['heavy-do'], has: ['routing'], load: async () => assert.unreachable('the provider module was loaded') as never, capabilities: async () => ({ routing: { names: ['heavy'], specific: [] } }) },
    { name: 'plain', verbs: ['plain-do'], load: async () => assert.unreachable('a provider without the capability was loaded') as never },
  ]);
  assert.equal((await registry.with('routing')).map((p) => p.name), ['heavy']);
  assert.equal(registry.namesWith('routing'), ['heavy']);
  assert.equal((await providersWith('maker')).map((p) => p.name), ['gpucloud', 'cloud_a']);
});

test('a provider registered at run time is known to plans and to capability lookups', async () => {
  const registry = new ProviderRegistry([]);
  const before = await registry.forPlan({ version: 1, provider: 'toy', commands: [{ args: ['toy-read'], reason: 'r' }] });
  assert.equal(before.list, []);
  const toy = { name: 'toy', verbs: [{ verb: 'toy-read' }] as never, capabilities: { routing: { names: ['toy'], specific: [] } }, connect: async () => ({ client: {}, source: 'x' }) };
  registry.register(toy);
  assert.equal((await registry.forPlan({ version: 1, provider: 'toy', commands: [{ args: ['toy-read'], reason: 'r' }] })).names(), ['toy']);
  assert.equal((await registry.with('routing')).map((p) => p.name), ['toy']);
  assert.throws(() => registry.register(toy), /registered already/);
});

test('a plan gets the providers its steps and its `provider` name, in manifest order, and nothing else', async () => {
  const set = await PROVIDERS.forPlan({
    version: 1,
    provider: ['k8s', 'gpucloud'],
    commands: [{ args: ['ssh-exec', 'h', 'true'], reason: 'r' }, { args: ['gpucloud-api', 'GET', '/v1/balance'], reason: 'r' }],
  });
  assert.equal(set.list.map((p) => p.name), ['gpucloud', 'k8s', 'ssh']);
  assert.is(await PROVIDERS.forPlan({ version: 1, provider: 'gpucloud', commands: [{ args: ['gpucloud-wait'], reason: 'x' }] }), await PROVIDERS.load(['gpucloud']), 'one set per combination');
  for (const junk of [null, 'plan', 42, [], { commands: 'x' }, { commands: [null, { args: 7 }, { args: [3] }] }]) {
    assert.equal((await PROVIDERS.forPlan(junk)).list, [], `nothing loads for ${JSON.stringify(junk)}`);
  }
});

test('an unknown verb is a validation error listing every verb of the build, loaded or not', async () => {
  const plan = { version: 1, provider: 'gpucloud', commands: [{ args: ['gpucloud-apy', 'GET', '/v1/balance'], reason: 'typo' }] };
  const v = validatePlan(plan, { providers: await PROVIDERS.forPlan(plan), destroyer: false });
  const problem = v.problems.find((p) => p.field === 'args[0]');
  assert.ok(problem, JSON.stringify(v.problems));
  for (const verb of PROVIDERS.verbs()) assert.ok(problem!.message.includes(verb), `${verb} is listed: ${problem!.message}`);
  const unknownProvider = validatePlan({ ...plan, provider: 'cloud_z' }, { providers: await PROVIDERS.forPlan({ ...plan, provider: 'cloud_z' }), destroyer: false });
  assert.ok(unknownProvider.problems.some((p) => p.field === 'provider' && /known: gpucloud, cloud_a, cloud_b, cloud_c, k8s, ssh/.test(p.message)), JSON.stringify(unknownProvider.problems));
});

test('validating with a set that lacks a provider the plan uses is a loud internal error, never a misleading "unknown verb"', async () => {
  const gpucloudOnly = await PROVIDERS.load(['gpucloud']);
  const plan = { version: 1, provider: 'ssh', commands: [{ args: ['ssh-exec', 'h', 'true'], reason: 'r' }] };
  assert.throws(() => validatePlan(plan, { providers: gpucloudOnly, destroyer: false }), /provider "ssh".*not loaded/);
});

test('a provider whose module fails to load fails the plan that needs it, and is tried again next time', async () => {
  let attempts = 0;
  const registry = new ProviderRegistry([
    {
      name: 'flaky',
      verbs: ['flaky-do'],
      load: async () => {
        attempts++;
        if (attempts === 1) throw new Error('cannot load flaky');
        return { name: 'flaky', verbs: [], connect: async () => ({ client: {}, source: 'x' }) };
      },
    },
  ]);
  const plan = { version: 1, provider: 'flaky', commands: [{ args: ['flaky-do'], reason: 'r' }] };
  const failed = await registry.forPlan(plan).then(
    () => undefined,
    (err: Error) => err,
  );
  assert.match(String(failed?.message), /cannot load flaky/);
  assert.equal((await registry.forPlan(plan)).names(), ['flaky']);
  assert.is(attempts, 2);
});

test('a joint answerer registers itself from its own side and loads when answer capabilities are looked up, once, and not before', async () => {
  let loads = 0;
  registerJointAnswerer('registry-test-joint', async () => {
    loads++;
    return { joint: 'registry-test-joint', answer: (question, results) => `joint: ${question} (${results.length} results)` };
  });
  const registry = new ProviderRegistry([
    { name: 'one', verbs: ['one-do'], has: ['answer', 'routing'], load: async () => assert.unreachable('the provider module was loaded') as never, capabilities: async () => ({ routing: { names: ['one'], specific: [] }, answer: jointAnswerer('registry-test-joint') }) },
    { name: 'two', verbs: ['two-do'], has: ['answer'], load: async () => assert.unreachable('the provider module was loaded') as never, capabilities: async () => ({ answer: jointAnswerer('registry-test-joint') }) },
  ]);
  await registry.with('routing');
  assert.is(loads, 0, 'registering it and looking up another capability load nothing');
  // Two lookups at once (a talk session answering while a question routes) share one load.
  const [[one]] = await Promise.all([registry.with('answer'), registry.one('answer', 'two')]);
  assert.is(loads, 1);
  assert.is(one!.capabilities.answer.joint, 'registry-test-joint');
  assert.is(one!.capabilities.answer.answer('how many?', [{ kind: 'one/x', args: ['one-do'], data: [] }], { kinds: [] }), 'joint: how many? (1 results)');
  await registry.one('answer', 'two');
  assert.is(loads, 1, 'loaded once');
});

test('an answer capability naming a joint answerer nobody registered says so when asked (a wiring fault, never a silent decline)', async () => {
  const registry = new ProviderRegistry([{ name: 'lone', verbs: ['lone-do'], has: ['answer'], load: async () => assert.unreachable() as never, capabilities: async () => ({ answer: jointAnswerer('registry-test-unregistered') }) }]);
  const [lone] = await registry.with('answer');
  assert.throws(() => lone!.capabilities.answer.answer('q', [], { kinds: [] }), /joint answerer "registry-test-unregistered" is not loaded/);
});

test('gpucloud and cloud_a are answered by the planner joint answerer, which the producer side registers', async () => {
  await import('../../engine/producers/planner/answer-capability.js');
  const answerers = new Map((await providersWith('answer')).map((p) => [p.name, p.capabilities.answer]));
  assert.is(answerers.get('gpucloud')?.joint, 'planner');
  assert.is(answerers.get('cloud_a')?.joint, 'planner');
  const instances = [{ kind: 'instances', args: ['gpucloud-api', 'GET', '/v1/instances'], data: [{ id: 'i-1', hostname: 'train-1', status: 'running' }] }];
  assert.is(answerers.get('gpucloud')!.answer('how many instances do I have?', instances, { kinds: ['instances'] }), 'You have 1 instance: 1 running.');
});

test.run();
