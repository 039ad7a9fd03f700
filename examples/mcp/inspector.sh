#!/usr/bin/env sh
# MCP Inspector from the command line against a running `assistant mcp` (start it first:
# `assistant --sandbox mcp --read-only` to try it against the local emulator; a server that can apply
# plans wants its bearer token, which these calls do not send).
URL=http://127.0.0.1:39393/mcp

npx @modelcontextprotocol/inspector --cli "$URL" --transport http --method tools/list
npx @modelcontextprotocol/inspector --cli "$URL" --transport http --method tools/call \
  --tool-name assistant_gpucloud_list --tool-arg resource=instances
npx @modelcontextprotocol/inspector --cli "$URL" --transport http --method tools/call \
  --tool-name assistant_route_question --tool-arg 'question=what does an 8H100.80S.176V cost per hour?'

# Or let the Inspector start the server over stdio. The Inspector keeps `--transport` for itself,
# so the server is told with `--stdio` (the same as `--transport stdio`):
# npx @modelcontextprotocol/inspector --cli assistant --sandbox mcp --stdio --method tools/list
