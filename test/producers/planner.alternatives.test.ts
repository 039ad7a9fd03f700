/**
 * The built-in planner and the AI maker's prompt know capacity alternatives (issue 31 §1): a request
 * that allows several places or types becomes one create with `alternatives`, available choices first.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { makerSystemPrompt } from '../../engine/producers/ai/maker-prompt.js';
import { AssistantError } from '../../engine/core/errors.js';
import { planBuiltin } from '../../engine/producers/planner/builtin.js';
import { catalogueProblems } from '../../engine/providers/gpucloud/catalogue-check.js';
import { PlanSchema } from '../../schemas/plan.js';
import { CONTEXT } from './planner-questions.js';

const ctx = {
  ...CONTEXT,
  catalogue: { ...CONTEXT.catalogue, locations: [{ code: 'FIN-01', country_code: 'FI' }, { code: 'FIN-02', country_code: 'FI' }, { code: 'FIN-03', country_code: 'FI' }, { code: 'ICE-01', country_code: 'IS' }, { code: 'USA-01', country_code: 'US' }] },
};
const create = (q: string) => {
  const plan = planBuiltin(q, ctx);
  assert.ok(PlanSchema.safeParse(plan).success, JSON.stringify(plan));
  const [c] = plan.commands;
  const body = JSON.parse(c!.args[3]!);
  return { type: body.instance_type, location: body.location_code, alternatives: c!.alternatives };
};

test('"an H100 anywhere in Europe": every European location, the one with capacity now first, the US location left out', () => {
  const r = create('create an H100 instance called h1 anywhere in Europe');
  // CONTEXT's availability lists the H100 only in FIN-03 (FIN-02 and ICE-01 are not listed, so not known to have it).
  assert.equal([r.type, r.location], ['1H100.80S.22V', 'FIN-03']);
  assert.equal(r.alternatives, [{ location_code: 'FIN-01' }, { location_code: 'FIN-02' }, { location_code: 'ICE-01' }]);
});

test('"anywhere" takes every location; "in FIN-01 or FIN-03" the two written; "an H100 or an A100" both types', () => {
  assert.equal(create('create an H100 instance called h2 anywhere').alternatives?.map((a) => a.location_code), ['FIN-01', 'FIN-02', 'ICE-01', 'USA-01']);
  const two = create('create a 1V100.6V instance called h3 in FIN-01 or FIN-03');
  assert.equal([two.location, two.alternatives], ['FIN-01', [{ location_code: 'FIN-03' }]]);
  const types = create('create an H100 or an A100 instance called h4 in FIN-03');
  assert.equal([types.type, types.location, types.alternatives], ['1H100.80S.22V', 'FIN-03', [{ instance_type: '1A100.22V' }]]);
});

test('one place and one type plan no alternatives (unchanged plans)', () => {
  assert.is(create('create an H100 instance called h5 in FIN-03').alternatives, undefined);
});

test('a request whose every choice is sold out is refused (not_available); an unknown second model is refused too', () => {
  const code = (q: string) => {
    try {
      planBuiltin(q, ctx);
      return 'planned';
    } catch (err) {
      return (err as AssistantError).code;
    }
  };
  assert.is(code('create an 8V100.48V instance called h6 in FIN-01 or FIN-03'), 'not_available');
  assert.is(code('create an H100 or a B300 instance called h7 in FIN-03'), 'unknown_instance_type');
});

test('the catalogue check of makers checks each alternative: type, location, image', () => {
  const body = { instance_type: '1H100.80S.22V', image: 'ubuntu-24.04-cuda-12.8-open-docker', hostname: 'x', description: '', location_code: 'FIN-03', ssh_key_ids: ['k'] };
  const plan = { commands: [{ args: ['gpucloud-api', 'POST', '/v1/instances', JSON.stringify(body)], reason: 'r', alternatives: [{ location_code: 'MARS-1' }, { instance_type: 'CPU.4V.16G' }, { instance_type: '9Z999.1V' }] }] };
  const problems = catalogueProblems(plan, ctx.catalogue);
  assert.equal(problems.map((p) => [p.field, p.code]), [
    ['alternatives[0].location_code', 'unknown_location'],
    ['alternatives[1].instance_type', 'incompatible_image'],
    ['alternatives[2].instance_type', 'unknown_instance_type'],
  ]);
});

test("the AI maker's prompt documents alternatives and the schema it gets has them", () => {
  const prompt = makerSystemPrompt({ catalogue: {}, defaults: {}, destroyer: false });
  assert.match(prompt, /Allowed command keys: args, reason, produces, alternatives/);
  assert.match(prompt, /"an H100 anywhere in Europe"/);
  assert.match(prompt, /"alternatives":\{/);
});

test.run();
