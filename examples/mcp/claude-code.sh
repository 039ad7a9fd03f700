#!/usr/bin/env sh
# Claude Code: register assistant as an MCP server (pick one).

# 1. stdio: Claude Code starts the server itself (credentials from ~/.assistant.yaml or the environment).
claude mcp add assistant -- assistant mcp --transport stdio

# 2. HTTP: a server you started yourself with `assistant mcp` (default http://127.0.0.1:39393/mcp).
# claude mcp add --transport http assistant http://127.0.0.1:39393/mcp

# 3. HTTP off loopback (another machine): the server needs a token, and so does the client.
#    On the server: ASSISTANT_MCP_AUTH_TOKEN=$(openssl rand -hex 32) assistant mcp --listen 0.0.0.0:39393
# claude mcp add --transport http assistant http://gpu-admin.internal:39393/mcp --header "Authorization: Bearer $ASSISTANT_MCP_AUTH_TOKEN"
