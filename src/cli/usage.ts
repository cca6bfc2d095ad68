import { parseArgs } from 'node:util';
import { TOOL } from '../meta.ts';

/*
 * What the CLI can answer before loading anything else: its usage, its version and the options of
 * `check`. bin.ts answers --version and --help from here alone, so they cost no more than Node's
 * own start; the analyzer, and the replay server, are loaded only by the commands that use them.
 */

/** Usage lines shared by the commands that print them. */
export const REPLAY_USAGE = `  agui-inspector replay <recording.har> [--port N] [--host 127.0.0.1] [--speed 1|max|<factor>] [--allow-origin <origin>]... [--fault <spec>]... [--keep-ids]
                                  answer an app's AG-UI requests with the recorded responses; only pages
                                  on localhost, 127.0.0.1 or [::1] (any port), each --allow-origin and
                                  requests without an Origin may read them, addressed to a loopback
                                  name or the --host; AG-UI media types are served as recorded, any
                                  other as application/octet-stream. The request's threadId and runId
                                  replace the recorded ones (--keep-ids keeps them). --fault, into every
                                  answer, events counted from 0: stall:<ms>@<k> (wait before event k),
                                  cut@<k> (end after it), cut-mid@<k> (end inside it),
                                  status:<400-599>[:retry-after=<s>] (an HTTP error, no stream),
                                  error@terminal (RUN_ERROR for RUN_FINISHED), drop@<k>, dup@<k>,
                                  drip:<bytes per second>. Exchanges recorded on a WebSocket are
                                  served at their path over a WebSocket, an input text frame answered
                                  with their frames; cut@<k> closes the socket with 1011`;

export const REDUCE_USAGE = `  agui-inspector reduce <file> [--exchange N] [--rule ID] [--out DIR] [--budget N] [--time-limit S] [--name NAME] [--input <RunAgentInput.json>]
                                  shrink one exchange (the first that raises the rule, or an error) to the
                                  smallest fixture that still raises it: writes DIR/NAME.fixture.json and
                                  DIR/NAME.test.mjs (node:test, through the library's check); when the
                                  budget (default 5000 analyses) or the time limit (default 60 s) runs
                                  out, it writes the smallest it verified and says so on stderr, exit 0`;

export const DIFF_USAGE = `  agui-inspector diff <a> <b> [--format pretty|json] [--strict-ids]
                                  compare two recordings (file#N: one exchange) as a consumer holds them:
                                  conversation, tool calls, state after each run, outcomes, interrupts,
                                  findings; ids, chunking, keep-alives and timing set aside. Exit 0 the
                                  same, 1 different, 2 unreadable`;

export const PROBE_USAGE = `  agui-inspector probe <url> --input <RunAgentInput.json> [--accept sse|protobuf] [--header 'Name: value']... [--har out.har] [--timeout S] [--follow-same-origin] [--format pretty|json|sarif|junit]
                                  send the input to a live endpoint and report its answer as check does,
                                  with what the transport did (content type, streamed or one lump,
                                  keep-alives); --har writes the recording, to replay, reduce and diff.
                                  A redirect is reported (status, Location), not followed: exit 1;
                                  --follow-same-origin follows those to the URL's own origin, naming each.
                                  A stream still open at --timeout fails (the run never ended); reading
                                  stops at 64 MiB, as a tab's capture does, and the probe exits 1`;

export const USAGE = `Usage:
  agui-inspector check <file>... [--input <RunAgentInput.json>] [--format pretty|json|sarif|junit] [--as 1.0|1.1] [--stall-ms N]
  agui-inspector rules            list every rule with its category, severity and spec section
${REDUCE_USAGE}
${DIFF_USAGE}
${PROBE_USAGE}
${REPLAY_USAGE}

Reads raw SSE or protobuf response bodies, JSONL, JSON event arrays, conformance fixtures
({ input, stream }), HAR 1.2 files and the Inspector's own recordings. --input is the request of
every raw response body; a HAR or a fixture carries its own, and a notice says it is not used.
A recording that kept when its response arrived also gets its timing (pretty: one line; json: \`timing\`);
--stall-ms is the gap between two events counted as a stall (default 1000).
Exit status: 0 every exchange completed, 1 an exchange failed, 2 a file could not be read or the tool failed.`;

/** The command line of every command but replay; throws (a TypeError with a `code`) on an unknown or malformed option. */
export function parseCommand(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      input: { type: 'string' },
      format: { type: 'string', default: 'pretty' },
      as: { type: 'string' },
      'stall-ms': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
      'no-color': { type: 'boolean' },
    },
  });
}

/** The exit status of --version, --help or no command at all, once answered; null for anything else. */
export function answerAlone(parsed: ReturnType<typeof parseCommand>, out: (s: string) => void): number | null {
  const command = parsed.positionals[0];
  if (parsed.values.version) return out(`${TOOL.name} ${TOOL.version}\n`), 0;
  if (parsed.values.help || command === undefined) return out(USAGE + '\n'), command === undefined && !parsed.values.help ? 2 : 0;
  return null;
}
