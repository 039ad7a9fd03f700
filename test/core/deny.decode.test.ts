/**
 * Parameters read the way the child reads them (issue 21, item 2): the gate's decoders against the
 * real ones. aws-cli's own ShorthandParser and Python's `int()` run in a child `python3` on the same
 * inputs: wherever the gate decodes a value, it decodes it to what aws-cli does; where it cannot, it
 * says so (the step is refused as invalid), never guesses. Skipped, visibly, without python3 or awscli.
 */
import { spawnSync } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeAwsParam, decodeJson, isZero, parseShorthand, pythonInt } from '../../engine/core/kits/cli/decode.js';

function python(script: string, input: unknown): unknown | undefined {
  const r = spawnSync('python3', ['-c', script], { input: JSON.stringify(input), encoding: 'utf8', timeout: 120_000 });
  if (r.status !== 0) return undefined;
  return JSON.parse(r.stdout);
}

const hasAwscli = spawnSync('python3', ['-c', 'import awscli.shorthand'], { stdio: 'ignore', timeout: 120_000 }).status === 0;

const SHORTHAND = [
  'desiredSize=0',
  'desiredSize=+0',
  'desiredSize= 0_0',
  'minSize=0,maxSize=2,desiredSize=1',
  'minSize=0, maxSize=2 , desiredSize=0',
  'Key=Name,Value=web-1',
  'ResourceType=instance,Tags=[{Key=Name,Value=web-1},{Key=env,Value=prod}]',
  'a=b,c',
  'a=b,c,d=e',
  "a='x,y',b=\"q\\\"r\"",
  'a=x\\,y',
  'Changes=[{Action=DELETE,ResourceRecordSet={Name=a,Type=A}}]',
  'a={b={c=[1,2,[3]]}}',
  'awsvpcConfiguration={subnets=[subnet-1,subnet-2],securityGroups=[sg-1],assignPublicIp=ENABLED}',
  'a=',
  'a=b=c',
  'a.b#c/d:e=f',
  'a=[ x , y ]',
];

test('aws shorthand: where the gate decodes a value it is exactly what aws-cli decodes', () => {
  if (!hasAwscli) return void console.log('SKIP aws shorthand differential: python3 with awscli not found (pip install awscli)');
  const theirs = python(
    'import json,sys\nfrom awscli.shorthand import ShorthandParser\nout=[]\nfor v in json.load(sys.stdin):\n  try: out.append({"value": ShorthandParser().parse(v)})\n  except Exception as e: out.append({"problem": type(e).__name__})\nprint(json.dumps(out))',
    SHORTHAND,
  ) as ({ value: unknown } | { problem: string })[];
  assert.ok(theirs, 'python ran');
  SHORTHAND.forEach((input, i) => {
    const ours = parseShorthand(input);
    const real = theirs[i]!;
    if ('value' in ours) {
      assert.ok('value' in real, `aws-cli refuses ${JSON.stringify(input)} but the gate decoded it`);
      assert.equal(ours.value, (real as { value: unknown }).value, input);
    } else assert.ok('problem' in real || input.includes('@'), `the gate refuses ${JSON.stringify(input)}, which aws-cli reads; fine only when it is not safe to read`);
  });
});

test('aws shorthand: what aws-cli would read from a file, and what the gate cannot read with certainty, is a problem', () => {
  for (const input of ['desiredSize@=file:///etc/passwd', 'a={b@=file://x}', 'desiredSize=٠', 'a=b,a=c', 'a=[1,2', "a='unterminated"]) {
    assert.ok('problem' in parseShorthand(input), input);
  }
});

test("pythonInt is Python's int() for ASCII text; other digit scripts are not decided (treated as zero by isZero)", () => {
  const inputs = ['0', '+0', '-0', ' 0 ', '0_0', '00', '1_000', '12', '-3', '0x10', '1__0', '_1', '1_', '', ' ', '1.0', '0.0', '1e3', '\t7\n'];
  const real = python('import json,sys\nout=[]\nfor v in json.load(sys.stdin):\n  try: out.append(int(v))\n  except Exception: out.append(None)\nprint(json.dumps(out))', inputs) as (number | null)[] | undefined;
  if (!real) return void console.log('SKIP pythonInt differential: python3 not found');
  inputs.forEach((input, i) => assert.equal(pythonInt(input) ?? null, real[i], JSON.stringify(input)));
  assert.is(pythonInt('٠'), 'non-ascii');
  for (const zero of ['0', '+0', '-0', ' 0', '0_0', '00', '0.0', '٠', 0, -0]) assert.ok(isZero(zero), JSON.stringify(zero));
  for (const nonzero of ['1', '10', 'x', '', 2]) assert.not.ok(isZero(nonzero), JSON.stringify(nonzero));
});

test('JSON parameters are decoded strictly: escapes are read, a repeated key, NaN or a syntax error is a problem', () => {
  assert.equal(decodeJson('{"Action": "\\u0044ELETE"}'), { value: { Action: 'DELETE' } });
  assert.equal(decodeAwsParam('  {"desired\\u0043ount": 0}'), { value: { desiredCount: 0 } });
  for (const bad of ['{"a":1,"a":2}', '{"a":NaN}', '{"a":Infinity}', '{"a":', '[1,]']) assert.ok('problem' in decodeJson(bad), bad);
  assert.equal(decodeAwsParam('plain text'), { value: 'plain text' });
});

test.run();
