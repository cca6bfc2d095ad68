// Preloaded into the packaged CLI by test/cli/cli.test.ts: says on stderr which generated validator
// module is required, so a test can tell what the tool loaded without reaching into it.
const Module = require('node:module');
const load = Module._load;
Module._load = function (request, ...rest) {
  const name = /generated\/(v1_\d(?:\.quick)?\.cjs)$/.exec(request)?.[1];
  if (name) process.stderr.write(`required ${name}\n`);
  return load.call(this, request, ...rest);
};
