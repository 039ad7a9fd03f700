/** Box sessions (box/sessions.ts) on a test clock: idle expiry, busy sessions kept, the cap, bounded history. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SessionStore } from '../../box/sessions.js';
import type { Turn } from '../../box/agent.js';

function store(opts: { max?: number; idleMs?: number; maxTurns?: number } = {}) {
  let now = 1_000_000;
  const ended: string[] = [];
  const s = new SessionStore({ max: opts.max ?? 10, idleMs: opts.idleMs ?? 60_000, maxTurns: opts.maxTurns ?? 3, now: () => now, onEnd: (id) => ended.push(id) });
  return { s, ended, advance: (ms: number) => (now += ms) };
}
const turn = (role: Turn['role'], text: string): Turn => ({ role, text, at: '2026-01-01T00:00:00Z' });

test('an idle session expires after idleMs (and its agent state is released); a used one lives on', () => {
  const { s, ended, advance } = store();
  const a = s.create()!;
  const b = s.create()!;
  advance(59_000);
  s.touch(b);
  advance(2_000);
  assert.is(s.get(a.id), undefined, 'a expired');
  assert.ok(s.get(b.id), 'b was used 2 s ago');
  assert.equal(ended, [a.id]);
  s.close();
});

test('a busy session never expires, however long its answer takes', () => {
  const { s, advance } = store();
  const a = s.create()!;
  a.busy = true;
  advance(10 * 60_000);
  s.sweep();
  assert.ok(s.get(a.id));
  s.close();
});

test('the cap refuses a new session when full, and counts expired ones out first', () => {
  const { s, advance } = store({ max: 2 });
  const a = s.create()!;
  s.create();
  assert.is(s.create(), undefined);
  advance(30_000);
  s.touch(a);
  advance(31_000);
  assert.ok(s.create(), 'the idle one expired and made room');
  assert.is(s.size, 2);
  s.close();
});

test('history keeps the last maxTurns exchanges; ids are random UUIDs', () => {
  const { s } = store({ maxTurns: 2 });
  const a = s.create()!;
  for (const n of [1, 2, 3]) s.record(a, turn('user', `q${n}`), turn('assistant', `a${n}`));
  assert.equal(a.turns.map((t) => t.text), ['q2', 'a2', 'q3', 'a3']);
  assert.match(a.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.is.not(s.create()!.id, a.id);
  s.close();
});

test.run();
