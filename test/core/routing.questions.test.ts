/**
 * Question routing: a table of questions and the providers/kinds they must route to, including
 * words that merely contain a provider name, explicit flags, config keywords and the default.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { routeQuestion, type RoutingConfig } from '../../engine/core/routing/route.js';
import { providerRoutings } from '../../engine/providers/index.js';

const routings = await providerRoutings();
import { containsTerm } from '../../engine/core/routing/match.js';
import { KINDS } from '../../engine/providers/gpucloud/catalogue.js';
import { AssistantError } from '../../engine/core/errors.js';

/** Default cloud_a, so a question that should not route anywhere shows up as defaulted to cloud_a. */
const CFG: RoutingConfig = { infra: { default_provider: 'cloud_a' } };

interface Row {
  q: string;
  providers: string[];
  kinds?: string[];
  defaulted?: boolean;
}

const TABLE: Row[] = [
  // gpucloud by name, brand name and former name
  { q: 'what is running on gpucloud right now', providers: ['gpucloud'], kinds: ['instances'] },
  { q: 'show my verda volumes', providers: ['gpucloud'], kinds: ['volumes'] },
  // Spend is the cost capability's (issue 38 item 4: money questions answered from it), not the balance.
  { q: 'How much did I spend on DataCrunch this month?', providers: ['gpucloud'], kinds: ['cost'] },
  { q: "what's new at Verda?", providers: ['gpucloud'], kinds: [] },
  { q: 'use the gpucloud-api to list things', providers: ['gpucloud'] },
  // gpucloud product phrases and codes
  { q: 'spin up an instant cluster with slurm', providers: ['gpucloud'], kinds: ['clusters'] },
  { q: 'how do serverless containers scale', providers: ['gpucloud'], kinds: ['containers'] },
  { q: 'list my job deployments', providers: ['gpucloud'], kinds: ['jobs'] },
  { q: 'is a 1H100.80S.22V available in FIN-03?', providers: ['gpucloud'], kinds: ['instance-types', 'availability'] },
  { q: 'create an 8A100.176V', providers: ['gpucloud'], kinds: ['instance-types'] },
  { q: 'what does CPU.4V.16G cost per hour', providers: ['gpucloud'], kinds: ['instance-types'] },
  { q: 'order a 16B200 for the weekend', providers: ['gpucloud'], kinds: ['cluster-types'] },
  // catalogue terms alone → gpucloud
  { q: 'list my instances', providers: ['gpucloud'], kinds: ['instances'] },
  { q: 'what instance types are there', providers: ['gpucloud'], kinds: ['instance-types'] },
  { q: 'which locations have h100 capacity', providers: ['gpucloud'], kinds: ['locations', 'instance-types', 'availability'] },
  { q: 'what is my balance', providers: ['gpucloud'], kinds: ['balance'] },
  { q: 'show my ssh keys and startup scripts', providers: ['gpucloud'], kinds: ['ssh-keys', 'scripts'] },
  { q: 'which spot instances are idle', providers: ['gpucloud'], kinds: ['instances'] },
  // other clouds, including their generic words
  { q: 'list my ec2 instances', providers: ['cloud_a'], kinds: [] },
  { q: 'which s3 buckets are public', providers: ['cloud_a'] },
  { q: 'show AWS lambda errors from cloudwatch', providers: ['cloud_a'] },
  { q: 'list gke clusters in my gcp project', providers: ['cloud_b'] },
  { q: 'what is in azure blob storage', providers: ['cloud_c'] },
  // resource words of another provider's catalogue (cloud_a's reads) pick it when no provider is named
  { q: 'which buckets do I have', providers: ['cloud_a'], kinds: [] },
  { q: 'list my databases', providers: ['cloud_a'] },
  { q: 'how many queues and topics are there?', providers: ['cloud_a'] },
  { q: 'show my queues and my instances', providers: ['cloud_a', 'gpucloud'], kinds: ['instances'] },
  { q: 'which volumes are not attached?', providers: ['gpucloud'], kinds: ['volumes'] },
  { q: 'which k8s clusters do I have', providers: ['gpucloud'], kinds: ['clusters'] },
  { q: 'what serverless things run', providers: ['cloud_a'], defaulted: true },
  // combined views
  { q: 'compare ec2 prices with verda prices', providers: ['cloud_a', 'gpucloud'], kinds: ['instance-types'] },
  { q: 'show azure vms and gpucloud instances', providers: ['cloud_c', 'gpucloud'], kinds: ['instances'] },
  // words that merely contain a provider name must not route
  { q: 'is unverdant a real word', providers: ['cloud_a'], defaulted: true },
  { q: 'tips for datacrunching at scale', providers: ['cloud_a'], defaulted: true },
  { q: 'verdant hills and gpucloudy skies', providers: ['cloud_a'], defaulted: true },
  { q: 'reinstances of awsome ideas', providers: ['cloud_a'], defaulted: true },
  { q: 'hello there', providers: ['cloud_a'], defaulted: true },
];

for (const row of TABLE) {
  test(`routes "${row.q}" → ${row.providers.join('+')}`, () => {
    const d = routeQuestion(row.q, { routings, config: CFG });
    assert.equal(d.providers, row.providers);
    if (row.kinds) assert.equal(d.kinds, row.kinds);
    assert.is(d.defaulted, row.defaulted ?? false);
    for (const p of row.providers) assert.ok(d.reasons.some((r) => r.provider === p), `reason for ${p}`);
  });
}

test('the routing table has at least 25 questions', () => {
  assert.ok(TABLE.length >= 25);
});

test('reasons carry the matched terms as written', () => {
  const d = routeQuestion('Show my Verda Instant Clusters', { routings, config: CFG });
  assert.equal(d.reasons, [{ provider: 'gpucloud', terms: ['Verda', 'Instant Clusters'] }]);
  assert.equal(d.kinds, ['clusters']);
});

test('nothing matched and infra.default_provider unset → gpucloud, and the reason says so', () => {
  const d = routeQuestion('hello there', { routings, config: {} });
  assert.equal(d.providers, ['gpucloud']);
  assert.ok(d.defaulted);
  assert.match(d.reasons[0]!.note ?? '', /infra\.default_provider is not set/);
});

test('explicit provider flags override inference; several flags give a combined view', () => {
  const one = routeQuestion('list my ec2 instances', { routings, flags: ['gpucloud'], config: CFG });
  assert.equal(one.providers, ['gpucloud']);
  assert.equal(one.kinds, ['instances']);
  assert.match(one.reasons[0]!.note ?? '', /--gpucloud/);
  const both = routeQuestion('list everything', { routings, flags: ['gpucloud', 'cloud_a', 'gpucloud'], config: CFG });
  assert.equal(both.providers, ['gpucloud', 'cloud_a']);
  assert.is(both.defaulted, false);
});

test('an unknown provider flag is a usage error (exit 2)', () => {
  try {
    routeQuestion('x', { routings, flags: ['cloudz'] });
    assert.unreachable();
  } catch (err) {
    assert.ok(err instanceof AssistantError);
    assert.is((err as AssistantError).exitCode, 2);
  }
});

test('cloud_a.service_keywords from the config extends cloud_a terms', () => {
  const config: RoutingConfig = { infra: { default_provider: 'cloud_b' }, cloud_a: { service_keywords: { opensearch: ['search domain', 'kibana'] } } };
  assert.equal(routeQuestion('how big is my kibana search domain', { routings, config }).providers, ['cloud_a']);
  assert.equal(routeQuestion('opensearch health', { routings, config }).providers, ['cloud_a']);
  assert.equal(routeQuestion('kibana', { routings, config: CFG }).providers, ['cloud_a']);
  assert.ok(routeQuestion('kibana', { routings, config: { infra: { default_provider: 'cloud_b' } } }).defaulted);
});

test('a service keyword that is also a catalogue word makes the question cloud_a', () => {
  const config: RoutingConfig = { cloud_a: { service_keywords: { ec2: ['instances'] } } };
  assert.equal(routeQuestion('list my instances', { routings, config }).providers, ['cloud_a']);
});

test('every catalogue term routes to gpucloud and to its own kind (terms come from the catalogue)', () => {
  for (const spec of KINDS) {
    for (const term of spec.terms) {
      const d = routeQuestion(`tell me about ${term} please`, { routings, config: CFG });
      assert.equal(d.providers, ['gpucloud'], term);
      assert.ok(d.kinds.includes(spec.kind), `${term} → ${spec.kind}, got ${d.kinds.join(',')}`);
    }
  }
});

test('whole-word matching: hyphens and punctuation are boundaries, letters and digits are not', () => {
  assert.ok(containsTerm('ask verda.', 'verda'));
  assert.ok(containsTerm('(datacrunch)', 'datacrunch'));
  assert.ok(containsTerm('instant-cluster please', 'instant cluster'));
  assert.not.ok(containsTerm('unverdant', 'verda'));
  assert.not.ok(containsTerm('verdant', 'verda'));
  assert.not.ok(containsTerm('datacrunching', 'datacrunch'));
  assert.not.ok(containsTerm('verda2', 'verda'));
});

test.run();
