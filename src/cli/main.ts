import { readFileSync } from 'node:fs';
import { FormatError } from '../formats/index.ts';
import { ALL_RULES } from '../catalog/index.ts';
import type { ProtocolVersion } from '../rules/index.ts';
import { checkFile, MAX_DOCUMENT_BYTES, ReadFailure, reason } from './files.ts';
import { junit } from './junit.ts';
import { pretty } from './pretty.ts';
import { printable, safeJson } from './printable.ts';
import { answerAlone, parseCommand, USAGE } from './usage.ts';
import { fileResult, toContract, type FileResult } from '../library/index.ts';
import { sarif } from './sarif.ts';

export const FORMATS = ['pretty', 'json', 'sarif', 'junit'] as const;
export type Format = (typeof FORMATS)[number];

class UsageError extends Error {}

export interface Io {
  out: (s: string) => void;
  err: (s: string) => void;
  colour: boolean;
  /** The largest HAR, fixture or JSON event file read whole (default MAX_DOCUMENT_BYTES); tests lower it. */
  maxDocumentBytes?: number;
}

/**
 * Runs the CLI; returns the exit status instead of exiting so tests can call it in-process. Whatever
 * fails, the status is 2 with one line on stderr: 1 means "a consumer must reject", never "we broke".
 */
export function run(argv: string[], io: Io): number {
  const say = (line: string) => io.err(`agui-inspector: ${printable(line)}\n`);
  try {
    return check(argv, io, say);
  } catch (e) {
    if (e instanceof UsageError || (e instanceof TypeError && 'code' in e)) {
      say(e.message);
      io.err(USAGE + '\n');
    } else {
      say(`internal error: ${errorName(e)}`);
    }
    return 2;
  }
}

function check(argv: string[], io: Io, say: (line: string) => void): number {
  const parsed = parseCommand(argv);
  const [command, ...files] = parsed.positionals;
  const answered = answerAlone(parsed, io.out);
  if (answered !== null) return answered;
  if (command === 'rules') {
    io.out(ALL_RULES.map((r) => `${r.id.padEnd(42)} ${r.category.padEnd(12)} ${r.severity.padEnd(7)} ${r.fatal ? 'fatal' : '     '} /spec/1.0/${r.spec}\n    ${r.title}`).join('\n') + '\n');
    return 0;
  }
  if (command !== 'check') throw new UsageError(`unknown command ${JSON.stringify(command)}`);
  if (files.length === 0) throw new UsageError('check needs at least one file');
  const format = parsed.values.format as Format;
  if (!FORMATS.includes(format)) throw new UsageError(`--format must be one of ${FORMATS.join(', ')}`);
  const as = parsed.values.as;
  if (as !== undefined && as !== '1.0' && as !== '1.1') throw new UsageError('--as must be 1.0 or 1.1');
  const stallMs = parsed.values['stall-ms'] === undefined ? undefined : Number(parsed.values['stall-ms']);
  if (stallMs !== undefined && !(Number.isFinite(stallMs) && stallMs > 0)) throw new UsageError('--stall-ms must be a positive number of milliseconds');
  let inputText: string | undefined;
  if (parsed.values.input !== undefined) {
    try {
      inputText = readFileSync(parsed.values.input, 'utf8');
    } catch (e) {
      say(`cannot read --input ${parsed.values.input}: ${reason(e)}`);
      return 2;
    }
  }
  const results = files.map((file): FileResult => {
    try {
      const onInputUnused = (why: string) => say(`${file}: --input not used: ${why}`);
      // junit and sarif print neither timing nor the summary built on it and on the tool checks: for them neither is read.
      const summary = format === 'json' || format === 'pretty';
      const checked = checkFile(file, { inputText, as: as as ProtocolVersion | undefined, stallMs, timing: summary, tools: summary, maxDocumentBytes: io.maxDocumentBytes ?? MAX_DOCUMENT_BYTES, onInputUnused });
      return fileResult(file, checked);
    } catch (e) {
      if (e instanceof ReadFailure) return { file, reports: [], error: `cannot read file: ${e.message}` };
      if (e instanceof FormatError) return { file, reports: [], error: e.message };
      // One file that breaks the analyzer must not hide the report on the others.
      return { file, reports: [], error: `internal error: ${errorName(e)}` };
    }
  });
  for (const r of results) if (r.error !== undefined) say(`${r.file}: ${r.error}`);
  const colour = io.colour && !parsed.values['no-color'];
  io.out(render(format, results, colour));
  if (results.some((r) => r.error !== undefined)) return 2;
  return results.some((r) => r.reports.some((x) => x.verdict === 'failed')) ? 1 : 0;
}

/** The report in one of `check`'s formats; `extra` joins the JSON's top level (probe's transport). */
export function render(format: Format, results: FileResult[], colour: boolean, extra: Record<string, unknown> = {}): string {
  return format === 'json' ? safeJson({ ...toContract(results), ...extra }) : format === 'sarif' ? sarif(results) : format === 'junit' ? junit(results) : pretty(results, colour);
}

const errorName = (e: unknown) => (e instanceof Error ? `${e.name}: ${e.message}` : String(e));
