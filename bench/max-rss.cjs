// Preloaded by bench/process.ts (node --require): the process's own peak resident set, in KB, written to stderr as it exits.
process.on('exit', () => process.stderr.write(`max-rss ${process.resourceUsage().maxRSS}\n`));
