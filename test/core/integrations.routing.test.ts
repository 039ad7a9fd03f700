/**
 * Routing of the code host, error tracker and issue tracker (their `routing` capabilities): their
 * names and specific words select them outright; common words ("errors", "issues", "builds",
 * "priority") select them only once their config section is set up, so a gpucloud question about
 * "errors on my instances" is not sent to an error tracker nobody configured.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { providerRoutings } from '../../engine/providers/index.js';
import { routeQuestion } from '../../engine/core/routing/route.js';
import { contextPlanFor } from '../../machines/ask/ask.js';
import type { Config } from '../../schemas/config.js';

const ROUTINGS = await providerRoutings();
const route = (q: string, config: Partial<Config> = {}, flags?: string[]) => routeQuestion(q, { config: config as never, routings: ROUTINGS, flags }).providers;
const SET_UP: Partial<Config> = {
  repohost: { owner: 'acme', repo: 'widgets' },
  errtracker: { org_slug: 'acme' },
  issuetracker: { default_team: 'ENG' },
} as never;

test('names and specific words select each integration outright', () => {
  assert.equal(route('which pull requests are open?'), ['repohost']);
  assert.equal(route('is CI green on github?'), ['repohost']);
  assert.equal(route('top unresolved errors in sentry'), ['errtracker']);
  assert.equal(route('what is in the backlog?'), ['issuetracker']);
  assert.equal(new Set(route('open tickets in linear and open PRs')), new Set(['repohost', 'issuetracker']));
  assert.equal(route('anything', {}, ['repohost', 'errtracker']), ['repohost', 'errtracker']);
});

test('common words do not reach an integration that is not set up', () => {
  for (const q of ['any errors on my instances?', 'what issues do my clusters have?', 'which builds are running on my instances', 'why did my instance crash', 'power cycle my instance', 'what is the priority of my volumes']) {
    assert.equal(route(q), ['gpucloud'], q);
  }
});

test('once set up, common words select them (and combine with a cloud)', () => {
  assert.equal(route('list open issues', SET_UP), ['issuetracker']);
  assert.equal(route('top errors this week', SET_UP), ['errtracker']);
  assert.equal(route('are the builds green?', SET_UP), ['repohost']);
  assert.equal(new Set(route('what errors do my instances have?', SET_UP)), new Set(['errtracker', 'gpucloud']));
});

test('a combined view reads each provider with its own read-only steps in one plan', async () => {
  const decision = { providers: ['repohost', 'errtracker', 'issuetracker'], kinds: [] };
  const { plan, kinds } = await contextPlanFor(decision, { question: 'what needs attention?', config: SET_UP as Config });
  assert.equal(plan.provider, ['repohost', 'errtracker', 'issuetracker']);
  assert.equal(kinds, ['repohost/issues', 'repohost/pulls', 'repohost/ci', 'errtracker/issues', 'issuetracker/issues']);
  assert.equal(plan.commands.map((c) => `${c.args[0]} ${c.args[1]}`), ['repohost-api GET', 'repohost-api GET', 'repohost-api GET', 'errtracker-api GET', 'issuetracker-api POST']);
});

test.run();
