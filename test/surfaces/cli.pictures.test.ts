/**
 * Pictures (issue 31 §4), each checked by its text: the cost trend chart (on a terminal; the table
 * with -o table; figures with -o json), plan show --graph (text lanes, Mermaid, DOT), and the
 * availability matrix; and the same pictures through the MCP tools.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { run as runCost } from '../../commands/cost.js';
import { commandContext, type CommandContext } from '../../commands/context.js';
import { renderTrendChart } from '../../engine/producers/charts/cost-trend.js';
import type { CostTrend } from '../../engine/producers/cost/trend.js';
import { emulatorClient } from '../../emulator/test-client.js';
import { cliInThisProcess, runCli, tempHome, withEmulator } from '../support/cli.js';
import { callTool, connectHttp, startMcpServer, textOf } from '../support/mcp.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

const ATTACH = fileURLToPath(new URL('../../../examples/plans/volume-create-attach.json', import.meta.url));
const home = () => tempHome('assistant-pictures-');

const COSTS = [1, 5, 21.4, 30, 35.96, 35.96, 26.44];
const TREND: CostTrend = {
  provider: 'gpucloud',
  currency: 'usd',
  start: '2026-11-17',
  end: '2026-11-23',
  as_of: '2026-11-23T18:00:00.000Z',
  based_on: '',
  total: COSTS.reduce((a, b) => a + b, 0),
  notes: [],
  days: COSTS.map((cost, i) => ({ date: `2026-11-${17 + i}`, cost, hours: 24, average_hourly: cost / 24, basis: 'measured', measured_hours: 24, snapshots: 1, balance_end: i < 2 ? null : 1200 - i * 40 })),
};

test('the cost trend chart: daily spend and runway as line charts over the days, then the totals (exact text)', () => {
  const text = renderTrendChart(TREND, { columns: 50, color: false, now: { balance: 1000, runway_hours: 667.4, runway_until: '2026-12-21T12:02:00Z' } });
  assert.fixture(
    text,
    `Daily spend (USD), 2026-11-17 to 2026-11-23
     35.96 ┼                    ╭──────────╮
     31.59 ┤                ╭───╯          ╰─╮
     27.22 ┤             ╭──╯                ╰─
     22.85 ┤           ╭─╯
     18.48 ┤         ╭─╯
     14.11 ┤       ╭─╯
      9.74 ┤      ╭╯
      5.37 ┤ ╭────╯
      1.00 ┼─╯
           11-17                          11-23

Runway (days): the balance at the end of each day over that day's burn
      52.3 ┼╮
      49.3 ┤╰─╮
      46.2 ┤  ╰─╮
      43.2 ┤    ╰╮
      40.1 ┤     ╰─╮
      37.0 ┤       ╰─╮                       ╭─
      34.0 ┤         ╰───╮                ╭──╯
      30.9 ┤             ╰───╮         ╭──╯
      27.8 ┤                 ╰─────────╯
           11-19                          11-23

Total:    155.76 USD (2026-11-17 to 2026-11-23)
Runway:   27.8 d now, until 2026-12-21 12:02 UTC (balance 1000.00 USD)
Table:    -o table; figures: -o json
`,
  );
});

function ttyContext(env: Record<string, string>, h: string, explicit?: 'table' | 'json'): { ctx: CommandContext; out: () => string } {
  const stdout = new PassThrough();
  let o = '';
  stdout.setEncoding('utf8').on('data', (d: string) => (o += d));
  const ctx: CommandContext = commandContext({
    io: { stdout, stderr: new PassThrough(), stdin: new PassThrough(), stdoutIsTTY: true, stderrIsTTY: true, stdinIsTTY: false, columns: 100, color: false, stdoutColor: false },
    env: { ...env, HOME: h },
    home: h,
    globals: { output: explicit ?? 'table', outputExplicit: explicit !== undefined, debug: false, yes: false, sandbox: false },
  });
  return { ctx, out: () => o };
}

test('cost trend draws the charts on a terminal, the table with -o table, and the figures with -o json', () =>
  withEmulator(async ({ env }) => {
    const h = home();
    const chart = ttyContext(env, h);
    assert.is(await runCost(['trend'], chart.ctx), 0);
    assert.match(chart.out(), /^Daily spend \(USD\), \d{4}-\d{2}-\d{2} to \d{4}-\d{2}-\d{2}$/m);
    assert.match(chart.out(), /^Runway \(days\): /m);
    assert.match(chart.out(), /┤/);
    assert.match(chart.out(), /^Runway: {3}\d+\.\d d now, until /m);
    const table = ttyContext(env, h, 'table');
    assert.is(await runCost(['trend'], table.ctx), 0);
    assert.match(table.out(), /^DAY \(UTC\)\s+COST/m);
    assert.not.match(table.out(), /Daily spend/);
    const json = ttyContext(env, h, 'json');
    assert.is(await runCost(['trend'], json.ctx), 0);
    const t = JSON.parse(json.out());
    assert.is(t.days.length, 7);
    assert.type(t.days[6].cost, 'number');
    // Not a terminal (a pipe): the table, as before.
    const piped = await runCli(['cost', 'trend'], { env, home: h });
    assert.match(piped.stdout, /^DAY \(UTC\)/m);
  }));

const GRAPH_TEXT = `┬───── 0  POST /v1/instances — create the instance  ⇒ INSTANCE_ID
├───── 1  WAIT instances <INSTANCE_ID> until running — wait until it is running  ⇐ INSTANCE_ID (0)
├───── 2  PUT /v1/instances — shut it down so the volume can be attached  ⇐ INSTANCE_ID (0)
├───── 3  WAIT instances <INSTANCE_ID> until offline — wait until it is offline  ⇐ INSTANCE_ID (0)
│ ┬─── 4  POST /v1/volumes — create the data volume  ⇒ VOLUME_ID
│ ├─── 5  WAIT volumes <VOLUME_ID> until detached — wait until the new volume is ready  ⇐ VOLUME_ID (4)
└─┼─── 6  PUT /v1/volumes — attach the volume  ⇐ VOLUME_ID (4), INSTANCE_ID (0)
  └─── 7  WAIT volumes <VOLUME_ID> until attached — wait until it is attached  ⇐ VOLUME_ID (4)

⇒ produces, ⇐ uses (step): each binding runs down a lane from the step that produces it to the last step that uses it
`;

test('plan show --graph draws each binding as a lane from its producer to its last user (exact text); --ascii too', async () => {
  const h = home();
  const r = await runCli(['plan', 'show', ATTACH, '--graph'], { home: h });
  assert.is(r.code, 0, r.stderr);
  assert.fixture(r.stdout, GRAPH_TEXT);
  const a = await runCli(['plan', 'show', ATTACH, '--graph', '--ascii'], { home: h });
  assert.match(a.stdout, /^\\-\+--- 6  PUT \/v1\/volumes - attach the volume  <= VOLUME_ID \(4\), INSTANCE_ID \(0\)$/m);
  assert.not.match(a.stdout, /[^\x00-\x7f]/, 'plain ASCII only');
});

test('plan show marks destructive steps, and --format mermaid|dot write the graph for documentation', async () => {
  const h = home();
  const plan = {
    version: 1,
    provider: 'gpucloud',
    commands: [
      { args: ['gpucloud-api', 'POST', '/v1/scripts', JSON.stringify({ name: 's', script: '#!/bin/sh' })], reason: 'a "startup" script', produces: { SCRIPT_ID: '$.id' } },
      { args: ['gpucloud-api', 'POST', '/v1/instances', JSON.stringify({ instance_type: '1V100.6V', image: 'ubuntu-24.04', hostname: 'g', description: '', location_code: 'FIN-01', ssh_key_ids: ['<DEFAULT_SSH_KEY_ID>'], startup_script_id: '<SCRIPT_ID>' })], reason: 'the box', produces: { INSTANCE_ID: '$.id' }, alternatives: [{ location_code: 'FIN-03' }] },
      { args: ['gpucloud-api', 'PUT', '/v1/instances', JSON.stringify({ action: 'delete', id: '<INSTANCE_ID>' })], reason: 'tear it down' },
    ],
  };
  const file = join(h, 'p.json');
  writeFileSync(file, JSON.stringify(plan));
  const text = await runCli(['plan', 'show', file, '--graph'], { home: h });
  assert.match(text.stdout, /^└─┬─── 1  POST \/v1\/instances — the box  ⇒ INSTANCE_ID  ⇐ SCRIPT_ID \(0\)  \+1 alternative$/m);
  assert.match(text.stdout, /^  └─── 2  DESTRUCTIVE PUT \/v1\/instances — tear it down  ⇐ INSTANCE_ID \(1\)$/m);
  assert.match(text.stdout, /^DESTRUCTIVE: step 2 \(\/v1\/instances action "delete"\)$/m);
  const mermaid = await runCli(['plan', 'show', file, '--format', 'mermaid'], { home: h });
  assert.fixture(
    mermaid.stdout,
    `flowchart TD
  s0["0 · POST /v1/scripts<br/>a #quot;startup#quot; script"]
  s1["1 · POST /v1/instances<br/>the box<br/>+ 1 alternative if no capacity"]
  s2["2 · DESTRUCTIVE · PUT /v1/instances<br/>tear it down"]
  s0 -->|SCRIPT_ID| s1
  s1 -->|INSTANCE_ID| s2
  classDef destructive fill:#fdd,stroke:#c00,stroke-width:2px
  class s2 destructive
`,
  );
  const dot = await runCli(['plan', 'show', file, '--format', 'dot'], { home: h });
  assert.match(dot.stdout, /^digraph plan \{$/m);
  assert.match(dot.stdout, /^  s0 \[label="0 · POST \/v1\/scripts\\na \\"startup\\" script"\];$/m);
  assert.match(dot.stdout, /^  s2 \[label="2 · DESTRUCTIVE · PUT \/v1\/instances\\ntear it down", color=red, fontcolor=red, style=bold\];$/m);
  assert.match(dot.stdout, /^  s1 -> s2 \[label="INSTANCE_ID"\];$/m);
  const json = JSON.parse((await runCli(['plan', 'show', file, '-o', 'json'], { home: h })).stdout);
  assert.equal(json.edges, [{ from: 0, to: 1, binding: 'SCRIPT_ID' }, { from: 1, to: 2, binding: 'INSTANCE_ID' }]);
  const table = await runCli(['plan', 'show', file], { home: h });
  assert.match(table.stdout, /^2\s+DESTROY\s+PUT \/v1\/instances/m);
  const bad = await runCli(['plan', 'show', file, '--format', 'png'], { home: h });
  assert.is(bad.code, 2);
  assert.match(bad.stderr, /^error: invalid_input: --format: expected text, mermaid or dot/m);
});

// A pipe gets every column (issue 38 item 2), the GPU one included.
const MATRIX = `INSTANCE TYPE     GPU                    FIN-01            FIN-02        FIN-03            ICE-01
1V100.6V          1x Tesla V100 16GB     0.39 s 0.14       -             0.39 s 0.14       -
8V100.48V         8x Tesla V100 16GB     -                 -             -                 -
1A100.22V         1x A100 SXM4 80GB      1.29 s 0.60       1.29 s 0.60   1.29 s 0.60       -
8A100.176V        8x A100 SXM4 80GB      10.32             -             10.32             -
1H100.80S.22V     1x H100 SXM5 80GB      -                 -             2.19 s 1.10       2.19
8H100.80S.176V    8x H100 SXM5 80GB      -                 -             17.52 s 8.80      -
1H200.141S.44V    1x H200 SXM5 141GB     -                 -             3.59              3.59 s 1.49
8H200.141S.176V   8x H200 SXM5 141GB     -                 -             28.72             28.72
1RTX6000ADA.10V   1x RTX 6000 Ada 48GB   1.19              1.19          -                 -
1A6000.10V        1x RTX A6000 48GB      0.49 s 0.21       -             -                 -
1L40S.20V         1x L40S 48GB           -                 0.91 s 0.35   0.91              -
CPU.4V.16G        -                      0.0279 s 0.0112   0.0279        0.0279 s 0.0112   0.0279
CPU.8V.32G        -                      0.0558            0.0558        0.0558            -
Prices in USD/hour where the type can be had now: on demand, "s" spot; "-" not available.
`;

test('gpucloud list availability --matrix: instance types × locations with prices (exact text), following the capacity switch; -o json stays the API array', () =>
  withEmulator(async ({ emu, env }) => {
    const h = home();
    emu.setCapacity({ instance_type: '1H100.80S.22V', location_code: 'FIN-02', mode: 'sold_out' });
    const r = await runCli(['gpucloud', 'list', 'availability', '--matrix'], { env, home: h });
    assert.is(r.code, 0, r.stderr);
    assert.fixture(r.stdout, MATRIX);
    const raw = await runCli(['gpucloud', 'list', 'availability', '-o', 'json'], { env, home: h });
    assert.equal(JSON.parse(raw.stdout), (await emulatorClient(emu).call('GET', '/v1/instance-availability')).json);
    const m = JSON.parse((await runCli(['gpucloud', 'list', 'availability', '--matrix', '-o', 'json'], { env, home: h })).stdout);
    assert.equal(m.rows.find((x: { type: string }) => x.type === '1H100.80S.22V').cells['ICE-01'], { on_demand: true, spot: false });
    const clusters = await runCli(['gpucloud', 'list', 'cluster-availability', '--matrix'], { env, home: h });
    assert.match(clusters.stdout, /^16H200\s+16x H200 SXM5 141GB\s+-\s+-\s+47\.84\s+47\.84$/m);
    const wrong = await runCli(['gpucloud', 'list', 'instances', '--matrix'], { env, home: h });
    assert.is(wrong.code, 2);
  }));

test('the MCP tools: plan diff, plan graph, availability matrix and cost trend', () =>
  withEmulator(async ({ env }) => {
    const server = await startMcpServer(['--listen', '127.0.0.1:0'], { env, home: home() });
    const client = await connectHttp(server.url);
    try {
      const plan = { version: 1, provider: 'gpucloud', commands: [{ args: ['gpucloud-api', 'PUT', '/v1/instances', JSON.stringify({ action: 'delete', id: '2d8a6e3c-4b5f-4a7c-9dae-9f8a7b6c5d43' })], reason: 'delete demo-cpu' }] };
      const diff = await callTool(client, 'assistant_plan_diff', { plan, all: true });
      assert.not.ok(diff.isError, textOf(diff));
      assert.is(diff.structuredContent.drift, true);
      assert.equal(diff.structuredContent.counts, { in_sync: 0, missing: 0, different: 1, unowned: 2 });
      assert.match(textOf(diff), /^different\s+instance\s+demo-cpu/m);
      const graph = await callTool(client, 'assistant_plan_graph', { plan: JSON.stringify(plan), format: 'mermaid' });
      assert.match(textOf(graph), /^ {2}class s0 destructive$/m);
      assert.equal(graph.structuredContent.nodes[0].destructive, ['/v1/instances action "delete"']);
      const text = await callTool(client, 'assistant_plan_graph', { plan: { version: 1, provider: 'gpucloud', commands: [] }, format: 'text' });
      assert.ok(text.isError, 'an invalid plan is an error result');
      const matrix = await callTool(client, 'assistant_gpucloud_availability_matrix', {});
      assert.match(textOf(matrix), /^1H100\.80S\.22V\s+1x H100 SXM5 80GB\s+-\s+2\.19\s+2\.19 s 1\.10\s+2\.19$/m);
      assert.equal(matrix.structuredContent.locations, ['FIN-01', 'FIN-02', 'FIN-03', 'ICE-01']);
      const trend = await callTool(client, 'assistant_cost_trend', {});
      assert.not.ok(trend.isError, textOf(trend));
      assert.match(textOf(trend), /^Daily spend \(USD\)/m);
      assert.is(trend.structuredContent.days.length, 7);
    } finally {
      await client.close();
      await server.stop();
    }
  }));

test.run();
