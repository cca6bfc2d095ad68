/**
 * `npm run labs:install`: installs test/labs' own packages (real framework releases that depend on
 * pre-1.0 @ag-ui/* versions the root cannot hold beside its 1.0.0) from its committed lock, only
 * when they are missing or the lock has changed since the last install.
 */
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const LABS = fileURLToPath(new URL('../test/labs/', import.meta.url));
const mtime = (p: string): number => {
  try {
    return statSync(p).mtimeMs;
  } catch {
    return -1;
  }
};

// npm writes node_modules/.package-lock.json at the end of every install.
const installed = mtime(join(LABS, 'node_modules', '.package-lock.json'));
if (installed < mtime(join(LABS, 'package-lock.json'))) {
  execFileSync('npm', ['ci', '--prefix', LABS, '--no-audit', '--no-fund'], {
    stdio: 'inherit',
    // Browsers come from Debian only; no package may download its own.
    env: { ...process.env, PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1', PUPPETEER_SKIP_DOWNLOAD: '1' },
  });
} else {
  console.log('test/labs: packages up to date');
}
