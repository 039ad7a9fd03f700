/**
 * Short answers about cloud_a without a model (the built-in provider): per service read of the
 * context plan, the count, the states and the names, from the catalogue's records (reads.ts).
 */
import { containsTerm } from '../routing/match.js';
import { awsReadOf, type AwsRecord } from './reads.js';

const MAX_NAMES = 20;

/** Names and tags are the user's text: control characters (a terminal escape in a Name tag) never reach the terminal. */
const printable = (s: string) => s.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');

function line(r: AwsRecord): string {
  const extra = [r.detail, r.state].filter(Boolean).join(', ');
  return printable(`- ${r.name}${extra ? ` (${extra})` : ''}`);
}

/** One paragraph per aws step result; steps the catalogue does not know are left out. */
export function answerAwsResults(question: string, results: readonly { args: readonly string[]; data: unknown }[]): string[] {
  const parts: string[] = [];
  for (const r of results) {
    const spec = awsReadOf(r.args);
    if (!spec) continue;
    const records = spec.records(r.data);
    if (!records.length) {
      parts.push(`You have no ${spec.label}.`);
      continue;
    }
    // "which instances are running": only those in the state the question names.
    const states = [...new Set(records.map((x) => x.state).filter((s): s is string => Boolean(s)))];
    const asked = states.find((s) => containsTerm(question, s));
    const shown = asked ? records.filter((x) => x.state === asked) : records;
    const head = `${shown.length} ${shown.length === 1 ? spec.singular : spec.label}${asked ? ` ${asked}` : ''}`;
    if (/\bhow many\b/i.test(question)) {
      parts.push(`${head}.`);
      continue;
    }
    const body = shown.slice(0, MAX_NAMES).map(line);
    if (shown.length > MAX_NAMES) body.push(`- … and ${shown.length - MAX_NAMES} more`);
    parts.push([`${head}:`, ...body].join('\n'));
  }
  return parts;
}
