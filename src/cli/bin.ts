import { run } from './main.ts';
import { replayCommand } from './replay.ts';
import { printable } from './printable.ts';

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
// replay serves until stopped; every other command runs to an exit status.
if (argv[0] === 'replay') void replayCommand(argv.slice(1), io).then((code) => void (process.exitCode = code));
else process.exitCode = run(argv, io);
