import { run } from './main.ts';
import { printable } from './printable.ts';

// What run() cannot catch — a stdout closed under us (EPIPE arrives as an 'error' event) — still ends in one line and status 2.
process.on('uncaughtException', (e) => {
  process.stderr.write(`agui-inspector: ${printable(e instanceof Error ? `${e.name}: ${e.message}` : String(e))}\n`);
  process.exit(2);
});

process.exitCode = run(process.argv.slice(2), {
  out: (s) => process.stdout.write(s),
  err: (s) => process.stderr.write(s),
  colour: Boolean(process.stdout.isTTY) && !process.env.NO_COLOR,
});
