/**
 * One canonical request per step (issue 35 §1, DESIGN §8): a gpucloud step is read once into its
 * canonical form — method, decoded path, query, body keys folded as the API's Go decoder folds them —
 * and a form with more than one reading is refused (exit 2, naming the step): a query a change route
 * does not read, a method override in the query or the body, two body keys that fill one field.
 * What a step sends is exactly its canonical form.
 */
import { allProviders } from '../../../engine/providers/index.js';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { validatePlan } from '../../../engine/core/plan/validate.js';
import { canonicalRequest, requestBody, requestTarget } from '../../../engine/providers/gpucloud/request.js';
import { gpucloudApi } from '../../../engine/providers/gpucloud/verbs/api.js';

const PROVIDERS = await allProviders();
const step = (method: string, path: string, body?: unknown) => ['gpucloud-api', method, path, ...(body === undefined ? [] : [typeof body === 'string' ? body : JSON.stringify(body)])];
const canon = (method: string, path: string, body?: unknown) => canonicalRequest(step(method, path, body));
const refused = (method: string, path: string, body?: unknown) => {
  const c = canon(method, path, body);
  return c.ok ? undefined : c.problem;
};
const CREATE = { instance_type: '8H100.80S.176V', image: 'ubuntu-24.04-cuda-12.8-open-docker', hostname: 'cheap-1', description: '', location_code: 'FIN-03', ssh_key_ids: ['k'] };

test('a change route takes no query it does not read: ?utm=1 on a create is refused, naming the route and what it reads', () => {
  assert.match(refused('POST', '/v1/instances?utm=1', CREATE) ?? '', /a POST request on \/v1\/instances takes no query "utm" \(the API reads none there\)/);
  assert.match(refused('PATCH', '/v1/container-deployments/web/scaling?dry_run=true', { max_replica_count: 20 }) ?? '', /takes no query "dry_run"/);
  assert.is(refused('DELETE', '/v1/container-deployments/web?timeout=0'), undefined, 'the timeout a delete reads');
  assert.match(refused('DELETE', '/v1/container-deployments/web?force=true') ?? '', /reads timeout there/);
  assert.is(refused('GET', '/v1/instances?status=running'), undefined, 'reads keep their filters');
});

test('a method override is refused wherever it is written: query keys (any method, reads included) and body keys at any depth', () => {
  for (const path of ['/v1/instances?_method=DELETE', '/v1/instances?X-HTTP-Method-Override=DELETE', '/v1/instances?x_http_method=DELETE', '/v1/instances?METHOD=delete']) {
    assert.match(refused('GET', path) ?? '', /would override the request's method/, path);
    assert.ok(refused('POST', path, CREATE), path);
  }
  for (const key of ['_method', 'X-HTTP-Method-Override', 'x_http_method_override', 'X-Method-Override', '_METHOD', 'http_method', 'Method']) {
    assert.match(refused('POST', '/v1/instances', { ...CREATE, [key]: 'DELETE' }) ?? '', /method-override middleware reads as another HTTP method/, key);
    assert.ok(refused('PATCH', '/v1/container-deployments/web', { scaling: { [key]: 'DELETE' } }), `nested ${key}`);
  }
});

test('body keys fold to the API field names the way Go does (case, ſ → s, K → k); the canonical body and what is sent use the field names', () => {
  const c = canon('post', '/v1/instances/', { INSTANCE_TYPE: '8H100.80S.176V', Image: 'img', ho\u017Ftname: 'x', description: '', location_code: 'FIN-03', ssh_key_ids: ['k'], OS_VOLUME: { SIZE: 200 }, tags: [{ \u212Aey: 'team', value: 'v' }] });
  assert.ok(c.ok);
  if (!c.ok) return;
  assert.is(c.request.method, 'POST');
  assert.is(c.request.path, '/v1/instances');
  assert.is(c.request.route, '/v1/instances');
  assert.equal(c.request.body, { instance_type: '8H100.80S.176V', image: 'img', hostname: 'x', description: '', location_code: 'FIN-03', ssh_key_ids: ['k'], os_volume: { size: 200 }, tags: [{ key: 'team', value: 'v' }] });
  assert.is(requestTarget(c.request), '/v1/instances');
  assert.equal(JSON.parse(requestBody(c.request)!), c.request.body);
  // The class reads the folded body: the create's name is found under any spelling.
  assert.equal([gpucloudApi.classify([], c.request).effect, gpucloudApi.classify([], c.request).name], ['create', 'x']);
  // Keys that fill no field stay as written (Go ignores them); İ is not a case of i.
  const other = canon('POST', '/v1/volumes', { type: 'NVMe', name: 'v', size: 10, location_code: 'FIN-01', \u0130nstance_id: 'x', extra: 1 });
  assert.ok(other.ok && 'İnstance_id' in (other.request.body as object) && 'extra' in (other.request.body as object));
});

test('two keys that fill one field are refused (either may win on the server), in any object of the body', () => {
  const cases: [string, string][] = [
    ['/v1/instances', `{"instance_type":"CPU.4V.16G","INSTANCE_TYPE":"8H100.80S.176V","hostname":"a"}`],
    ['/v1/instances', `{"instance_type":"CPU.4V.16G","in\\u017Ftance_type":"8H100.80S.176V","hostname":"a"}`],
    ['/v1/instances', `{"instance_type":"x","hostname":"a","os_volume":{"size":50,"Size":5000}}`],
    ['/v1/container-deployments', `{"name":"w","scaling":{"max_replica_count":1,"MAX_REPLICA_COUNT":20}}`],
    ['/v1/volumes', `{"type":"NVMe","name":"v","size":1,"unknown":1,"UNKNOWN":2}`],
  ];
  for (const [path, body] of cases) assert.match(refused('POST', path, body) ?? '', /which the API reads as one/, body);
  assert.match(refused('POST', '/v1/instances', '{"instance_type":"a","instance_type":"b"}') ?? '', /appears twice/);
});

test('a body key decided at run time, a number JavaScript cannot hold exactly, and a lone surrogate in a key are refused', () => {
  assert.match(refused('POST', '/v1/instances', '{"<K>":"8H100.80S.176V","hostname":"a"}') ?? '', /key decided at run time/);
  assert.match(refused('POST', '/v1/volumes', '{"type":"NVMe","name":"v","size":12345678901234567890}') ?? '', /too large to be read exactly/);
  assert.match(refused('POST', '/v1/volumes', '{"type":"NVMe","name":"v","\\ud800size":1}') ?? '', /lone surrogate/);
});

test('a "__proto__" key stays an ownable key: the price reads no field through it that the sent body lacks', () => {
  const c = canon('POST', '/v1/instances', '{"__proto__":{"instance_type":"8H100.80S.176V"},"hostname":"p","image":"i","description":"","location_code":"FIN-01"}');
  assert.ok(c.ok);
  if (!c.ok) return;
  const body = c.request.body as Record<string, unknown>;
  assert.is(body.instance_type, undefined, 'no instance_type through a prototype');
  assert.ok(Object.prototype.hasOwnProperty.call(body, '__proto__'));
  assert.ok(requestBody(c.request)!.includes('"__proto__"'), 'sent as written (the API ignores it)');
});

test('numbers JSON.parse cannot hold (1e400 would be sent as null) and bodies nested without end are refused', () => {
  assert.match(refused('POST', '/v1/volumes', '{"type":"NVMe","name":"v","size":1e400}') ?? '', /too large/);
  assert.match(refused('POST', '/v1/volumes', `{"type":"NVMe","name":"v","tags":${'['.repeat(40)}${']'.repeat(40)}}`) ?? '', /nested deeper than 32/);
});

test('an ID that spells a route word another way is refused on a change; path forms a router may read twice stay refused', () => {
  assert.match(refused('POST', '/v1/instances/Action', { action: 'start', id: 'x' }) ?? '', /stands where the route word "action" may be read/);
  assert.match(refused('POST', '/v1/instances/action.json', { action: 'start', id: 'x' }) ?? '', /route word "action"/);
  assert.ok(canon('POST', '/v1/instances/action', { action: 'start', id: 'x' }).ok);
  for (const path of ['/v1//instances', '/v1/Instances', '/v1/%69nstances', '/v1/instances/..', '/v1/container-deployments/w%2Feb/scaling']) assert.ok(refused('POST', path, CREATE), path);
});

test('through validation: a refused form is exit 2 naming the step and the field, and nothing about it is guessed', () => {
  const plan = { version: 1, provider: 'gpucloud', commands: [{ args: ['gpucloud-api', 'GET', '/v1/balance'], reason: 'r' }, { args: step('POST', '/v1/instances?utm=1', CREATE), reason: 'create CPU.4V.16G instance cheap-1 (0.03/hour)' }] };
  const v = validatePlan(plan, { providers: PROVIDERS, destroyer: true });
  assert.not.ok(v.ok);
  assert.equal(v.problems.map((p) => [p.index, p.field, p.kind]), [[1, 'args[2]', 'schema']]);
  assert.is(v.requests[1], undefined);
  assert.ok(v.requests[0]?.path === '/v1/balance');
});

test('what is sent is the canonical request spelled one way: segments and query values escaped alike, the body re-serialised', () => {
  const c = canon('DELETE', '/v1/secrets/my%40secret?force=true');
  assert.ok(c.ok);
  if (!c.ok) return;
  assert.is(c.request.path, '/v1/secrets/my@secret');
  assert.is(requestTarget(c.request), '/v1/secrets/my%40secret?force=true');
  const b = canon('POST', '/v1/volumes', '{ "type" : "NVMe", "name":"v", "size": 5e2, "location_code":"FIN-01" }');
  assert.ok(b.ok && requestBody(b.request) === '{"type":"NVMe","name":"v","size":500,"location_code":"FIN-01"}');
});

test.run();
