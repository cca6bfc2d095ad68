/** Edited events judged as the answer they would make (src/detail/edited.ts): the analyzer's findings, each at its editor line. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { judgeEdited } from '../../src/detail/index.ts';
import { runEvents } from '../support/replay.ts';

const input = JSON.stringify({ threadId: 't', runId: 'r', messages: [], state: {}, tools: [], context: [], forwardedProps: {} });
const lines = runEvents('t', 'r').map((e) => JSON.stringify(e));

describe('edited events, judged as the answer they make', () => {
  it('a clean stream completes with no error, in SSE and in protobuf alike', () => {
    for (const responseContentType of ['text/event-stream', 'application/vnd.ag-ui.event+proto']) {
      const v = judgeEdited(lines.join('\n'), { responseContentType, requestBody: input });
      assert.ok(!('error' in v));
      assert.equal(v.verdict, 'completed', responseContentType);
      assert.equal(v.events, 5);
      assert.deepEqual(v.findings.filter((f) => f.severity === 'error'), []);
    }
  });

  it('a malformed event fails the stream at its index, named by its editor line (blank lines skipped as the answer skips them)', () => {
    const edited = [lines[0], '', lines[1], '{"type":"TEXT_MESSAGE_CONTENT","messageId":"a1","delta":42}', lines[3], lines[4]].join('\n');
    const v = judgeEdited(edited, { responseContentType: 'text/event-stream', requestBody: input });
    assert.ok(!('error' in v));
    assert.equal(v.verdict, 'failed');
    const malformed = v.findings.find((f) => f.rule === 'schema/malformed');
    assert.ok(malformed, v.findings.map((f) => f.rule).join(', '));
    assert.equal(malformed.event, 2);
    assert.equal(malformed.line, 4);
  });

  it('a line protobuf cannot carry is refused with its line, as arming would refuse it', () => {
    const v = judgeEdited(`${lines[0]}\nnot json`, { responseContentType: 'application/vnd.ag-ui.event+proto', requestBody: input });
    assert.ok('error' in v);
    assert.match(v.error, /line 2 cannot be sent as protobuf/);
  });
});
