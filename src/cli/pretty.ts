import type { ExchangeReport } from '../analyzer/types.ts';
import type { Finding } from '../rules/types.ts';
import { printable as p } from './printable.ts';
import type { FileResult } from './report.ts';

type Paint = (code: number, s: string) => string;

const colours: Paint = (code, s) => `\x1b[${code}m${s}\x1b[0m`;
const plain: Paint = (_code, s) => s;

/** Human-readable report; colour only when asked (a TTY without NO_COLOR). Every value from a file or the command line goes through `printable`. */
export function pretty(results: FileResult[], colour: boolean): string {
  const c = colour ? colours : plain;
  const out: string[] = [];
  let failed = 0;
  let total = 0;
  for (const r of results) {
    if (r.error !== undefined) {
      out.push(`${c(31, '✗')} ${p(r.file)}: ${p(r.error)}`);
      continue;
    }
    if (r.reports.length === 0) out.push(`${c(33, '-')} ${p(r.file)}: no AG-UI exchange found`);
    for (const x of r.reports) {
      total++;
      if (x.verdict === 'failed') failed++;
      out.push(...exchange(x, c));
    }
  }
  out.push('', `${total - failed} completed, ${failed} failed${results.some((r) => r.error) ? `, ${results.filter((r) => r.error).length} unreadable` : ''}`);
  return out.join('\n') + '\n';
}

function exchange(x: ExchangeReport, c: Paint): string[] {
  const ok = x.verdict === 'completed';
  const lines = [`${ok ? c(32, '✓') : c(31, '✗')} ${c(1, p(x.source))}  ${ok ? c(32, 'completed') : c(31, 'failed')}  (judged as a ${x.consumerVersion} consumer)`];
  lines.push(`  input        ${x.input.present ? `${x.input.verdict}, ${x.input.findings.length} finding${x.input.findings.length === 1 ? '' : 's'}` : 'not captured'}`);
  const n = x.negotiation;
  lines.push(`  negotiation  consumer ${n.consumer === null ? '(undeclared)' : p(n.consumer)} · producer ${n.producer === null ? '(undeclared)' : p(n.producer)} → ${n.verdict}`);
  lines.push(`  runs         ${x.runs.length ? x.runs.map((r) => `${r.runId === null ? '(no id)' : p(r.runId)}${r.requested ? ' (requested)' : ''}: ${r.outcome}`).join(', ') : '(none)'}`);
  for (const f of x.input.findings) lines.push(finding(f, 'input', c));
  for (const f of x.findings) lines.push(finding(f, 'stream', c));
  lines.push('');
  return lines;
}

const LEVEL: Record<Finding['severity'], [number, string]> = { error: [31, 'error  '], warning: [33, 'warning'], info: [36, 'info   '] };

/** `scope` names what a finding without an event index is about: the request, or the stream as a whole. */
function finding(f: Finding, scope: 'input' | 'stream', c: Paint): string {
  const [code, label] = LEVEL[f.severity];
  const where = [f.event !== null ? `#${f.event}` : scope, f.path ? p(f.path) : ''].filter(Boolean).join(' ');
  return `  ${c(code, label)} ${c(2, f.rule.padEnd(38))} ${where.padEnd(16)} ${p(f.message)}\n  ${' '.repeat(47)}${c(2, f.spec)}`;
}
