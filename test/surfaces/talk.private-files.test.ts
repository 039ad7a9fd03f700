/**
 * Files that can hold a secret are written 0600 (issue 36, "Masking gaps"): talk's `/plan save` (which
 * wrote 0644) and `/save`, also over a file that existed with a looser mode, and everything a talk
 * session leaves under ~/.assistant (the session, the run journal, the caches). What is typed is
 * masked before it is kept or sent: an AWS secret access key, in the forms people paste it.
 */
import { chmodSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readPlanDocument } from '../../engine/core/plan/document.js';
import { runCli, tempHome, withEmulator } from '../support/cli.js';
import { openAiServerFor } from '../support/openai-server.js';
import { talkConfig } from '../support/talk.js';

const AWS_SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq81ivGh3Q';
const HF = 'hf_a1b2c3d4e5f6g7h8i9j0k1l2m3';
const srv = openAiServerFor(test);

/** Every file under `dir` with its mode. */
function modes(dir: string): [string, number][] {
  const out: [string, number][] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push([`${p}/`, statSync(p).mode & 0o777], ...modes(p));
    else if (e.isFile()) out.push([p, statSync(p).mode & 0o777]);
  }
  return out;
}

test('/plan save and /save write 0600, also over a file that was 0644; the saved plan is the plan, its secret included', async () => {
  await withEmulator(async ({ env }) => {
    const h = tempHome('assistant-talk-files-');
    const script = `#!/bin/sh\nexport HF_TOKEN=${HF}\n`;
    const plan = {
      version: 1,
      provider: 'gpucloud',
      commands: [{ args: ['gpucloud-api', 'POST', '/v1/scripts', JSON.stringify({ name: 'with-token', script })], reason: 'a startup script holding a token' }],
    };
    writeFileSync(join(h, 'in.json'), JSON.stringify(plan));
    for (const f of ['saved.json', 'transcript.txt']) {
      writeFileSync(join(h, f), 'old\n');
      chmodSync(join(h, f), 0o644);
    }
    const input = '/plan load in.json\n/plan save saved.json\n/plan save fresh.json\n/apply\n/save transcript.txt\n';
    const r = await runCli(['--config', talkConfig(), '--yes', 'talk', '--ai-profile', 'builtin'], { home: h, env, input });
    assert.is(r.code, 0, r.stderr);
    for (const f of ['saved.json', 'fresh.json', 'transcript.txt']) assert.is(statSync(join(h, f)).mode & 0o777, 0o600, f);
    // Read as every plan reader reads it (a body written as an object is its JSON text).
    assert.equal(readPlanDocument(JSON.parse(readFileSync(join(h, 'saved.json'), 'utf8')), { strict: true }).plan, plan, 'the plan as it is: a masked plan would be another plan');
    assert.not.ok((r.stdout + r.stderr).includes(HF), 'shown nowhere');
    assert.not.ok(readFileSync(join(h, 'transcript.txt'), 'utf8').includes(HF));
    // Everything the session left under ~/.assistant: the session, the run journal, the token cache…
    const kept = modes(join(h, '.assistant'));
    assert.ok(kept.some(([p]) => p.includes('/talk/')) && kept.length > 3, JSON.stringify(kept));
    for (const [path, mode] of kept) assert.is(mode, path.endsWith('/') ? 0o700 : 0o600, `${path} is ${mode.toString(8)}`);
  });
});

test('an AWS secret access key typed into talk is masked before it is sent to the model, shown or kept, in every form it is pasted', async () => {
  await withEmulator(async ({ env }) => {
    const h = tempHome('assistant-talk-files-');
    const lines = [
      `my aws secret is ${AWS_SECRET}, what is my balance?`,
      `aws_secret_access_key = ${AWS_SECRET}`,
      `aws configure set aws_secret_access_key ${AWS_SECRET}`,
      `"SecretAccessKey": "${AWS_SECRET}"`,
      `AKIAIOSFODNN7EXAMPLE ${AWS_SECRET}`,
    ];
    srv.setDefault({ text: 'Noted.' });
    const r = await runCli(['--config', talkConfig(srv.baseURL), 'talk', '--provider', 'gpucloud'], { home: h, env: { ...env, TEST_AI_KEY: 'sk-private-files-key-77aa' }, input: lines.join('\n') + '\n' });
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stderr, /a secret-looking value in what you typed was replaced by \*\*\*/);
    const dir = join(h, '.assistant', 'talk');
    const file = readFileSync(join(dir, readdirSync(dir)[0]!), 'utf8');
    const users = file
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((e) => e.t === 'turn')
      .map((t) => t.user);
    assert.is(users.length, lines.length, file);
    for (const u of users) assert.ok(u.includes('***'), u);
    assert.not.ok(file.includes(AWS_SECRET) || file.includes('AKIAIOSFODNN7EXAMPLE'), file);
    assert.not.ok((r.stdout + r.stderr).includes(AWS_SECRET), 'never shown');
    assert.is(srv.chatRequests().length, lines.length);
    assert.not.ok(JSON.stringify(srv.chatRequests().map((q) => q.body)).includes(AWS_SECRET), 'never sent to the model');
  });
});

test.run();
