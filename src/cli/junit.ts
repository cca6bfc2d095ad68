import type { Finding } from '../rules/index.ts';
import { printable } from './printable.ts';
import type { FileResult } from '../library/index.ts';

/**
 * An XML attribute or text value. `printable` leaves only characters XML 1.0 allows (§2.2, production [2]
 * Char: no C0 control, no U+FFFE/U+FFFF, no lone surrogate), so escaping the markup characters makes it well formed.
 */
const esc = (s: string) => printable(s).replace(/[<>&"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/** One finding (or heading) a line: each is escaped alone, so the newlines between them stay newlines. */
function lines(items: (Finding | string)[]): string {
  return items.map((f) => esc(typeof f === 'string' ? f : `${f.severity} ${f.rule} ${f.event === null ? 'input' : `#${f.event}`}${f.path ?? ''}: ${f.message} (${f.spec})`)).join('\n');
}

/**
 * JUnit XML: one suite per file, one test case per exchange, failed when the exchange's verdict is. Each case's
 * properties give its era and, for a pre-1.0 exchange, the verdict a 1.0 consumer would reach.
 */
export function junit(results: FileResult[]): string {
  const suites = results.map((r) => {
    if (r.error !== undefined) {
      return `  <testsuite name="${esc(r.file)}" tests="1" failures="0" errors="1">\n    <testcase name="${esc(r.file)}" classname="agui-inspector"><error message="${esc(r.error)}"/></testcase>\n  </testsuite>`;
    }
    const failures = r.reports.filter((x) => x.verdict === 'failed').length;
    const cases = r.reports.map((x) => {
      const all = [...x.input.findings, ...x.findings];
      const today = all.filter((f) => !f.readiness);
      const body = x.verdict === 'failed' ? `<failure message="${esc(today.find((f) => f.severity === 'error')?.message ?? 'failed')}">${lines(today)}</failure>` : '';
      // Readiness items never fail the test case: they go to its output, under their own heading, after the present-day findings.
      const out = [
        ...(x.verdict === 'failed' ? [] : today),
        ...(x.readiness ? [`1.0 readiness: a 1.0 consumer would find this exchange ${x.readiness.verdict}`, ...all.filter((f) => f.readiness)] : []),
      ];
      const properties = [['era', x.era], ...(x.readiness ? [['readiness', x.readiness.verdict]] : [])].map(([k, v]) => `<property name="${k}" value="${v}"/>`).join('');
      return `    <testcase name="${esc(x.source)}" classname="${esc(r.file)}"><properties>${properties}</properties>${body}${out.length ? `<system-out>${lines(out)}</system-out>` : ''}</testcase>`;
    });
    return `  <testsuite name="${esc(r.file)}" tests="${r.reports.length}" failures="${failures}" errors="0">\n${cases.join('\n')}\n  </testsuite>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="agui-inspector">\n${suites.join('\n')}\n</testsuites>\n`;
}
