/**
 * What the commands after `check` share: their output, one line on stderr for what went wrong, and reading
 * a recording named on the command line — a file, or `file#N` for its N-th exchange (1-based).
 */
import { existsSync, readFileSync } from 'node:fs';
import { exchangesOf } from '../library/index.ts';
import type { CapturedExchange } from '../exchange/index.ts';
import { FormatError } from '../formats/index.ts';
import { reason } from './files.ts';
import { printable } from './printable.ts';

export interface CommandIo {
  out: (s: string) => void;
  err: (s: string) => void;
  colour?: boolean;
}

/** A usage error, or a file that cannot be used: the message is said and the status is 2. */
export class CommandError extends Error {
  constructor(
    message: string,
    readonly usage?: string,
  ) {
    super(message);
  }
}

/** Says why the command failed and returns its status, 2. */
export function failed(io: CommandIo, e: unknown): 2 {
  if (e instanceof CommandError) io.err(`agui-inspector: ${printable(e.message)}\n${e.usage ? `Usage:\n${e.usage}\n` : ''}`);
  else if (e instanceof TypeError && 'code' in e) io.err(`agui-inspector: ${printable(e.message)}\n`);
  else io.err(`agui-inspector: internal error: ${printable(e instanceof Error ? `${e.name}: ${e.message}` : String(e))}\n`);
  return 2;
}

export interface Recording {
  file: string;
  exchanges: CapturedExchange[];
  /** The 0-based exchange `file#N` named; undefined when the whole file is meant. */
  pick?: number;
}

/** The exchanges of `arg` (`file` or `file#N`); a name that exists as a file is a file, `#` and all. */
export function readRecording(arg: string, o: { input?: string } = {}): Recording {
  const hash = arg.lastIndexOf('#');
  const numbered = !existsSync(arg) && hash > 0 && /^[1-9]\d*$/.test(arg.slice(hash + 1));
  const file = numbered ? arg.slice(0, hash) : arg;
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(file);
  } catch (e) {
    throw new CommandError(`${file}: cannot read file: ${reason(e)}`);
  }
  let exchanges: CapturedExchange[];
  try {
    exchanges = exchangesOf(bytes, { name: file, input: o.input });
  } catch (e) {
    if (e instanceof FormatError) throw new CommandError(`${file}: ${e.message}`);
    throw e;
  }
  if (!numbered) return { file, exchanges };
  const pick = Number(arg.slice(hash + 1)) - 1;
  if (pick >= exchanges.length) throw new CommandError(`${file} holds ${exchanges.length} exchange${exchanges.length === 1 ? '' : 's'}: there is no #${pick + 1}`);
  return { file, exchanges, pick };
}

/** Reads `--input`'s file. */
export function readInput(file: string | undefined): string | undefined {
  if (file === undefined) return undefined;
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    throw new CommandError(`cannot read --input ${file}: ${reason(e)}`);
  }
}
