/**
 * Which questions reach notes, appplatform and edge without a flag, and which stay with the clouds that
 * own their words: generic words (pages, deployments, dns records) choose these integrations only when
 * no provider is named outright, so "route53 dns records" or "CloudFront edge locations" stay cloud_a's
 * and "container deployments" stays gpucloud's.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { routeQuestion } from '../../engine/core/routing/route.js';
import { providerRoutings } from '../../engine/providers/index.js';
import type { Config } from '../../schemas/config.js';

const ROUTINGS = await providerRoutings();
const route = (q: string, flags?: string[]) => routeQuestion(q, { routings: ROUTINGS, flags, config: {} as Config }).providers;

test('their own words route questions to notes, appplatform and edge', () => {
  assert.equal(route('which pages are in progress?'), ['notes']);
  assert.equal(route('anything new in the wiki?'), ['notes']);
  assert.equal(route('which deployments failed?'), ['appplatform']);
  assert.equal(route('list my vercel projects'), ['appplatform']);
  assert.equal(route('which dns records are proxied?'), ['edge']);
  assert.equal(route('what is the ssl mode of example.com on cloudflare?'), ['edge']);
  assert.equal(route('which vercel deployments failed and which dns records are proxied?').sort(), ['appplatform', 'edge']);
});

test('words another cloud owns stay with it', () => {
  assert.equal(route('list my route53 dns records'), ['cloud_a']);
  assert.equal(route('which cloudfront edge locations serve my cdn'), ['cloud_a']);
  assert.equal(route('list my container deployments'), ['gpucloud']);
  assert.equal(route('how many deployments do I have?'), ['gpucloud'], '"deployments" alone is gpucloud\'s (container and job deployments)');
  assert.equal(route('which instances are running?'), ['gpucloud']);
});

test('flags select them whatever the words', () => {
  assert.equal(route('what changed?', ['notes']), ['notes']);
  assert.equal(route('what changed?', ['appplatform', 'edge']).sort(), ['appplatform', 'edge']);
});

test.run();
