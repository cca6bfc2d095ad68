/** `agui-inspector reduce`: a recording's exchange shrunk to a fixture and a test that still show its finding. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';
import { analyzeSession } from '../detail/index.ts';
import { DEFAULT_BUDGET, DEFAULT_TIME_LIMIT_MS, reduce, ReduceError } from '../library/index.ts';
import { CommandError, failed, readInput, readRecording, type CommandIo } from './command.ts';
import { printable } from './printable.ts';
import { REDUCE_USAGE } from './usage.ts';

export function reduceCommand(argv: string[], io: CommandIo): number {
  try {
    return reduceOrThrow(argv, io);
  } catch (e) {
    return failed(io, e instanceof ReduceError ? new CommandError(e.message) : e);
  }
}

function reduceOrThrow(argv: string[], io: CommandIo): number {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { exchange: { type: 'string' }, rule: { type: 'string' }, out: { type: 'string', default: '.' }, budget: { type: 'string' }, 'time-limit': { type: 'string' }, name: { type: 'string' }, input: { type: 'string' } },
    });
  } catch (e) {
    throw new CommandError((e as Error).message, REDUCE_USAGE);
  }
  const { positionals: files, values } = parsed;
  if (files.length !== 1) throw new CommandError('reduce takes one recording', REDUCE_USAGE);
  const budget = values.budget === undefined ? DEFAULT_BUDGET : Number(values.budget);
  if (!Number.isInteger(budget) || budget < 1) throw new CommandError('--budget must be a positive whole number of analyses', REDUCE_USAGE);
  const timeLimit = values['time-limit'] === undefined ? DEFAULT_TIME_LIMIT_MS / 1000 : Number(values['time-limit']);
  if (!(Number.isFinite(timeLimit) && timeLimit > 0)) throw new CommandError('--time-limit must be a positive number of seconds', REDUCE_USAGE);
  const asked = values.exchange === undefined ? undefined : Number(values.exchange);
  if (asked !== undefined && !(Number.isInteger(asked) && asked >= 1)) throw new CommandError('--exchange must be a number from 1', REDUCE_USAGE);
  const recording = readRecording(files[0]!, { input: readInput(values.input) });
  const { exchanges, file } = recording;
  // Each exchange as `check` judges it in its recording: that is what the result may not add to.
  const reports = analyzeSession(exchanges).map((a) => a.report);
  const raises = (i: number) => [...reports[i]!.input.findings, ...reports[i]!.findings].some((f) => (values.rule === undefined ? f.severity === 'error' : f.rule === values.rule));
  const index = asked !== undefined ? asked - 1 : recording.pick ?? reports.findIndex((_, i) => raises(i));
  if (exchanges.length === 0) throw new CommandError(`${file}: no AG-UI exchange found`);
  if (index >= exchanges.length) throw new CommandError(`${file} holds ${exchanges.length} exchange(s): there is no exchange ${index + 1}`);
  if (index === -1) throw new CommandError(`${file}: no exchange raises ${values.rule ?? 'an error-level finding'}`);
  const name = safeName(values.name ?? `${basename(file).replace(/\.[^.]*$/, '')}${exchanges.length > 1 ? `-${index + 1}` : ''}`);
  const r = reduce(exchanges[index]!, reports[index]!, { rule: values.rule, budget, timeLimitMs: timeLimit * 1000, name });
  mkdirSync(values.out, { recursive: true });
  const fixture = join(values.out, `${name}.fixture.json`);
  const test = join(values.out, `${name}.test.mjs`);
  writeFileSync(fixture, r.fixture);
  writeFileSync(test, r.test);
  const stream = JSON.parse(r.fixture).stream as { type?: unknown }[];
  const members = r.members.map((m) => `${m.kept} of ${m.of} ${m.collection}`).join(', ');
  io.out(
    [
      `reduced exchange ${index + 1} of ${file} to ${r.events.length} of ${r.eventCount} events${members ? `, ${members}` : ''} in ${r.analyses} analyses`,
      `still raises ${r.targets.join(', ')} (${r.report.verdict})`,
      ...r.events.map((original, i) => `  event ${original}: ${typeof stream[i]?.type === 'string' ? stream[i]!.type : '(no type)'}`),
      `wrote ${fixture}`,
      `wrote ${test}`,
    ].map(printable).join('\n') + '\n',
  );
  if (r.stoppedBy !== null) io.err(`agui-inspector: ${r.stoppedBy === 'budget' ? `the budget of ${budget} analyses` : `the time limit of ${timeLimit} s`} ran out: the smallest fixture verified so far is written, and may not be minimal\n`);
  return 0;
}

/** A file name from a recording's: letters, digits, dot, dash and underscore only. */
const safeName = (s: string) => s.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_') || 'reduced';
