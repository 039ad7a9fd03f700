/**
 * k8s plans through the MCP server's existing plan tools (the SDK's own client): validated with a dry
 * run that shows the kubectl equivalents and sends no change, applied with the journal, and a
 * deletion refused by a server started without --destroyer.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { deployPlan } from '../../../engine/providers/k8s/plans.js';
import { callTool, connectHttp, errorOf, startMcpServer, textOf } from '../../support/mcp.js';
import { startKubeApi, writeKubeconfig } from '../../support/kube-api.js';
import { tempDir } from '../../support/temp.js';

test('an agent validates and applies a k8s deploy plan through assistant_plan_validate and assistant_plan_apply', async () => {
  const api = await startKubeApi();
  const kubeconfig = writeKubeconfig(tempDir('kcfg-'), api);
  const server = await startMcpServer(['--listen', '127.0.0.1:0'], { env: { KUBECONFIG: kubeconfig } });
  const client = await connectHttp(server.url);
  try {
    const plan = deployPlan({ context: 'kind-test', namespace: 'default', name: 'agent-web', image: 'nginx:1.27', port: 8080, replicas: 1 });
    const v = await callTool(client, 'assistant_plan_validate', { plan });
    assert.not.ok(v.isError, textOf(v));
    assert.is(v.structuredContent.valid, true);
    assert.match(v.structuredContent.preview.steps[0].request, /kubectl --context kind-test -n default apply --server-side -f -/);
    assert.is(api.writes().length, 0, 'validation sent no change');

    const a = await callTool(client, 'assistant_plan_apply', { plan });
    assert.not.ok(a.isError, textOf(a));
    assert.is(a.structuredContent.status, 'succeeded');
    assert.equal(api.writes().map((w) => `${w.method} ${w.path}`), ['PATCH /apis/apps/v1/namespaces/default/deployments/agent-web', 'PATCH /api/v1/namespaces/default/services/agent-web']);

    const del = { version: 1, provider: 'k8s', commands: [{ args: ['k8s-api', 'kind-test', 'DELETE', '/apis/apps/v1/namespaces/default/deployments/agent-web'], reason: 'remove it' }] };
    const refused = await callTool(client, 'assistant_plan_apply', { plan: del });
    assert.is(refused.isError, true);
    assert.is(errorOf(refused).code, 'refused');
    assert.match(errorOf(refused).message, /deletes deployment agent-web in namespace default/);
    assert.is(api.writes().length, 2, 'the DELETE was not sent');
  } finally {
    await client.close();
    await server.stop();
    await api.close();
  }
});

test.run();
