/**
 * The serve kit's guard (engine/core/kits/serve/guard.ts) decides the Host names of each listen address
 * once and keeps them (issue 40 item 3): servers on several addresses in one process (the MCP server,
 * box, the backend; a test process starts dozens) must each still accept only their own.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkRequest, type GuardPolicy } from '../../engine/core/kits/serve/guard.js';

const verdict = (policy: GuardPolicy, host: string) => {
  const v = checkRequest({ host }, '/mcp', policy);
  return v.ok ? 'ok' : v.code;
};

test('each listen address keeps its own Host names, however many servers one process checks for', () => {
  // More addresses than the guard keeps at once, asked in turns, so that some are decided again after being forgotten.
  const policies: GuardPolicy[] = Array.from({ length: 150 }, (_, i) => ({ host: i % 3 ? '127.0.0.1' : '10.1.2.3', port: 40_000 + i }));
  for (let round = 0; round < 3; round++) {
    for (const [i, p] of policies.entries()) {
      const other = policies[(i + 1) % policies.length]!;
      assert.is(verdict(p, `${p.host}:${p.port}`), 'ok', `${p.host}:${p.port}`);
      assert.is(verdict(p, `${other.host}:${other.port}`), 'bad_host', `another server's Host at ${p.host}:${p.port}`);
      assert.is(verdict(p, `localhost:${p.port}`), p.host === '127.0.0.1' ? 'ok' : 'bad_host', `localhost at ${p.host}:${p.port}`);
      assert.is(verdict(p, `evil.example:${p.port}`), 'bad_host');
    }
  }
  // Every interface: no Host check at all.
  assert.is(verdict({ host: '0.0.0.0', port: 40_000 }, 'anything.example:1'), 'ok');
});

test.run();
