/**
 * Consent from the request (issue 35 §5, engine/core/plan/consent.ts): a change step is shown as its
 * request, what its body asks for and its computed price, the plan's own words after, flagged when
 * they name another type, size, count or a lower price than the request — and not flagged when they agree.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { reasonMismatch, renderConsent, stepConsents } from '../../engine/core/plan/consent.js';
import type { ChangePrice, RequestFacts } from '../../engine/core/provider.js';

const KNOWN = ['1V100.6V', '8H100.80S.176V', 'CPU.4V.16G', '1H100.80S.22V', 'NVMe', 'HDD', 'H100', 'H200'];
const facts = (f: Partial<RequestFacts>): RequestFacts => ({ lines: [], types: [], known_types: KNOWN, sizes_gb: [], counts: [], ...f });
const priced = (per_hour: number): ChangePrice => ({ price: 'priced', per_hour, lines: [] });
const BIG = facts({ types: ['8H100.80S.176V', 'NVMe'], sizes_gb: [100], counts: [1] });

test('a reason that names another type, size, count or a lower price is flagged, each said', () => {
  assert.equal(reasonMismatch('create CPU.4V.16G instance cheap-1 (0.03/hour)', BIG, priced(17.5478)), [
    'it names CPU.4V.16G; the request asks for 8H100.80S.176V, NVMe',
    'it says 0.03/hour; the request is priced at 17.5478/hour',
  ]);
  assert.equal(reasonMismatch('a 2 TB OS volume', BIG, priced(1)), ['it says 2 TB; the request asks for 100 GB']);
  assert.equal(reasonMismatch('scale web to 2 replicas', facts({ types: ['H100'], counts: [20] }), priced(45.79)), ['it says 2 replicas; the request asks for 20']);
  assert.equal(reasonMismatch('costs $0.5 per hour', BIG, priced(17.5)), ['it says $0.5 per hour; the request is priced at 17.5000/hour']);
});

test('a reason that agrees is not flagged: type names inside other names, sizes and prices that match, a price above the computed one', () => {
  assert.equal(reasonMismatch('create 8H100.80S.176V instance big-1 with a 100 GB NVMe OS volume, 17.55/hour', BIG, priced(17.5478)), []);
  assert.equal(reasonMismatch('create 1V100.6V instance tty-1', facts({ types: ['1V100.6V', 'NVMe'], sizes_gb: [100], counts: [1] }), priced(0.4178)), []);
  assert.equal(reasonMismatch('an 8H100.80S.176V', BIG, priced(17.5)), [], '1V100 is not read inside 81V100, nor 176V as a size');
  assert.equal(reasonMismatch('scale to 20 replicas of H100 (about 50/hour)', facts({ types: ['H100'], counts: [20] }), priced(45.79)), []);
});

test('an unpriced change whose reason states a price or “free” is flagged; reads have no price and no flags', () => {
  assert.equal(reasonMismatch('free: just a tag', undefined, { price: 'unpriced', why: 'x' }), ['it states a price; no price is known for the request']);
  const consents = stepConsents(
    [
      { index: 0, request: 'GET /v1/balance', class: { effect: 'read', reasons: [] }, reason: 'read the balance (free)' },
      { index: 1, request: 'POST /v1/instances', class: { effect: 'create', kind: 'instance', reasons: [] }, reason: 'create CPU.4V.16G instance cheap-1 (0.03/hour)' },
      { index: 2, request: 'PUT /v1/instances', class: { effect: 'update', kind: 'instance', reasons: [] }, reason: 'tune it' },
    ],
    new Map([[1, { step: 1, price: priced(17.5478), facts: { ...BIG, lines: ['instance 8H100.80S.176V in FIN-03'] } }]]),
  );
  assert.equal(consents[0]!.mismatch, []);
  assert.is(consents[0]!.price, undefined);
  assert.equal(consents[2]!.price, { price: 'unpriced', why: 'no provider priced it' }, 'a change no provider answered for is not free');
  const text = renderConsent(consents, 'usd').join('\n');
  assert.match(text, /^ {2}0\. GET \/v1\/balance \(read\)$/m);
  assert.match(text, /^ {2}1\. POST \/v1\/instances \(create of instance\)\n {5}asks for: instance 8H100\.80S\.176V in FIN-03\n {5}price: adds 17\.5478 USD\/hour \(12634\.42 per 30 days\)\n {5}the plan says: create CPU\.4V\.16G instance cheap-1 \(0\.03\/hour\)\n {5}! the plan's words do not match the request: /m);
  assert.match(text, /^ {5}price: NOT KNOWN \(no provider priced it\); a budget refuses it without --allow-unpriced$/m);
  assert.match(text, /^ {2}in all: adds 17\.5478 USD\/hour \(12634\.42 per 30 days\), plus 1 change\(s\) no price is known for$/m);
});

test.run();
