/**
 * The architecture, enforced: the browser-free core uses neither browser nor Node APIs, and data flows
 * one way — page → capture → background → panel, and file → core → CLI/panel — so no folder imports
 * from one downstream of it.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { ROOT } from './support/paths.ts';

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    if (statSync(p).isDirectory()) return f === 'generated' ? [] : files(p);
    return /\.tsx?$/.test(f) && !f.endsWith('.d.ts') ? [p] : [];
  });
}

const rel = (p: string) => relative(ROOT, p).replace(/\\/g, '/');
const source = (p: string) => readFileSync(p, 'utf8');
/** Import specifiers, static and dynamic. */
const imports = (text: string) => [...text.matchAll(/(?:from\s+|import\s*\(\s*)['"]([^'"]+)['"]/g)].map((m) => m[1]!);
/** Code without comments and string contents, so a word in prose or a message is not a use. */
const code = (text: string) =>
  text
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/\/\/.*$/gm, '')
    .replace(/(['"`])(?:\\.|(?!\1)[^\\])*\1/g, '""');

/** The core: what the worker, the panel and the CLI all run unchanged. */
const CORE = ['src/wire', 'src/schema', 'src/exchange', 'src/answer', 'src/analyzer', 'src/detail', 'src/rules', 'src/catalog', 'src/formats', 'src/recording', 'src/library', 'src/json.ts', 'src/bytes.ts', 'src/base64.ts', 'src/meta.ts'];
const coreFiles = CORE.flatMap((c) => (c.endsWith('.ts') ? [join(ROOT, c)] : files(join(ROOT, c))));

describe('architecture boundaries', () => {
  it('the core imports no Node module, no extension API and nothing outside the core and its npm dependencies', () => {
    const bad: string[] = [];
    for (const f of coreFiles) {
      for (const spec of imports(source(f))) {
        const local = spec.startsWith('.');
        const target = local ? rel(join(f, '..', spec)) : spec;
        // package.json is data: the tool's name and version for reports.
        const allowed = local
          ? target === 'package.json' || CORE.some((c) => target === c || target.startsWith(c + '/'))
          : spec.startsWith('@ag-ui/') || spec === 'ajv' || spec.startsWith('ajv/');
        if (!allowed || spec.startsWith('node:')) bad.push(`${rel(f)} imports ${spec}`);
      }
    }
    assert.deepEqual(bad, []);
    assert.ok(coreFiles.length > 30);
  });

  it('the core touches no browser or Node global', () => {
    const GLOBALS = /\b(window|document|chrome|browser|navigator|localStorage|indexedDB|process|Buffer|require|__dirname)\s*[.[(]/;
    const bad = coreFiles.filter((f) => GLOBALS.test(code(source(f)))).map(rel);
    assert.deepEqual(bad, []);
  });

  it('data flows one way: no folder imports from one downstream of it', () => {
    // Each folder and what it must never import: everything that consumes it.
    const downstream: Record<string, string[]> = {
      'src/capture': ['background', 'panel', 'src/analyzer', 'src/recording', 'src/cli'],
      'background': ['panel', 'src/cli'],
      'src/cli': ['background', 'panel', 'src/capture'],
      'src/wire': ['src/exchange', 'src/answer', 'src/analyzer', 'src/formats', 'src/recording', 'src/cli'],
      'src/schema': ['src/exchange', 'src/answer', 'src/analyzer', 'src/formats', 'src/recording', 'src/cli'],
      'src/exchange': ['src/answer', 'src/analyzer', 'src/formats', 'src/recording', 'src/detail', 'src/cli'],
      'src/formats': ['src/analyzer', 'src/recording', 'src/detail', 'src/cli'],
      // The page script answers with it, so it sits below everything the page may not import.
      'src/answer': ['src/analyzer', 'src/formats', 'src/recording', 'src/detail', 'src/library', 'src/cli'],
    };
    const bad: string[] = [];
    for (const [folder, banned] of Object.entries(downstream)) {
      for (const f of files(join(ROOT, folder))) {
        for (const spec of imports(source(f)).filter((s) => s.startsWith('.'))) {
          const target = rel(join(f, '..', spec));
          if (banned.some((b) => target === b || target.startsWith(b + '/'))) bad.push(`${rel(f)} imports ${target}`);
        }
      }
    }
    assert.deepEqual(bad, []);
  });

  it('the layers stack: each folder of src/ (and each file beside them), background and panel imports only layers below it', () => {
    // Lowest first; a layer may use any layer before it and none after it, so no two folders import each
    // other and nothing can close a circle. A new folder or top-level file must be given its place here.
    const LAYERS: string[][] = [
      ['src/json.ts', 'src/bytes.ts', 'src/base64.ts', 'src/meta.ts', 'src/scheduler.ts'],
      ['src/rules'],
      ['src/wire'],
      ['src/schema'],
      // The captured exchange, AG-UI detection and the report shape: below both the analyzer and the formats.
      ['src/exchange'],
      // What the Inspector answers as the agent: below the analyzer and the recording, so the page script can answer with it.
      ['src/answer'],
      ['src/analyzer'],
      // Readers and writers of files: they return exchanges and leave analysis to their callers.
      ['src/formats'],
      ['src/detail', 'src/catalog'],
      ['src/recording'],
      // What `import … from 'agui-inspector'` gives: the commands' logic, which the CLI only parses for and prints.
      ['src/library'],
      ['src/messages.ts'],
      ['src/capture', 'src/cli'],
      ['background'],
      ['panel'],
    ];
    const layerOf = (p: string) => LAYERS.findIndex((l) => l.some((u) => p === u || p.startsWith(u + '/')));
    const sources = ['src', 'background', 'panel'].flatMap((d) => files(join(ROOT, d))).map(rel);
    assert.deepEqual(sources.filter((f) => layerOf(f) < 0), [], 'every source file belongs to a declared layer');
    const bad: string[] = [];
    for (const from of sources) {
      for (const spec of imports(source(join(ROOT, from))).filter((s) => s.startsWith('.'))) {
        const target = rel(join(ROOT, from, '..', spec));
        if (target === 'package.json') continue;
        const [a, b] = [layerOf(from), layerOf(target)];
        const unit = (p: string) => LAYERS[layerOf(p)]!.find((u) => p === u || p.startsWith(u + '/'));
        if (unit(from) !== unit(target) && !(b >= 0 && b < a)) bad.push(`${from} imports ${target}`);
      }
    }
    assert.deepEqual(bad, []);
  });

  it('no module imports one that imports it back, however long the circle (within a folder too)', () => {
    const sources = ['src', 'background', 'panel'].flatMap((d) => files(join(ROOT, d))).map(rel);
    const edges = new Map(sources.map((f) => [f, imports(source(join(ROOT, f))).filter((s) => s.startsWith('.')).map((s) => rel(join(ROOT, f, '..', s)))]));
    // Depth-first search; a module met again while still on the path closes a circle.
    const done = new Set<string>();
    const circles: string[] = [];
    const visit = (f: string, path: string[]) => {
      if (path.includes(f)) return void circles.push([...path.slice(path.indexOf(f)), f].join(' → '));
      if (done.has(f)) return;
      for (const t of edges.get(f) ?? []) visit(t, [...path, f]);
      done.add(f);
    };
    for (const f of sources) visit(f, []);
    assert.deepEqual(circles, []);
  });

  it('the panel only shows: it imports no analyzer or schema module, reading every analysis from the detail its source sends', () => {
    // The import worker's code lives in panel/ too; it analyses through src/detail, as the background worker does.
    const bad: string[] = [];
    for (const f of files(join(ROOT, 'panel'))) {
      for (const spec of imports(source(f)).filter((s) => s.startsWith('.'))) {
        const target = rel(join(f, '..', spec));
        if (target.startsWith('src/analyzer/') || target.startsWith('src/schema/')) bad.push(`${rel(f)} imports ${target}`);
      }
    }
    assert.deepEqual(bad, []);
  });

  it("each core folder's public surface is its index.ts: code outside the folder imports nothing else of it", () => {
    const folders = CORE.filter((c) => !c.endsWith('.ts'));
    const missing = folders.filter((c) => !files(join(ROOT, c)).some((f) => rel(f) === `${c}/index.ts`));
    assert.deepEqual(missing, []);
    const bad: string[] = [];
    // Tests may reach inside a folder to test its parts; the product may not.
    for (const f of ['src', 'background', 'panel'].flatMap((d) => files(join(ROOT, d)))) {
      const from = rel(f);
      for (const spec of imports(source(f)).filter((s) => s.startsWith('.'))) {
        const target = rel(join(f, '..', spec));
        const folder = folders.find((c) => target.startsWith(c + '/'));
        if (folder && !from.startsWith(folder + '/') && target !== `${folder}/index.ts`) bad.push(`${from} imports ${target}`);
      }
    }
    assert.deepEqual(bad, []);
  });
});
