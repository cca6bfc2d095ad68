/** `agui-inspector probe`: a live endpoint sent a RunAgentInput, its answer reported as `check` reports a file. */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ACCEPT, fileResult, probe, ProbeError, type Redirect, type TransportSeen } from '../library/index.ts';
import { DEFAULT_LIMITS } from '../messages.ts';
import { CommandError, failed, readInput, type CommandIo } from './command.ts';
import { FORMATS, render, type Format } from './main.ts';
import { printable } from './printable.ts';
import { PROBE_USAGE } from './usage.ts';

export async function probeCommand(argv: string[], io: CommandIo): Promise<number> {
  try {
    return await probeOrThrow(argv, io);
  } catch (e) {
    return failed(io, e instanceof ProbeError ? new CommandError(e.message) : e);
  }
}

async function probeOrThrow(argv: string[], io: CommandIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { input: { type: 'string' }, accept: { type: 'string', default: 'sse' }, header: { type: 'string', multiple: true }, har: { type: 'string' }, timeout: { type: 'string', default: '30' }, 'follow-same-origin': { type: 'boolean' }, format: { type: 'string', default: 'pretty' }, 'no-color': { type: 'boolean' } },
    });
  } catch (e) {
    throw new CommandError((e as Error).message, PROBE_USAGE);
  }
  const { positionals, values } = parsed;
  if (positionals.length !== 1 || !/^https?:\/\//.test(positionals[0]!)) throw new CommandError('probe takes one http:// or https:// URL', PROBE_USAGE);
  const input = readInput(values.input);
  if (input === undefined) throw new CommandError('probe needs --input <RunAgentInput.json>', PROBE_USAGE);
  if (values.accept !== 'sse' && values.accept !== 'protobuf') throw new CommandError('--accept must be sse or protobuf', PROBE_USAGE);
  const format = values.format as Format;
  if (!FORMATS.includes(format)) throw new CommandError(`--format must be one of ${FORMATS.join(', ')}`, PROBE_USAGE);
  const timeout = Number(values.timeout);
  if (!(Number.isFinite(timeout) && timeout > 0)) throw new CommandError('--timeout must be a positive number of seconds', PROBE_USAGE);
  const headers: Record<string, string> = {};
  for (const h of values.header ?? []) {
    const colon = h.indexOf(':');
    if (colon < 1) throw new CommandError(`--header ${JSON.stringify(h)} is not 'Name: value'`, PROBE_USAGE);
    headers[h.slice(0, colon).trim().toLowerCase()] = h.slice(colon + 1).trim();
  }
  const p = await probe(positionals[0]!, { input, accept: values.accept, headers, timeoutMs: timeout * 1000, followSameOrigin: values['follow-same-origin'] });
  if (values.har !== undefined) writeFileSync(values.har, p.har());
  const results = [fileResult(positionals[0]!, [p])];
  io.out(render(format, results, Boolean(io.colour) && !values['no-color'], { transport: p.transport }));
  if (format === 'pretty') io.out(transportLines(p.transport, values.accept));
  // A body cut at the cap was not seen whole, whatever its part says.
  return p.report.verdict === 'failed' || p.transport.capped ? 1 : 0;
}

function transportLines(t: TransportSeen, accept: keyof typeof ACCEPT): string {
  const asked = ACCEPT[accept];
  return [
    ...t.redirects.map(redirectLine),
    `transport: HTTP ${t.status}, ${t.contentType || 'no content type'}${t.contentType.startsWith(asked) ? '' : ` (asked for ${asked})`}`,
    `  ${t.chunks} chunk${t.chunks === 1 ? '' : 's'}${t.firstByteMs === null ? '' : `, first byte ${t.firstByteMs.toFixed(0)} ms, last ${t.lastByteMs!.toFixed(0)} ms`}${t.oneLump ? ' — held back and sent in one lump (a buffering proxy or server defeats streaming)' : ''}`,
    `  ${t.keepAlives} keep-alive comment${t.keepAlives === 1 ? '' : 's'}${t.timedOut ? '; stopped at the timeout: the run never ended' : ''}`,
    ...(t.capped ? [`  stopped reading at the cap of ${DEFAULT_LIMITS.maxBytes / 2 ** 20} MiB: the body and its analysis end there`] : []),
  ].map(printable).join('\n') + '\n';
}

function redirectLine(r: Redirect): string {
  const head = `redirect: HTTP ${r.status} from ${r.from} to ${r.location ?? '(no Location)'}`;
  if (r.followed) return `${head}, followed (same origin)`;
  if (!r.sameOrigin) return `${head}, not followed: ${r.location === null ? 'nowhere to go' : 'another origin would receive the input and its headers'}`;
  return `${head}, not followed: the same origin, which --follow-same-origin follows (up to 20 redirects)`;
}
