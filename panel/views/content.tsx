/** Message content as sent: text, or parts; a media part shows its source kind and never fetches it. */
import { isObject } from '../../src/json.ts';
import { Json } from '../ui.tsx';

function Source({ source }: { source: unknown }) {
  if (!isObject(source)) return <span class="muted">no source</span>;
  const mime = typeof source.mimeType === 'string' ? ` (${source.mimeType})` : '';
  switch (source.type) {
    case 'file':
      return (
        <span data-source="file">
          file handle <code class="handle">{String(source.value)}</code>
          {typeof source.provider === 'string' ? <> from <code>{source.provider}</code></> : null}
          {mime} — an opaque id, never fetched
        </span>
      );
    case 'url':
      return <span data-source="url">url <code>{String(source.value)}</code>{mime}</span>;
    case 'data':
      return <span data-source="data">inline data{mime}, {typeof source.value === 'string' ? source.value.length : 0} base64 characters</span>;
    default:
      return <span data-source="unknown">source of kind <code>{JSON.stringify(source.type)}</code></span>;
  }
}

export function Content({ content }: { content: unknown }) {
  if (typeof content === 'string') return <p class="text">{content}</p>;
  if (!Array.isArray(content)) return <Json value={content} label="content" />;
  return (
    <ul class="parts">
      {content.map((part, i) =>
        isObject(part) && part.type === 'text' ? (
          <li key={i} data-part="text"><span class="kind">text</span> {String(part.text)}</li>
        ) : isObject(part) ? (
          <li key={i} data-part={String(part.type)}><span class="kind">{String(part.type)}</span> <Source source={part.source} /></li>
        ) : (
          <li key={i}><Json value={part} label={`content part ${i}`} /></li>
        ),
      )}
    </ul>
  );
}

