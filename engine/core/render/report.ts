import type { RunReport } from '../../../schemas/run-report.js';
import { colorStatus, PLAIN, type Colors } from './color.js';

/** A run report as text: one line per step with its mark, the bindings, and what a failure left changed. Colour only when `c` has it. */
export function renderReport(report: RunReport, c: Colors = PLAIN): string {
  const done = report.steps.filter((s) => s.status === 'succeeded').length;
  const lines = [`${colorStatus(c, report.status)}: ${done}/${report.steps.length} step(s) completed`];
  for (const s of report.steps) {
    const mark = s.status === 'succeeded' ? c.green('ok') + '  ' : s.status === 'failed' ? c.red('FAIL') : '--  ';
    lines.push(`  ${mark} ${s.index}: ${s.request}  ${s.reason}${s.error ? `  (${s.error.code}: ${s.error.message})` : ''}`);
    if (s.alternative) lines.push(`        ${alternativeLine(s.alternative)}`);
  }
  const bindings = Object.entries(report.bindings);
  if (bindings.length) lines.push('bindings:', ...bindings.map(([k, v]) => `  ${k}=${v}`));
  if (report.status !== 'succeeded') {
    const failed = report.steps.find((s) => s.status === 'failed' && s.changed);
    const partly = !failed
      ? ''
      : failed.changed === 'unknown'
        ? `step ${failed.index}'s ${failed.sent ?? 'request'} was sent; its outcome is unknown (--resume will find it instead of sending it again)`
        : `step ${failed.index} changed something before it failed${failed.created ? ` (created ${failed.created})` : ''}`;
    const stopped = report.status === 'cancelled' ? 'the interruption' : 'the failure';
    if (done) lines.push(`already changed: steps 0..${done - 1} completed before ${stopped}${partly ? `, and ${partly}` : ''}`);
    else lines.push(partly ? `already changed: ${partly}` : `nothing was changed before ${stopped}`);
  }
  return lines.join('\n') + '\n';
}

type Alternative = NonNullable<RunReport['steps'][number]['alternative']>;

/** `used alternative 2 (1H100.80S.22V in FIN-03); passed over: the step as written (… in FIN-01) is not available, …` */
export function alternativeLine(a: Alternative): string {
  const what = (v: Alternative['values']) => `${String(v.instance_type ?? '?')} in ${String(v.location_code ?? '?')}${v.is_spot === true ? ' (spot)' : ''}`;
  const name = (i: number) => (i === 0 ? 'the step as written' : `alternative ${i}`);
  const passed = a.tried.map((t) => `${name(t.index)} (${what(t.values)}) ${t.outcome}`).join('; ');
  return `used ${name(a.index)}: ${what(a.values)}${passed ? `; passed over: ${passed}` : ''}`;
}

/** The `error: <code>: <message>` and `hint:` lines of a report that did not succeed ('' otherwise). */
export function renderReportError(report: RunReport): string {
  const e = report.error;
  return e ? `error: ${e.code}: ${e.message}\n${e.hint ? `hint: ${e.hint}\n` : ''}` : '';
}
