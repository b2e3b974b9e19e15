// Renders media/icon.svg to media/icon.png (128x128, transparent), the icon the marketplace needs.
// Uses Debian's Chromium through playwright-core:  node scripts/render-icon.mjs
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const root = new URL('..', import.meta.url).pathname;
const home = mkdtempSync(join(tmpdir(), 'render-icon-'));
const browser = await chromium.launch({
  executablePath: process.env.AGENT_WORKFLOWS_CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  env: { ...process.env, XDG_CONFIG_HOME: home, XDG_CACHE_HOME: home },
});
try {
  const page = await browser.newPage({ viewport: { width: 128, height: 128 } });
  const svg = readFileSync(join(root, 'media', 'icon.svg'), 'utf8');
  await page.setContent(`<html><body style="margin:0;background:transparent">${svg}</body></html>`);
  await page.screenshot({ path: join(root, 'media', 'icon.png'), omitBackground: true, clip: { x: 0, y: 0, width: 128, height: 128 } });
  console.log('wrote media/icon.png');
} finally {
  await browser.close();
  rmSync(home, { recursive: true, force: true });
}
