import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { analyzeExchanges } from '../analyzer/index.ts';
import { FormatError, readExchanges } from '../formats/read.ts';
import { TOOL } from '../meta.ts';
import { ALL_RULES } from '../rules/index.ts';
import type { ProtocolVersion } from '../rules/types.ts';
import { junit } from './junit.ts';
import { pretty } from './pretty.ts';
import { REPLAY_USAGE } from './usage.ts';
import { toContract, type FileResult } from './report.ts';
import { sarif } from './sarif.ts';

const USAGE = `Usage:
  agui-inspector check <file>... [--input <RunAgentInput.json>] [--format pretty|json|sarif|junit] [--as 1.0|1.1]
  agui-inspector rules            list every rule with its category, severity and spec section
${REPLAY_USAGE}

Reads raw SSE or protobuf response bodies, JSONL, JSON event arrays, conformance fixtures
({ input, stream }), HAR 1.2 files and the Inspector's own recordings.
Exit status: 0 every exchange completed, 1 an exchange failed, 2 a file could not be read.`;

const FORMATS = ['pretty', 'json', 'sarif', 'junit'] as const;
type Format = (typeof FORMATS)[number];

class UsageError extends Error {}

/** Runs the CLI; returns the exit status instead of exiting so tests can call it in-process. */
export function run(argv: string[], io: { out: (s: string) => void; err: (s: string) => void; colour: boolean }): number {
  let parsed;
  try {
    parsed = parseArgs({
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
        io.err(`agui-inspector: cannot read --input ${parsed.values.input}: ${reason(e)}\n`);
        return 2;
      }
    }
    const results = files.map((file) => check(file, inputText, as as ProtocolVersion | undefined));
    for (const r of results) if (r.error !== undefined) io.err(`agui-inspector: ${r.file}: ${r.error}\n`);
    const colour = io.colour && !parsed.values['no-color'];
    io.out(format === 'json' ? JSON.stringify(toContract(results), null, 2) + '\n' : format === 'sarif' ? sarif(results) : format === 'junit' ? junit(results) : pretty(results, colour));
    if (results.some((r) => r.error !== undefined)) return 2;
    return results.some((r) => r.reports.some((x) => x.verdict === 'failed')) ? 1 : 0;
  } catch (e) {
    if (!(e instanceof UsageError) && !(e instanceof TypeError && 'code' in e)) throw e;
    io.err(`agui-inspector: ${e.message}\n${USAGE}\n`);
    return 2;
  }
}

function check(file: string, inputText: string | undefined, as: ProtocolVersion | undefined): FileResult {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(file);
  } catch (e) {
    return { file, reports: [], error: `cannot read file: ${reason(e)}` };
  }
  try {
    return { file, reports: analyzeExchanges(readExchanges(bytes, file, { inputText }), as) };
  } catch (e) {
    if (e instanceof FormatError) return { file, reports: [], error: e.message };
    throw e;
  }
}

function reason(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  return err.code === 'ENOENT' ? 'no such file' : err.code === 'EISDIR' ? 'is a directory' : (err.message ?? String(e));
}
