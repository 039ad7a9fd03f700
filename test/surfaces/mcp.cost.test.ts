/**
 * The MCP cost tool and the budget guard of the apply tool, driven by the MCP SDK's own client against
 * `assistant mcp` backed by the emulator's demo account. Burn hand-computed as in cli.budget.test.ts.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startEmulator, EMULATOR_DEFAULT_SSH_KEY_ID } from '../../emulator/index.js';
import { emulatorEnv, tempHome } from '../support/cli.js';
import { callTool, connectHttp, errorOf, startMcpServer, textOf } from '../support/mcp.js';
import { createInstanceStep, gpucloudPlan } from '../support/plans.js';

const GB_HOUR = (perGbMonth: number, gb: number) => (perGbMonth * gb) / 720;
const BURN = 1.29 + 0.0279 + GB_HOUR(0.2, 100 + 50 + 500);
const ADDED = 0.39 + GB_HOUR(0.2, 100);
const BALANCE = 300;
const close = (actual: number, expected: number, what: string) => assert.ok(Math.abs(actual - expected) < 1e-9, `${what}: ${actual} != ${expected}`);
const createPlan = gpucloudPlan(createInstanceStep('mcp-budget', { sshKey: EMULATOR_DEFAULT_SSH_KEY_ID, reason: 'a V100 box' }));

async function withServer(config: string, fn: (client: Awaited<ReturnType<typeof connectHttp>>, posts: () => number, home: string) => Promise<void>): Promise<void> {
  const emu = await startEmulator({ seed: 'demo', rateLimit: false, lifecycleMs: 1, debit: false });
  emu.setBalance(BALANCE);
  const home = tempHome('assistant-mcp-cost-');
  writeFileSync(join(home, '.assistant.yaml'), config, { mode: 0o600 });
  const server = await startMcpServer(['--listen', '127.0.0.1:0'], { env: emulatorEnv(emu), home });
  const client = await connectHttp(server.url);
  try {
    await fn(client, () => emu.requests().filter((q) => q.method === 'POST' && q.path === '/v1/instances').length, home);
  } finally {
    await client.close();
    await server.stop();
    await emu.close();
  }
}

test('assistant_cost_summary gives the burn, 30-day forecast, balance and runway as structured content; detail adds every resource, most expensive first', () =>
  withServer('', async (client, posts, home) => {
    const r = await callTool(client, 'assistant_cost_summary', {});
    assert.not.ok(r.isError, textOf(r));
    const s = r.structuredContent;
    assert.equal([s.provider, s.currency, s.balance, s.resource_count, s.resources, s.unpriced], ['gpucloud', 'usd', BALANCE, 5, undefined, []]);
    close(s.hourly_cost, BURN, 'hourly');
    close(s.daily_cost, BURN * 24, 'daily');
    close(s.monthly_forecast, BURN * 720, 'monthly');
    close(s.runway_hours, BALANCE / BURN, 'runway');
    assert.ok(textOf(r).includes(`Burn: ${BURN.toFixed(4)} USD/hour (${(BURN * 24).toFixed(2)} per day, ${(BURN * 720).toFixed(2)} per 30 days)`), textOf(r));
    const d = await callTool(client, 'assistant_cost_summary', { provider: 'gpucloud', detail: true });
    assert.not.ok(d.isError, textOf(d));
    assert.equal(d.structuredContent.resources.map((x: { name: string }) => x.name).slice(0, 2), ['demo-a100', 'demo-data']);
    assert.is(d.structuredContent.resources[0].hourly_cost, 1.29);
    assert.match(textOf(d), /- instance demo-cpu \(id [0-9a-f-]{36}, CPU\.4V\.16G, offline\): 0\.0279 USD\/hour/);
    const bad = await callTool(client, 'assistant_cost_summary', { provider: 'cloud_z' });
    assert.ok(bad.isError);
    // The tool reads like `cost summary`: the reading is a snapshot for the trend.
    assert.is(readFileSync(join(home, '.assistant', 'cost', 'snapshots.jsonl'), 'utf8').trim().split('\n').length, 2);
    assert.is(posts(), 0);
  }));

test("assistant_plan_apply's max_hourly_cost refuses a plan over the limit with budget_exceeded; it tightens the server's budget.max_hourly but never loosens it", () =>
  withServer('budget:\n  max_hourly: 1.9\n', async (client, posts) => {
    const loose = await callTool(client, 'assistant_plan_apply', { plan: createPlan, max_hourly_cost: 50 });
    assert.ok(loose.isError);
    assert.is(errorOf(loose).code, 'budget_exceeded');
    assert.ok(errorOf(loose).message.includes(`current burn ${BURN.toFixed(4)} USD/hour + this plan ${ADDED.toFixed(4)} USD/hour = ${(BURN + ADDED).toFixed(4)} USD/hour, above the limit of 1.9000 USD/hour (budget.max_hourly)`), errorOf(loose).message);
    const tight = await callTool(client, 'assistant_plan_apply', { plan: createPlan, max_hourly_cost: 1.6 });
    assert.is(errorOf(tight).code, 'budget_exceeded');
    assert.match(errorOf(tight).message, /above the limit of 1\.6000 USD\/hour \(max_hourly_cost\)/);
    const v = await callTool(client, 'assistant_plan_validate', { plan: createPlan });
    assert.not.ok(v.isError, textOf(v));
    const b = v.structuredContent.preview.budget;
    close(b.current_per_hour, BURN, 'validate: current');
    close(b.after_per_hour, BURN + ADDED, 'validate: after');
    assert.equal([b.max_hourly, b.limit_from, b.within], [1.9, 'budget.max_hourly', false]);
    assert.match(textOf(v), /limit 1\.9000 USD\/hour \(budget\.max_hourly\): EXCEEDED/);
    assert.is(posts(), 0, 'nothing was created');
  }));

test.run();
