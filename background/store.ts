/**
 * Persistence of captured sessions, so that Chrome stopping the idle service worker loses nothing.
 *
 * Each tab's session is stored as the log of capture messages it accepted plus a small meta record;
 * on start the worker replays the logs through the same code that built them. IndexedDB rather than
 * chrome.storage: storage.session and storage.local hold 10 MB each, and one tab may keep 64 MB. The
 * database is cleared whenever the browser starts, so nothing captured outlives the browser session.
 */
import type { DropCounts, PageMessage } from '../src/messages.ts';

export interface MetaRecord {
  tabId: number;
  url: string;
  preserve: boolean;
  /** False while the user has paused capture for the tab. */
  recording: boolean;
  /** Highest seq applied per relay document, so resent messages are recognised. */
  docs: Record<string, number>;
  /** Drops are counted when they happen; replaying the log does not recount them. */
  dropped: DropCounts;
  /** Next log position. */
  next: number;
  /** The tab's documents the page script did not reach (relay document id → URL); absent from records of older versions. */
  unreached?: Record<string, string>;
  /** The origin of each relay document that said hello (from the browser's sender, not the page); absent from records of older versions. */
  origins?: Record<string, string>;
}

/** One relay batch, as applied: chunk bytes are stored decoded, which is also what the store writes fastest. */
export interface LogRecord {
  /** The relay document that sent it; with a message's id it names the exchange. */
  doc: string;
  msgs: PageMessage[];
}

/** A log record at its position in its tab's log. */
export interface Append {
  tabId: number;
  n: number;
  record: LogRecord;
}

const DB = 'agui-inspector';
const META = 'meta';
const LOG = 'log';

function request<T>(r: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });
}

function done(tx: IDBTransaction): Promise<void> {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error ?? new Error('transaction aborted'));
  });
}

export class Store {
  private constructor(private readonly db: IDBDatabase) {}

  static async open(): Promise<Store> {
    // Version 2: log records hold batches. Older logs are dropped rather than converted.
    const r = indexedDB.open(DB, 2);
    r.onupgradeneeded = () => {
      for (const name of [META, LOG]) {
        if (r.result.objectStoreNames.contains(name)) r.result.deleteObjectStore(name);
        r.result.createObjectStore(name);
      }
    };
    return new Store(await request(r));
  }

  async load(): Promise<{ meta: MetaRecord; log: LogRecord[] }[]> {
    const tx = this.db.transaction([META, LOG], 'readonly');
    const metas = (await request(tx.objectStore(META).getAll())) as MetaRecord[];
    const out: { meta: MetaRecord; log: LogRecord[] }[] = [];
    for (const meta of metas) {
      const log = (await request(tx.objectStore(LOG).getAll(range(meta.tabId)))) as LogRecord[];
      out.push({ meta, log });
    }
    return out;
  }

  /**
   * One transaction, so all of it lands or none: first forgets the logs of `cleared` tabs and the logs
   * and meta of `removed` ones, then replaces meta records and appends log records.
   */
  async write(w: { metas: MetaRecord[]; appends: Append[]; cleared: number[]; removed: number[] }): Promise<void> {
    const tx = this.db.transaction([META, LOG], 'readwrite');
    const result = done(tx);
    try {
      for (const tabId of [...w.cleared, ...w.removed]) tx.objectStore(LOG).delete(range(tabId));
      for (const tabId of w.removed) tx.objectStore(META).delete(tabId);
      for (const m of w.metas) tx.objectStore(META).put(m, m.tabId);
      for (const a of w.appends) tx.objectStore(LOG).put(a.record, [a.tabId, a.n]);
    } catch (e) {
      // A request that throws (a record that cannot be cloned, say) must not let the others commit.
      result.catch(() => undefined);
      tx.abort();
      throw e;
    }
    await result;
  }

  async clearAll(): Promise<void> {
    const tx = this.db.transaction([META, LOG], 'readwrite');
    tx.objectStore(META).clear();
    tx.objectStore(LOG).clear();
    await done(tx);
  }
}

function range(tabId: number): IDBKeyRange {
  return IDBKeyRange.bound([tabId, 0], [tabId, Number.MAX_SAFE_INTEGER]);
}
