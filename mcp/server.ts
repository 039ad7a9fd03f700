/**
 * One MCP server instance (per HTTP session, or the single stdio one): the tools over a shared backend.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { assistantVersion } from '../engine/core/version.js';
import { registerTools, type McpBackend } from './tools.js';

const INSTRUCTIONS = `Tools for a gpucloud account (GPU instances, Instant Clusters, volumes, serverless containers and jobs).
Read with assistant_gpucloud_list and assistant_gpucloud_get. Change things only through plan documents: check a plan with assistant_plan_validate (problems, cost preview), then run it with assistant_plan_apply. Destructive plans are refused unless the server was started with --destroyer.`;

const READ_ONLY_INSTRUCTIONS = `Read-only tools for a gpucloud account (GPU instances, Instant Clusters, volumes, serverless containers and jobs).
Read with assistant_gpucloud_list and assistant_gpucloud_get; check a plan with assistant_plan_validate (problems, cost preview). This server was started with --read-only: nothing can be created, changed or deleted through it.`;

export function createMcpServer(backend: McpBackend): McpServer {
  const instructions = backend.readOnly ? READ_ONLY_INSTRUCTIONS : INSTRUCTIONS;
  const server = new McpServer({ name: 'assistant', version: assistantVersion() }, { capabilities: { tools: {}, logging: {} }, instructions });
  registerTools(server, backend);
  return server;
}
