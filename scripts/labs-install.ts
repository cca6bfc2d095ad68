/**
 * `npm run labs:install`: installs test/labs' own packages (real framework releases that depend on
 * pre-1.0 @ag-ui/* versions the root cannot hold beside its 1.0.0) from its committed lock, only
 * when they are missing or the lock's content has changed since the last install.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const LABS = fileURLToPath(new URL('../test/labs/', import.meta.url));
const read = (p: string): string | null => {
  try {
    return readFileSync(p, 'utf8');
  } catch {
    return null;
  }
};

// The lock's content decides, not file times: a fresh checkout or a second worktree sharing these
// packages has a newer lock file with the same content, and must not reinstall under a running test.
const lock = createHash('sha256').update(read(join(LABS, 'package-lock.json')) ?? '').digest('hex');
const marker = join(LABS, 'node_modules', '.agui-installed-lock');
if (read(marker) !== lock) {
  execFileSync('npm', ['ci', '--prefix', LABS, '--no-audit', '--no-fund'], {
    stdio: 'inherit',
    // Browsers come from Debian only; no package may download its own.
    env: { ...process.env, PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1', PUPPETEER_SKIP_DOWNLOAD: '1' },
  });
  writeFileSync(marker, lock);
} else {
  console.log('test/labs: packages up to date');
}
