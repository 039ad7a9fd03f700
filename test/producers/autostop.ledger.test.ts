/**
 * The parts of hibernating auto-stop that need no cloud: which instances may have the policy (plan
 * time), what the dry run says a policy saves, and the ledger behind `cost summary` — its periods from
 * the events a check and a resume append (a torn last line, a hibernate the API refused, a restore made
 * elsewhere) priced against what the account lists now.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { validatePlan } from '../../engine/core/plan/validate.js';
import { addAutostop } from '../../engine/producers/autostop/add-to-plan.js';
import { hibernationPeriods, openPeriodOf, recordHibernateUnsent, recordHibernating, recordRestored, recordStillHibernated } from '../../engine/producers/autostop/ledger.js';
import { idleSavings } from '../../engine/producers/autostop/saving.js';
import { watcherScript } from '../../engine/core/kits/autostop/watcher.js';
import { hibernationSavings } from '../../engine/providers/gpucloud/cost.js';
import { allProviders } from '../../engine/providers/index.js';
import type { Plan } from '../../schemas/plan.js';
import { tempDir } from '../support/temp.js';

const ALL_PROVIDERS = await allProviders();
const HIBERNATE = { idle_minutes: 30, action: 'hibernate' as const };
const H = 3_600_000;
const T0 = Date.parse('2026-11-25T20:00:00Z');

const createStep = (extra: Record<string, unknown> = {}) => ({
  args: ['gpucloud-api', 'POST', '/v1/instances', JSON.stringify({ instance_type: '1V100.6V', image: 'ubuntu-24.04', hostname: 'h-1', description: '', location_code: 'FIN-01', ssh_key_ids: ['k'], ...extra })],
  reason: 'create h-1',
});
const scriptStep = { args: ['gpucloud-api', 'POST', '/v1/scripts', JSON.stringify({ name: 'w', script: watcherScript(HIBERNATE) })], reason: 'watcher', produces: { S: '$.id' } };
const plan = (...commands: Plan['commands']): Plan => ({ version: 1, provider: 'gpucloud', commands });
const problems = (p: Plan) => validatePlan(p, { providers: ALL_PROVIDERS, destroyer: false, predefined: [] }).problems.map((x) => x.message).join('\n');

test('hibernate is refused at plan time for a spot or long-term instance, by the maker (exit 2) and by validation, and allowed on demand', () => {
  assert.is(problems(plan(scriptStep, { ...createStep({ startup_script_id: '<S>' }), autostop: HIBERNATE })), '');
  for (const [extra, why] of [[{ is_spot: true }, /a spot instance cannot hibernate/], [{ contract: 'SPOT' }, /a spot instance cannot hibernate/], [{ contract: 'LONG_TERM' }, /paid up front: hibernating it would save nothing/]] as const) {
    assert.match(problems(plan(scriptStep, { ...createStep({ startup_script_id: '<S>', ...extra }), autostop: HIBERNATE })), why);
    let err: unknown;
    try {
      addAutostop(plan(createStep(extra)), HIBERNATE, []);
    } catch (e) {
      err = e;
    }
    assert.is((err as { exitCode?: number }).exitCode, 2);
    assert.match((err as Error).message, /^h-1 cannot use auto-stop by hibernation: /);
  }
  // Shutdown and delete stay allowed on spot.
  assert.is(problems(addAutostop(plan(createStep({ is_spot: true })), { idle_minutes: 30, action: 'shutdown' }, [])), '');
});

test('what a policy saves per idle hour, from the dry run\'s cost lines: shutdown nothing, hibernate the machine, delete the machine and its OS volume', () => {
  const costs = [
    { step: 0, kind: 'instance', type: '1V100.6V', per_hour: 0.39 },
    { step: 0, kind: 'volume', type: 'NVMe', part: 'OS volume', size_gb: 100, per_hour: 0.02 },
    { step: 0, kind: 'volume', type: 'NVMe', part: 'volume "data"', size_gb: 500, per_hour: 0.1 },
  ];
  const at = (action: 'shutdown' | 'hibernate' | 'delete') => idleSavings(plan({ ...createStep(), autostop: { idle_minutes: 30, action } }), costs)[0]!;
  const near = (a: number | null, b: number) => assert.ok(a !== null && Math.abs(a - b) < 1e-9, `${a} ≠ ${b}`);
  near(at('shutdown').saves_per_hour, 0);
  near(at('shutdown').still_bills_per_hour, 0.51);
  near(at('hibernate').saves_per_hour, 0.39);
  near(at('hibernate').still_bills_per_hour, 0.12);
  near(at('delete').saves_per_hour, 0.41);
  near(at('delete').still_bills_per_hour, 0.1);
  assert.is(at('hibernate').name, 'h-1');
  // A machine with no price: what it saves is unknown, not zero.
  assert.is(idleSavings(plan({ ...createStep(), autostop: HIBERNATE }), [{ step: 0, kind: 'instance', type: 'X' }])[0]!.saves_per_hour, null);
});

test('the ledger: a period opens at the hibernate, a refused one is taken back, a torn last line is skipped, a restore closes it', () => {
  const home = tempDir('autostop-ledger-');
  const inst = { id: 'i-1', hostname: 'h-1', type: '1V100.6V', price_per_hour: 0.39 };
  recordHibernating(home, 'gpucloud', inst, T0);
  recordHibernateUnsent(home, 'i-1', T0 + 1000);
  assert.equal(hibernationPeriods(home, 'gpucloud'), [], 'refused by the API: no period');
  recordHibernating(home, 'gpucloud', inst, T0 + H);
  appendFileSync(join(home, '.assistant', 'autostop', 'ledger.jsonl'), '{"e":"restore","id":"i-1","at":'); // kill -9 mid-write
  const open = hibernationPeriods(home, 'gpucloud');
  assert.is(open.length, 1);
  assert.equal([open[0]!.from, open[0]!.restored_at], [T0 + H, undefined]);
  assert.is(openPeriodOf(home, 'gpucloud', 'h-1')?.id, 'i-1');
  assert.equal(hibernationPeriods(home, 'cloud_a'), [], 'per provider');
  appendFileSync(join(home, '.assistant', 'autostop', 'ledger.jsonl'), '\n');
  recordRestored(home, 'gpucloud', 'i-1', T0 + 3 * H);
  assert.is(hibernationPeriods(home, 'gpucloud')[0]!.restored_at, T0 + 3 * H);
  assert.is(openPeriodOf(home, 'gpucloud', 'h-1'), undefined);
  recordRestored(home, 'gpucloud', 'i-1', T0 + 9 * H);
  assert.is(hibernationPeriods(home, 'gpucloud')[0]!.restored_at, T0 + 3 * H, 'a second restore changes nothing');
});

test('a period counts only while the instance is known hibernated: listed so (until now), else until last seen; a restore made elsewhere never counts past what was seen', () => {
  const home = tempDir('autostop-ledger-');
  recordHibernating(home, 'gpucloud', { id: 'a', hostname: 'a', type: 't', price_per_hour: 2 }, T0);
  recordHibernating(home, 'gpucloud', { id: 'b', hostname: 'b', type: 't', price_per_hour: 1 }, T0);
  recordStillHibernated(home, 'gpucloud', ['a', 'b'], T0 + 2 * H);
  recordStillHibernated(home, 'gpucloud', ['a', 'b'], T0 + 2 * H + 60_000); // within the hour: not written again
  const now = T0 + 5 * H;
  const instances = [
    { id: 'a', status: 'hibernating' },
    { id: 'b', status: 'running' }, // restored through the console
  ];
  const s = hibernationSavings(hibernationPeriods(home, 'gpucloud'), instances, [], now);
  assert.equal(s.periods.map((p) => [p.name, p.still_hibernated, p.hours]), [['a', true, 5], ['b', false, 2]]);
  assert.is(s.total, 2 * 5 + 1 * 2);
  assert.is(s.per_hour_now, 2);
  // b hibernated again by the check: its earlier period ends where it was last seen, the new one starts now.
  recordHibernating(home, 'gpucloud', { id: 'b', hostname: 'b', type: 't', price_per_hour: 1 }, T0 + 4 * H);
  const again = hibernationSavings(hibernationPeriods(home, 'gpucloud'), [...instances.slice(0, 1), { id: 'b', status: 'hibernating' }], [], now);
  assert.equal(again.periods.map((p) => [p.name, p.hours]), [['a', 5], ['b', 2], ['b', 1]]);
});

test('where the API deleted the instance to hibernate it: still hibernated while its OS volume is there, detached', () => {
  const home = tempDir('autostop-ledger-');
  const recipe = { instance_type: 't', location_code: 'FIN-01', hostname: 'g', description: '', ssh_key_ids: [], startup_script_id: 's', os_volume_id: 'os-1', volume_ids: ['os-1', 'd-1'] };
  recordHibernating(home, 'gpucloud', { id: 'g-1', hostname: 'g', type: 't', price_per_hour: 1, recipe }, T0);
  const periods = hibernationPeriods(home, 'gpucloud');
  assert.equal(periods[0]!.recipe, recipe);
  const now = T0 + 3 * H;
  assert.is(hibernationSavings(periods, [], [{ id: 'os-1', status: 'detached' }], now).periods[0]!.still_hibernated, true);
  assert.is(hibernationSavings(periods, [], [{ id: 'os-1', status: 'attached' }], now).periods[0]!.still_hibernated, false, 'booted again by someone else');
  assert.is(hibernationSavings(periods, [], [], now).periods[0]!.hours, 0, 'its OS volume gone: nothing known, nothing counted');
});

test.run();
