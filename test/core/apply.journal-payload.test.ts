/**
 * The run journal redacts what a step received or produced (issue 40 item 2 cut its encoding to the
 * payload fields: a produced value, a create's response, a choice a create made, a name snapshot),
 * on the real file system: no registered secret and no secret-named field reaches the file, the run
 * keeps the real values it binds, and the file still reads back as the run it records.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RunJournal } from '../../engine/core/plan/journal.js';
import { registerSecret } from '../../engine/core/redact.js';

const SECRET = 'journal-secret-4b1d9e';

test('the journal masks a registered secret in every payload field and a secret-named field of a response, keeps the run its values, and reads back', () => {
  const dir = mkdtempSync(join(tmpdir(), 'journal-payload-'));
  try {
    registerSecret(SECRET);
    const journal = new RunJournal(dir, 'ab'.repeat(32), 2);
    const produced = { TOKEN_VALUE: SECRET };
    const response = { id: 'inst-1', hostname: `host-${SECRET}`, password: 'plain-root-password' };
    const choice = { location: SECRET };
    journal.begin();
    journal.started(0, [`old-${SECRET}`]);
    journal.created(0, response);
    journal.stepDone(0, produced, 201, choice);
    journal.stepDone(1, {}, 200);
    journal.finish();
    journal.close();

    const text = readFileSync(journal.path, 'utf8');
    assert.not.ok(text.includes(SECRET), `a registered secret is in the journal:\n${text}`);
    assert.not.ok(text.includes('plain-root-password'), `a secret-named field is in the journal:\n${text}`);
    const entries = text.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.equal(
      entries.map((e) => e.type),
      ['begin', 'started', 'created', 'done', 'done', 'finished'],
    );
    const byType = (type: string) => entries.find((e) => e.type === type)!;
    assert.equal(byType('started').snapshot, ['old-***']);
    assert.equal(byType('created').data, { id: 'inst-1', hostname: 'host-***', password: '***' });
    assert.equal(byType('done').alternative, { location: '***' });
    // What is ours stays as it was: the plan's hash, the step index, the HTTP status.
    assert.is(byType('begin').plan_hash, 'ab'.repeat(32));
    assert.is(byType('done').index, 0);
    assert.is(byType('done').http_status, 201);

    // The run's own objects are not masked in place: later steps bind the real value.
    assert.is(produced.TOKEN_VALUE, SECRET);
    assert.is(response.password, 'plain-root-password');
    assert.is(choice.location, SECRET);

    const state = journal.load()!;
    assert.ok(state.finished);
    assert.equal([...state.completed.keys()], [0, 1]);
    assert.equal(state.completed.get(0), { produced: { TOKEN_VALUE: '***' }, http_status: 201 });
    assert.is(state.inFlight, undefined);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
