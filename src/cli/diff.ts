/** `agui-inspector diff`: two recordings, or two exchanges of one, compared as a consumer holds them. */
import { parseArgs } from 'node:util';
import { diff, type Difference } from '../library/index.ts';
import { CommandError, failed, readRecording, type CommandIo } from './command.ts';
import { printable, safeJson } from './printable.ts';
import { DIFF_USAGE } from './usage.ts';

/** How many differences the pretty output lists; the JSON has them all. */
const SHOWN = 10;

export function diffCommand(argv: string[], io: CommandIo): number {
  try {
    return diffOrThrow(argv, io);
  } catch (e) {
    return failed(io, e);
  }
}

function diffOrThrow(argv: string[], io: CommandIo): number {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: { format: { type: 'string', default: 'pretty' }, 'strict-ids': { type: 'boolean' } } });
  } catch (e) {
    throw new CommandError((e as Error).message, DIFF_USAGE);
  }
  const { positionals, values } = parsed;
  if (positionals.length !== 2) throw new CommandError('diff takes two recordings (or file#N for one exchange)', DIFF_USAGE);
  if (values.format !== 'pretty' && values.format !== 'json') throw new CommandError('--format must be pretty or json', DIFF_USAGE);
  const [a, b] = positionals.map((arg) => {
    const r = readRecording(arg);
    return r.pick === undefined ? r.exchanges : [r.exchanges[r.pick]!];
  });
  const differences = diff(a!, b!, { strictIds: values['strict-ids'] });
  if (values.format === 'json') io.out(safeJson({ same: differences.length === 0, differences }));
  else io.out(pretty(positionals[0]!, positionals[1]!, differences));
  return differences.length === 0 ? 0 : 1;
}

const shown = (v: unknown) => {
  const s = JSON.stringify(v) ?? 'undefined';
  return s.length > 120 ? `${s.slice(0, 117)}...` : s;
};

function line(d: Difference): string {
  const where = d.exchange === null ? 'exchanges' : `exchange ${d.exchange} ${d.kind} ${d.path || '/'}`;
  const side = (k: 'a' | 'b') => (k in d ? shown(d[k]) : '(absent)');
  return `  ${where}: ${side('a')} → ${side('b')}`;
}

function pretty(a: string, b: string, differences: Difference[]): string {
  if (differences.length === 0) return printable(`${a} and ${b}: the same to a consumer`) + '\n';
  const kinds = [...new Set(differences.map((d) => d.kind))].join(', ');
  const head = `${a} and ${b} differ: ${differences.length} difference${differences.length === 1 ? '' : 's'} (${kinds})${differences.length > SHOWN ? `; the first ${SHOWN}:` : ':'}`;
  return [head, ...differences.slice(0, SHOWN).map(line)].map(printable).join('\n') + '\n';
}
