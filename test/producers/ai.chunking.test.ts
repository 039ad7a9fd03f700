/**
 * Chunking of large contexts (sizes, counts, record boundaries, multi-byte characters) and
 * summarisation through a real local OpenAI-compatible server.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chunkRecords, planChunks, recordsFromResults, selectEvenly, splitOversized } from '../../engine/producers/ai/chunking.js';
import { summariseContext } from '../../engine/producers/ai/summarise.js';
import { resolveAiProvider } from '../../engine/producers/ai/resolve.js';
import { openAiServerFor } from '../support/openai-server.js';

const srv = openAiServerFor(test);

const SAMPLES = ['GPU 🚀 node', 'Größe ✓', '東京リージョン', 'emoji 👩‍💻 team', 'plain ascii text', '𝔘𝔫𝔦𝔠𝔬𝔡𝔢 math'];

/** ~4 MB of records mixing ASCII, accents, CJK and astral-plane characters (surrogate pairs). */
function bigRecords(count: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const s = SAMPLES[i % SAMPLES.length]!;
    out.push(`instances: {"id":"${i.toString(16).padStart(8, '0')}","hostname":"${s} ${i}","pad":"${'x'.repeat(40 + (i % 60))}"}`);
  }
  return out;
}

function brokenSurrogates(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const n = text.charCodeAt(i + 1);
      if (!(n >= 0xdc00 && n <= 0xdfff)) return true;
      i++;
    } else if (c >= 0xdc00 && c <= 0xdfff) return true;
  }
  return false;
}

test('several MB of multi-byte records: chunks stay within chunk_chars, on record boundaries, greedily full', () => {
  const records = bigRecords(40_000);
  const joined = records.join('\n');
  assert.ok(Buffer.byteLength(joined, 'utf8') > 4_000_000, `context is ${Buffer.byteLength(joined)} bytes`);
  const chunkChars = 120_000;
  const chunks = chunkRecords(records, chunkChars);
  const minimum = Math.ceil(joined.length / chunkChars);
  assert.ok(chunks.length >= minimum && chunks.length <= minimum + 2, `${chunks.length} chunks for ${joined.length} chars (minimum ${minimum})`);
  chunks.forEach((c, i) => {
    assert.ok(c.text.length <= chunkChars, `chunk ${i} has ${c.text.length} chars`);
    assert.is(c.index, i);
    assert.is(c.text, records.slice(c.firstRecord, c.lastRecord + 1).join('\n'), `chunk ${i} is whole records`);
    if (i < chunks.length - 1) {
      const next = records[c.lastRecord + 1]!;
      assert.ok(c.text.length + 1 + next.length > chunkChars, `chunk ${i} could have taken the next record`);
      assert.is(chunks[i + 1]!.firstRecord, c.lastRecord + 1);
    }
    assert.not.ok(brokenSurrogates(c.text), `chunk ${i} breaks a surrogate pair`);
  });
  assert.is(chunks.map((c) => c.text).join('\n'), joined, 'nothing lost or duplicated');
});

test('a record larger than a chunk is split without breaking a UTF-8 character or surrogate pair', () => {
  // Odd chunk sizes against 2-unit emoji force cuts that would land inside a pair.
  const huge = '🚀'.repeat(50_001) + 'é'.repeat(3) + '東'.repeat(10_000);
  for (const size of [7, 999, 1_001, 65_535]) {
    const pieces = splitOversized(huge, size);
    assert.is(pieces.join(''), huge, `size ${size}: pieces rebuild the record`);
    for (const p of pieces) {
      assert.ok(p.length <= size && p.length > 0, `size ${size}: piece of ${p.length}`);
      assert.not.ok(brokenSurrogates(p), `size ${size}: broken surrogate`);
      assert.is(Buffer.from(p, 'utf8').toString('utf8'), p, 'round-trips through UTF-8');
    }
  }
  const records = ['small before', huge, 'small after'];
  const chunks = chunkRecords(records, 65_535);
  assert.is(chunks[0]!.text, 'small before');
  assert.is(chunks.at(-1)!.text, 'small after');
  assert.is(chunks.slice(1, -1).map((c) => c.text).join(''), huge);
  assert.ok(chunks.slice(1, -1).every((c) => c.firstRecord === 1 && c.lastRecord === 1));
});

test('oversized records are cut at a newline or space near the end when there is one', () => {
  const text = Array.from({ length: 200 }, (_, i) => `line ${i} of a long log`).join('\n');
  const pieces = splitOversized(text, 500);
  assert.is(pieces.join(''), text);
  assert.ok(pieces.slice(0, -1).every((p) => /[\n ]$/.test(p)), 'cuts land after whitespace');
});

test('over max_chunks: the first, the last and evenly spaced chunks are kept; the rest is reported', () => {
  assert.equal(selectEvenly(35, 6), [0, 7, 14, 20, 27, 34]);
  assert.equal(selectEvenly(4, 6), [0, 1, 2, 3]);
  assert.equal(selectEvenly(10, 2), [0, 9]);
  const records = bigRecords(40_000);
  const plan = planChunks(records, { chunkChars: 120_000, maxChunks: 6 });
  assert.is(plan.kept.length, 6);
  assert.is(plan.kept[0]!.index, 0);
  assert.is(plan.kept.at(-1)!.index, plan.total - 1);
  assert.is(plan.dropped.length, plan.total - 6);
  assert.ok(plan.droppedRecords > 20_000, `${plan.droppedRecords} records dropped`);
  assert.ok(plan.droppedChars > 2_000_000);
  const gaps = plan.kept.slice(1).map((c, i) => c.index - plan.kept[i]!.index);
  assert.ok(Math.max(...gaps) - Math.min(...gaps) <= 1, `even spacing: ${gaps.join(',')}`);
});

test('recordsFromResults makes one record per resource, prefixed by its kind', () => {
  const records = recordsFromResults([
    { kind: 'instances', data: [{ id: 'a' }, { id: 'b' }] },
    { kind: 'volumes', data: [] },
    { kind: 'balance', data: { amount: 1, currency: 'usd' } },
  ]);
  assert.equal(records, ['instances: {"id":"a"}', 'instances: {"id":"b"}', 'volumes: (none)', 'balance: {"amount":1,"currency":"usd"}']);
});

function testProvider() {
  return resolveAiProvider({ aiConfig: { providers: { openai: { base_url: srv.baseURL, api_key: 'sk-summary-test' } } }, env: {}, policy: { timeoutMs: 10_000 } });
}

test('a context under max_prompt_chars is passed through and the provider is not called', async () => {
  const res = await summariseContext({ provider: testProvider(), question: 'q', records: ['a', 'b'], ai: { max_prompt_chars: 100 } });
  assert.is(res.summarised, false);
  assert.is(res.context, 'a\nb');
  assert.is(srv.chatRequests().length, 0);
});

test('over max_prompt_chars: each kept chunk is summarised by the provider and the summaries are merged in order', async () => {
  let n = 0;
  srv.setDefault(() => ({ text: `summary ${++n}` }));
  const records = bigRecords(6_000); // ~650k characters
  const progress: number[] = [];
  const res = await summariseContext({
    provider: testProvider(),
    question: 'which instances are idle?',
    records,
    ai: { max_prompt_chars: 100_000, chunk_chars: 50_000, max_chunks: 3 },
    onProgress: (e) => progress.push(e.chunkIndex),
  });
  assert.ok(res.summarised);
  const reqs = srv.chatRequests();
  assert.is(reqs.length, 3);
  assert.equal(progress, res.keptChunks);
  assert.is(res.keptChunks[0], 0);
  assert.is(res.keptChunks[2], res.totalChunks - 1);
  assert.is(res.droppedChunks.length, res.totalChunks - 3);
  for (const r of reqs) {
    const content: string = r.body.messages.at(-1).content;
    assert.match(content, /which instances are idle\?/);
    assert.ok(content.length <= 50_000 + 300, `prompt of ${content.length} chars`);
    assert.is(r.body.temperature, 0);
  }
  assert.ok(res.context.indexOf('summary 1') < res.context.indexOf('summary 2'));
  assert.ok(res.context.indexOf('summary 2') < res.context.indexOf('summary 3'));
  assert.match(res.context, /were not summarised because ai\.max_chunks is 3/);
  assert.match(res.notes.join('\n'), new RegExp(`split into ${res.totalChunks} parts`));
});

test.run();
