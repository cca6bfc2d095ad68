import { isAbsolute, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ALL_RULES } from '../catalog/index.ts';
import type { Finding } from '../rules/index.ts';
import { TOOL } from '../meta.ts';
import { safeJson } from './printable.ts';
import type { FileResult } from '../library/index.ts';

const SPEC_BASE = 'https://docs.ag-ui.com';
const LEVEL: Record<Finding['severity'], string> = { error: 'error', warning: 'warning', info: 'note' };
/** The CLI's own result for a file it could not read; SARIF wants every result's rule in the driver, so it is declared there too. */
const UNREADABLE = { id: 'input/unreadable-file', shortDescription: { text: 'The file could not be read as an AG-UI capture' }, defaultConfiguration: { level: 'error' } };

/**
 * SARIF 2.1.0, so code-scanning dashboards show findings against the recording file. A pre-1.0 exchange's
 * 1.0-readiness items are results of level `note` with `properties.readiness: true`, their 1.0 severity
 * kept in `properties.severity`.
 */
export function sarif(results: FileResult[]): string {
  const rules = [
    ...ALL_RULES.map((r) => ({
      id: r.id,
      shortDescription: { text: r.title },
      helpUri: `${SPEC_BASE}/spec/1.0/${r.spec}`,
      defaultConfiguration: { level: LEVEL[r.severity] },
      properties: { category: r.category, fatal: r.fatal },
    })),
    UNREADABLE,
  ];
  const index = new Map(rules.map((r, i) => [r.id, i]));
  const out = [];
  for (const r of results) {
    if (r.error !== undefined) {
      out.push({ ruleId: UNREADABLE.id, ruleIndex: index.get(UNREADABLE.id), level: 'error', message: { text: r.error }, locations: [location(r.file, null)] });
      continue;
    }
    for (const x of r.reports) {
      for (const f of [...x.input.findings, ...x.findings]) {
        out.push({
          ruleId: f.rule,
          ruleIndex: index.get(f.rule),
          // A 1.0-readiness item is upgrade work, not a defect today: a note, whatever the rule's severity under 1.0.
          level: f.readiness ? 'note' : LEVEL[f.severity],
          message: { text: `${x.source}: ${f.readiness ? '1.0 readiness: ' : ''}${f.message}` },
          locations: [location(r.file, f)],
          properties: {
            exchange: x.source,
            event: f.event,
            path: f.path,
            spec: `${SPEC_BASE}${f.spec}`,
            severity: f.severity,
            era: x.era,
            verdict: x.verdict,
            ...(f.readiness ? { readiness: true, readinessVerdict: x.readiness?.verdict } : {}),
          },
        });
      }
    }
  }
  return safeJson({
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [{ tool: { driver: { name: TOOL.name, version: TOOL.version, rules } }, results: out }],
  });
}

function location(file: string, f: Finding | null) {
  const logical = f ? [{ fullyQualifiedName: `${f.event === null ? 'input' : `event[${f.event}]`}${f.path ?? ''}`, kind: 'object' }] : undefined;
  return { physicalLocation: { artifactLocation: { uri: uriOf(file) } }, ...(logical ? { logicalLocations: logical } : {}) };
}

/**
 * A file name as the URI reference SARIF requires (RFC 3986): an absolute path as a file: URI, a relative
 * one as a relative reference, each segment percent-encoded (`#`, `%`, `?`, spaces, `:`, controls...).
 */
function uriOf(file: string): string {
  if (isAbsolute(file)) return pathToFileURL(file).href;
  return file.split(sep === '/' ? '/' : /[\\/]/).map(encodeURIComponent).join('/');
}
