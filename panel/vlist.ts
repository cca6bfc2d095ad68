/**
 * A virtualised list: only the rows in view (and a few either side) are rendered, so a list of 100,000
 * rows costs what its screen costs. The rows are `rowHeight` high, absolutely placed in a spacer.
 */
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';

const OVERSCAN = 8;

export interface VirtualRows {
  ref: { current: HTMLDivElement | null };
  /** The rows to render: `first` to `last`, exclusive. */
  first: number;
  last: number;
  /** The list's height in rows, for paging. */
  page: number;
  onScroll: (e: { currentTarget: HTMLDivElement }) => void;
}

/** The window of `count` rows in view; `active` is scrolled into view whenever it changes. */
export function useVirtualRows(count: number, rowHeight: number, active: number): VirtualRows {
  const ref = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [height, setHeight] = useState(300);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    setHeight(el.clientHeight || 300);
    const ro = new ResizeObserver(() => setHeight(el.clientHeight || 300));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  // A row chosen from elsewhere (a finding, a stripped member) is brought into view.
  useEffect(() => {
    const el = ref.current;
    if (!el || active < 0) return;
    const top = active * rowHeight;
    if (top < el.scrollTop || top + rowHeight > el.scrollTop + el.clientHeight) {
      el.scrollTop = Math.max(0, top - el.clientHeight / 2);
      setScrollTop(el.scrollTop);
    }
  }, [active]);
  return {
    ref,
    first: Math.max(0, Math.floor(scrollTop / rowHeight) - OVERSCAN),
    last: Math.min(count, Math.ceil((scrollTop + height) / rowHeight) + OVERSCAN),
    page: Math.max(1, Math.floor(height / rowHeight) - 1),
    onScroll: (e) => setScrollTop(e.currentTarget.scrollTop),
  };
}

/** The keys that move a selection through a list of `count` rows, `page` at a time. */
export function listKeys(active: number, count: number, page: number, move: (row: number) => void): (ev: KeyboardEvent) => void {
  const to = (r: number): void => {
    if (count > 0) move(Math.max(0, Math.min(count - 1, r)));
  };
  return (ev) => {
    const keys: Record<string, () => void> = {
      ArrowDown: () => to(active + 1),
      ArrowUp: () => to(active < 0 ? 0 : active - 1),
      PageDown: () => to(active + page),
      PageUp: () => to(active - page),
      Home: () => to(0),
      End: () => to(count - 1),
    };
    const k = keys[ev.key];
    if (k) {
      ev.preventDefault();
      k();
    }
  };
}
