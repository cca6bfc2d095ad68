/**
 * The waits the e2e tests' in-page code shares. A function evaluated in a page cannot import, so this
 * module's `install` goes to each page as source (`inPage`), once, and the code evaluated there later
 * calls `e2e.frame()` and `e2e.settle()`. Every wait is bounded in time: a window the browser stops
 * painting never runs an animation frame, and an unbounded wait for one once held CI to its limit.
 */
import { TargetSession } from '../../scripts/devtools.ts';

interface InPage {
  /**
   * A render and its effects: the next animation frame and a task after it, or a second if no frame comes.
   * Preact runs effects (a view asks for its detail in one) in a task after a frame, or after 100 ms
   * without one; a shorter fallback would, on a loaded machine, read the view before they ran.
   */
  frame(): Promise<void>;
  /** A render, then renders until the view has its detail (it is aria-busy while asking) and `ok` holds, for at most 20 s. */
  settle(ok?: () => boolean): Promise<void>;
}

declare global {
  /** Defined in the page by `inPage`. */
  var e2e: InPage;
}

function install(): void {
  const frame = (): Promise<void> => new Promise((done) => {
    requestAnimationFrame(() => setTimeout(done, 0));
    setTimeout(done, 1000);
  });
  globalThis.e2e = {
    frame,
    async settle(ok = () => true) {
      const end = Date.now() + 20_000;
      do await frame();
      while ((document.querySelector('#view [aria-busy=true]') || !ok()) && Date.now() < end);
    },
  };
}

/** tsx compiles with keepNames: nested functions in evaluated source call esbuild's __name helper, defined here too. */
const SOURCE = `globalThis.__name = (f) => f; (${install.toString()})();`;

/** Defines `e2e` (and `__name`) in the page, a DevTools frame or an extension or web page, until it navigates. */
export async function inPage(p: TargetSession | { evaluate(source: string): Promise<unknown> }): Promise<void> {
  // A DevTools frame's eval defines __name for each evaluation itself.
  if (p instanceof TargetSession) await p.eval(install);
  else await p.evaluate(SOURCE);
}
