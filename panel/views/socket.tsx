/**
 * The WebSocket an exchange ran on, above every view of it: how the socket closed (a close before the run's
 * terminal event is what truncated it, basic/transports#the-binding-contract), and, opened, every frame on
 * the socket with whose it is — this exchange's input or stream, another exchange's, or no exchange's
 * (pings, the app's own messages), which are shown and never judged. Asked of the source as the exchange changes.
 */
import { useEffect, useState } from 'preact/hooks';
import type { SocketFrameRow, SocketView } from '../../src/exchange/index.ts';
import { formatMs, type PanelExchange, type SessionSource } from '../model.ts';

const ROLE: Record<SocketFrameRow['role'], string> = {
  input: 'its input',
  stream: 'its stream',
  'other-exchange': 'another exchange',
  'not-ag-ui': 'not AG-UI',
};

function closeText(v: SocketView): string {
  if (!v.close) return 'not closed when recorded';
  const code = v.close.code === null ? 'closed' : `closed ${v.close.code}`;
  return v.close.reason ? `${code} “${v.close.reason}”` : code;
}

export function SocketSummary({ source, x }: { source: SessionSource; x: PanelExchange }) {
  const [view, setView] = useState<SocketView | null>(null);
  useEffect(() => {
    let live = true;
    source.socket(x).then((v) => live && setView(v), () => live && setView(null));
    return () => void (live = false);
  }, [source, x, x.rev]);
  if (!view) return null;
  return (
    <details class="socket" data-testid="socket" data-frames={view.total} data-not-ag-ui={view.notAgUi} data-close-code={view.close?.code ?? ''}>
      <summary>
        WebSocket <span data-testid="socket-close">{closeText(view)}</span> · <b>{view.total}</b> frame{view.total === 1 ? '' : 's'}
        {view.notAgUi > 0 ? <>, {view.notAgUi} not AG-UI</> : null} · <span class="muted socket-url" title={view.url}>{view.url}</span>
      </summary>
      <div class="socket-frames">
        <table>
          <thead><tr><th>#</th><th>Dir</th><th>Time</th><th>Whose</th><th>Length</th><th>Data</th></tr></thead>
          <tbody>
            {view.frames.map((f) => (
              <tr key={f.index} class={`role-${f.role}`} data-testid="socket-frame" data-role={f.role} data-type={f.type}>
                <td class="muted">{f.index}</td>
                <td title={f.type === 'send' ? 'sent by the page' : 'received from the agent'}>{f.type === 'send' ? '↑' : '↓'}</td>
                <td>{formatMs(f.ms)}</td>
                <td>{ROLE[f.role]}</td>
                <td>{f.length.toLocaleString('en')}{f.opcode === 2 ? ' B' : ''}</td>
                <td class="socket-data"><code>{f.preview}</code></td>
              </tr>
            ))}
          </tbody>
        </table>
        {view.total > view.frames.length ? <p class="muted">The first {view.frames.length.toLocaleString('en')} of {view.total.toLocaleString('en')} frames; the export holds them all.</p> : null}
      </div>
    </details>
  );
}
