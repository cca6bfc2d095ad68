import { run } from './main.ts';

process.exitCode = run(process.argv.slice(2), {
  out: (s) => process.stdout.write(s),
  err: (s) => process.stderr.write(s),
  colour: Boolean(process.stdout.isTTY) && !process.env.NO_COLOR,
});
