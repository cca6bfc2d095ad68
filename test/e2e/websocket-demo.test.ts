/**
 * The demo over a WebSocket in each browser's real panel (#38): the page's own @ag-ui/client AbstractAgent
 * on a socket to the demo agent (a `ws` server on 127.0.0.1) runs a chat, tool calls, state, an interrupt,
 * and a chat whose socket the agent closes mid-run with 1011. Every exchange is listed as WS, the cut one
 * shows its socket's close and whose each frame is, and `check` on the session exported judges each exchange
 * as the panel does, as a WebSocket exchange.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../../src/cli/main.ts';
import { demoSessionInBothPanels, type DemoStep } from './demo-panel.ts';

const SESSION: DemoStep[] = [
  ['chat', { transport: 'websocket', threadId: 'ws-chat', delay: 1 }],
  ['tools', { transport: 'websocket', threadId: 'ws-tools', delay: 1 }],
  ['state', { transport: 'websocket', threadId: 'ws-state', delay: 1 }],
  ['interrupt', { transport: 'websocket', threadId: 'ws-interrupt', delay: 1 }],
  ['chat', { transport: 'websocket', threadId: 'ws-cut', closeAfter: 3, delay: 1 }],
];

interface Read {
  rows: { transport: string; verdict: string }[];
  socket: { frames: string; close: string; closeText: string; roles: string[] };
  har: string;
}

const settled = (): boolean => {
  const all = [...document.querySelectorAll<HTMLElement>('[data-testid=exchange-row]')];
  return all.length === 5 && all.every((r) => r.dataset.verdict !== 'pending' && r.dataset.verdict !== 'unanalysed');
};

/** Runs in the panel: the list's transports and verdicts, the cut exchange's socket opened, and the session exported. */
async function readSockets(): Promise<Read> {
  const rows = [...document.querySelectorAll<HTMLElement>('[data-testid=exchange-row]')];
  const listed = rows.map((r) => ({ transport: r.dataset.transport!, verdict: r.dataset.verdict! }));
  rows[4]!.click();
  document.querySelector<HTMLElement>('[data-testid=tab-timeline]')!.click();
  await e2e.settle(() => document.querySelector('[data-testid=socket]') !== null);
  const details = document.querySelector<HTMLDetailsElement>('[data-testid=socket]')!;
  details.open = true;
  await e2e.settle(() => document.querySelectorAll('[data-testid=socket-frame]').length > 0);
  const socket = {
    frames: details.dataset.frames!, close: details.dataset.closeCode!, closeText: details.querySelector('[data-testid=socket-close]')!.textContent!,
    roles: [...document.querySelectorAll<HTMLElement>('[data-testid=socket-frame]')].map((f) => f.dataset.role!),
  };
  const api = (globalThis as unknown as { browser?: typeof chrome }).browser ?? chrome;
  const tabId = chrome.devtools?.inspectedWindow?.tabId ?? Number(new URLSearchParams(location.search).get('tabId'));
  const har = (await api.runtime.sendMessage({ type: 'agui-inspector/export', tabId, redact: [] })) as string;
  return { rows: listed, socket, har };
}

function check(r: Read): void {
  assert.deepEqual(r.rows.map((x) => x.transport), ['WS', 'WS', 'WS', 'WS', 'WS'], 'every exchange listed as WS');
  assert.deepEqual(r.rows.map((x) => x.verdict), ['completed', 'completed', 'completed', 'completed', 'failed'], 'the socket closed mid-run fails its exchange');
  assert.equal(r.socket.close, '1011');
  assert.match(r.socket.closeText, /^closed 1011/);
  assert.equal(r.socket.roles.filter((x) => x === 'input').length, 1, 'one input frame is the exchange\'s');
  assert.equal(r.socket.roles.filter((x) => x === 'stream').length, 3, 'the three events sent before the close are its stream');
  assert.equal(Number(r.socket.frames), r.socket.roles.length);
  // check on the export judges every exchange as the panel did, as a WebSocket exchange.
  const dir = mkdtempSync(join(tmpdir(), 'agui-ws-demo-'));
  writeFileSync(join(dir, 'session.har'), r.har);
  let out = '';
  run(['check', join(dir, 'session.har'), '--format', 'json'], { out: (s) => void (out += s), err: () => undefined, colour: false });
  const report = JSON.parse(out) as { exchanges: { verdict: string; transport?: string; findings: { rule: string }[] }[] };
  assert.deepEqual(report.exchanges.map((x) => x.verdict), r.rows.map((x) => x.verdict));
  assert.deepEqual(report.exchanges.map((x) => x.transport), ['websocket', 'websocket', 'websocket', 'websocket', 'websocket']);
  assert.ok(report.exchanges[4]!.findings.some((f) => f.rule === 'lifecycle/truncated'), 'the cut run is a truncation');
}

demoSessionInBothPanels('the demo over a WebSocket in the real panel', 'socket exchanges are listed as WS, the cut one shows its close, and check agrees', SESSION, settled, readSockets, check);
