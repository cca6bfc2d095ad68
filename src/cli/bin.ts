import { printable } from './printable.ts';
import { answerAlone, parseCommand } from './usage.ts';

// What run() cannot catch — a stdout closed under us (EPIPE arrives as an 'error' event) — still ends in one line and status 2.
process.on('uncaughtException', (e) => {
  process.stderr.write(`agui-inspector: ${printable(e instanceof Error ? `${e.name}: ${e.message}` : String(e))}\n`);
  process.exit(2);
});

const io = {
  out: (s: string) => void process.stdout.write(s),
  err: (s: string) => void process.stderr.write(s),
  colour: Boolean(process.stdout.isTTY) && !process.env.NO_COLOR,
};
const argv = process.argv.slice(2);
/** --version and --help need nothing else loaded; a command line that does not parse is run()'s to report. */
function alone(): number | null {
  try {
    return answerAlone(parseCommand(argv), io.out);
  } catch {
    return null;
  }
}

// replay serves until stopped; every other command runs to an exit status. Each loads only its own modules.
if (argv[0] === 'reduce') {
  void import('./reduce.ts').then(({ reduceCommand }) => {
    process.exitCode = reduceCommand(argv.slice(1), io);
  });
} else if (argv[0] === 'diff') {
  void import('./diff.ts').then(({ diffCommand }) => {
    process.exitCode = diffCommand(argv.slice(1), io);
  });
} else if (argv[0] === 'replay') {
  void import('./replay.ts').then(async ({ replayCommand }) => {
    process.exitCode = await replayCommand(argv.slice(1), io);
  });
} else {
  const answered = alone();
  if (answered !== null) process.exitCode = answered;
  else void import('./main.ts').then(({ run }) => {
    process.exitCode = run(argv, io);
  });
}
