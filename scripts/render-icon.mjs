// Renders media/icon.svg to media/icon.png (128x128, transparent background), the extension icon the
// marketplace shows. Uses the system Chromium through playwright-core:
//   node scripts/render-icon.mjs
// AGENT_WORKFLOWS_CHROMIUM overrides the browser path (default /usr/bin/chromium).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const SIZE = 128;
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const svg = readFileSync(join(root, 'media', 'icon.svg'), 'utf8');
const output = join(root, 'media', 'icon.png');

// A throw-away profile, so the browser writes nothing into the user's home.
const home = mkdtempSync(join(tmpdir(), 'render-icon-'));
const browser = await chromium.launch({
  executablePath: process.env.AGENT_WORKFLOWS_CHROMIUM || '/usr/bin/chromium',
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-dev-shm-usage',
  ],
  env: { ...process.env, XDG_CONFIG_HOME: home, XDG_CACHE_HOME: home },
});
try {
  const page = await browser.newPage({ viewport: { width: SIZE, height: SIZE }, deviceScaleFactor: 1 });
  const image = `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
  await page.setContent(
    `<!doctype html><html><body style="margin:0;background:transparent">` +
      `<img src="${image}" width="${SIZE}" height="${SIZE}" style="display:block"></body></html>`,
  );
  await page.locator('img').evaluate((img) => (img.complete ? undefined : new Promise((done) => (img.onload = done))));
  await page.screenshot({ path: output, omitBackground: true, clip: { x: 0, y: 0, width: SIZE, height: SIZE } });
  console.log(`wrote ${output}`);
} finally {
  await browser.close();
  rmSync(home, { recursive: true, force: true });
}
