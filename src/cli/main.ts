import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { FormatError } from '../formats/read.ts';
import { TOOL } from '../meta.ts';
import { ALL_RULES } from '../rules/index.ts';
import type { ProtocolVersion } from '../rules/types.ts';
import { checkFile, MAX_DOCUMENT_BYTES, ReadFailure, reason } from './files.ts';
import { junit } from './junit.ts';
import { pretty } from './pretty.ts';
import { printable, safeJson } from './printable.ts';
import { REPLAY_USAGE } from './usage.ts';
import { toContract, type FileResult } from './report.ts';
import { sarif } from './sarif.ts';

const USAGE = `Usage:
  agui-inspector check <file>... [--input <RunAgentInput.json>] [--format pretty|json|sarif|junit] [--as 1.0|1.1]
  agui-inspector rules            list every rule with its category, severity and spec section
${REPLAY_USAGE}

Reads raw SSE or protobuf response bodies, JSONL, JSON event arrays, conformance fixtures
({ input, stream }), HAR 1.2 files and the Inspector's own recordings. --input is the request of
every raw response body; a HAR or a fixture carries its own, and a notice says it is not used.
Exit status: 0 every exchange completed, 1 an exchange failed, 2 a file could not be read or the tool failed.`;

const FORMATS = ['pretty', 'json', 'sarif', 'junit'] as const;
type Format = (typeof FORMATS)[number];

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
  const parsed = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      input: { type: 'string' },
      format: { type: 'string', default: 'pretty' },
      as: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
      'no-color': { type: 'boolean' },
    },
  });
  const [command, ...files] = parsed.positionals;
  if (parsed.values.version) return io.out(`${TOOL.name} ${TOOL.version}\n`), 0;
  if (parsed.values.help || command === undefined) return io.out(USAGE + '\n'), command === undefined && !parsed.values.help ? 2 : 0;
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
      return { file, reports: checkFile(file, { inputText, as: as as ProtocolVersion | undefined, maxDocumentBytes: io.maxDocumentBytes ?? MAX_DOCUMENT_BYTES, onInputUnused }) };
    } catch (e) {
      if (e instanceof ReadFailure) return { file, reports: [], error: `cannot read file: ${e.message}` };
      if (e instanceof FormatError) return { file, reports: [], error: e.message };
      // One file that breaks the analyzer must not hide the report on the others.
      return { file, reports: [], error: `internal error: ${errorName(e)}` };
    }
  });
  for (const r of results) if (r.error !== undefined) say(`${r.file}: ${r.error}`);
  const colour = io.colour && !parsed.values['no-color'];
  io.out(format === 'json' ? safeJson(toContract(results)) : format === 'sarif' ? sarif(results) : format === 'junit' ? junit(results) : pretty(results, colour));
  if (results.some((r) => r.error !== undefined)) return 2;
  return results.some((r) => r.reports.some((x) => x.verdict === 'failed')) ? 1 : 0;
}

const errorName = (e: unknown) => (e instanceof Error ? `${e.name}: ${e.message}` : String(e));
