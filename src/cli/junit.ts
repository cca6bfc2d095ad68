import type { FileResult } from './report.ts';

const esc = (s: string) => s.replace(/[<>&"']/g, (ch) => `&#${ch.charCodeAt(0)};`).replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '');

/** JUnit XML: one suite per file, one test case per exchange, failed when the exchange's verdict is. */
export function junit(results: FileResult[]): string {
  const suites = results.map((r) => {
    if (r.error !== undefined) {
      return `  <testsuite name="${esc(r.file)}" tests="1" failures="0" errors="1">\n    <testcase name="${esc(r.file)}" classname="agui-inspector"><error message="${esc(r.error)}"/></testcase>\n  </testsuite>`;
    }
    const failures = r.reports.filter((x) => x.verdict === 'failed').length;
    const cases = r.reports.map((x) => {
      const all = [...x.input.findings, ...x.findings];
      const text = all.map((f) => `${f.severity} ${f.rule} ${f.event === null ? 'input' : `#${f.event}`}${f.path ?? ''}: ${f.message} (${f.spec})`).join('\n');
      const body =
        x.verdict === 'failed'
          ? `<failure message="${esc(all.find((f) => f.severity === 'error')?.message ?? 'failed')}">${esc(text)}</failure>`
          : text
            ? `<system-out>${esc(text)}</system-out>`
            : '';
      return `    <testcase name="${esc(x.source)}" classname="${esc(r.file)}">${body}</testcase>`;
    });
    return `  <testsuite name="${esc(r.file)}" tests="${r.reports.length}" failures="${failures}" errors="0">\n${cases.join('\n')}\n  </testsuite>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="agui-inspector">\n${suites.join('\n')}\n</testsuites>\n`;
}
