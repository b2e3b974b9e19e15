// A person's view of the workflow graph: the packaged extension in VS Code, an example agent opened,
// "Agent Workflows: Show Graph" run from the command palette, the graph drawn beside the editor,
// and a click on a node selecting it in the YAML. Takes the README's screenshot (out/screenshots/;
// `npm run screenshots` copies it to docs/images/).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { FrameLocator, Page } from 'playwright-core';
import { findRepoRoot } from '../host/common';
import { openWorkbench, runCommand, screenshotIfFailed, takeScreenshot, textOf } from './workbench';
import type { Workbench } from './workbench';

const repoRoot = findRepoRoot();

/** The graph's page: webviews live in an iframe (the host) holding another (the content). */
function graphFrame(page: Page): FrameLocator {
  return page.locator('iframe.webview.ready').first().contentFrame().locator('iframe#active-frame').contentFrame();
}

/** The little of the DOM the page-side checks use (the tests are type-checked without the DOM library). */
interface Rect {
  readonly left: number;
  readonly top: number;
  readonly right: number;
  readonly bottom: number;
}
interface PageElement {
  readonly clientLeft: number;
  readonly clientTop: number;
  readonly clientWidth: number;
  readonly clientHeight: number;
  readonly scrollLeft: number;
  readonly scrollTop: number;
  readonly dataset: Record<string, string | undefined>;
  getBoundingClientRect(): Rect;
  querySelectorAll(selector: string): Iterable<PageElement>;
  closest(selector: string): PageElement | null;
}

/** Where the boxes are, from the page's own DOM: the viewport's visible area and every box's rectangle. */
interface GraphView {
  /** The viewport's visible area (inside its border and scroll bars), in the page's coordinates. */
  readonly visible: Rect;
  /** Keys of the boxes not wholly inside the visible area. */
  readonly cut: readonly string[];
  readonly boxes: number;
  /** Width of the widest box, which grows and shrinks with the zoom. */
  readonly boxWidth: number;
  readonly scrollLeft: number;
  readonly scrollTop: number;
  /** A point of the background (no box there), for dragging. */
  readonly background: { readonly x: number; readonly y: number } | undefined;
  readonly zoom: string;
}

async function graphView(graph: FrameLocator): Promise<GraphView> {
  return graph.locator('#viewport').evaluate((element): GraphView => {
    const viewport = element as unknown as PageElement;
    const outer = viewport.getBoundingClientRect();
    const left = outer.left + viewport.clientLeft;
    const top = outer.top + viewport.clientTop;
    const visible = { left, top, right: left + viewport.clientWidth, bottom: top + viewport.clientHeight };
    const cut: string[] = [];
    let boxes = 0;
    let boxWidth = 0;
    for (const box of viewport.querySelectorAll('.gnode')) {
      boxes++;
      const rect = box.getBoundingClientRect();
      boxWidth = Math.max(boxWidth, rect.right - rect.left);
      const slack = 0.5;
      if (
        rect.left < visible.left - slack ||
        rect.top < visible.top - slack ||
        rect.right > visible.right + slack ||
        rect.bottom > visible.bottom + slack
      )
        cut.push(box.dataset.key ?? '?');
    }
    const doc = (globalThis as unknown as { document: { elementFromPoint(x: number, y: number): PageElement | null } }).document;
    let background: { x: number; y: number } | undefined;
    for (let y = visible.top + 10; !background && y < visible.bottom - 10; y += 15)
      for (let x = visible.left + 10; !background && x < visible.right - 10; x += 15) {
        const hit = doc.elementFromPoint(x, y);
        if (hit && !hit.closest('.gnode') && hit.closest('#viewport')) background = { x, y };
      }
    const zoom = (
      globalThis as unknown as { document: { getElementById(id: string): { textContent: string } | null } }
    ).document.getElementById('zoom-level');
    return {
      visible,
      cut,
      boxes,
      boxWidth,
      scrollLeft: viewport.scrollLeft,
      scrollTop: viewport.scrollTop,
      background,
      zoom: zoom?.textContent ?? '',
    };
  });
}

/** Polls the page until `check` holds of its view (layout follows a resize a frame or two later). */
async function waitForView(graph: FrameLocator, what: string, check: (view: GraphView) => boolean): Promise<GraphView> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const view = await graphView(graph);
    if (check(view)) return view;
    if (Date.now() > deadline) assert.fail(`${what}; the page shows ${JSON.stringify(view)}`);
    await graph
      .locator('body')
      .evaluate(
        () =>
          new Promise((resolve) =>
            (globalThis as unknown as { requestAnimationFrame(f: () => void): void }).requestAnimationFrame(() => resolve(null)),
          ),
      );
  }
}

const allVisible = (view: GraphView) => view.boxes === 8 && view.cut.length === 0;

describe('UI: workflow graph', function () {
  this.timeout(180_000);
  let workbench: Workbench;

  before(async () => {
    workbench = await openWorkbench({ extraFiles: { 'customer-360.agent.yaml': join(repoRoot, 'examples', 'customer-360.agent.yaml') } });
  });
  after(async () => {
    await workbench?.close();
  });
  afterEach(async function () {
    await screenshotIfFailed(this.currentTest, workbench);
  });

  it('draws the graph of an agent beside it from the command palette', async () => {
    const { page } = workbench;
    await page.locator('.explorer-viewlet .monaco-list-row', { hasText: 'customer-360.agent.yaml' }).click({ timeout: 30_000 });
    await page.locator('.monaco-editor .view-line', { hasText: 'Customer 360' }).first().waitFor();
    // More room for the graph: hide the side bar.
    await runCommand(page, 'View: Toggle Primary Side Bar Visibility');
    await page.locator('.explorer-viewlet').waitFor({ state: 'hidden' });

    await runCommand(page, 'Agent Workflows: Show Graph');
    await page.locator('.tab', { hasText: 'Graph: customer-360.agent.yaml' }).waitFor({ timeout: 30_000 });
    const graph = graphFrame(page);
    await graph.locator('.gnode').first().waitFor({ timeout: 30_000 });

    assert.equal(await graph.locator('.gnode').count(), 8);
    assert.equal(await graph.locator('path.gedge').count(), 9);
    for (const name of ['customer_id', 'profile', 'invoices', 'tickets', 'summary']) {
      assert.ok((await graph.locator('.gnode-name', { hasText: name }).count()) >= 1, name);
    }
    const node = (key: string) => graph.locator(`.gnode[data-key="${key}"]`);
    assert.match(await node('node:profile').innerText(), /API\s+profile\s+GET\s+crm\.example\.com\s+Bearer/);
    assert.match(await node('node:invoices').innerText(), /POST\s+billing\.example\.com\s+Basic/);
    assert.match(await node('node:tickets').innerText(), /GET\s+support\.example\.com\s+API key in URL/);
    assert.match(await node('node:summary').innerText(), /TEXT\s+summary/);
    assert.equal((await graph.locator('#status').innerText()).trim(), 'No problems');
    // The whole drawing fits the half-width panel: no box cut at its edges.
    await waitForView(graph, 'every box is visible in the panel after it opened', allVisible);
    // Themed: the page takes its colours from VS Code's variables (Dark Modern here).
    // (Runs in the page; the tests are type-checked without the DOM library.)
    const background = await graph
      .locator('body')
      .evaluate(
        (body) =>
          (globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }).getComputedStyle(body).backgroundColor,
      );
    assert.equal(background, 'rgb(31, 31, 31)');
  });

  it('selects a clicked node in the YAML editor', async () => {
    const { page } = workbench;
    const graph = graphFrame(page);
    await graph.locator('.gnode[data-key="node:invoices"]').click();
    // "invoices" (8 characters, columns 3 to 11) on line 20 of the example is selected; the status bar shows the cursor at its end.
    const selection = page.locator('.statusbar-item[id="status.editor.selection"]');
    await selection.filter({ hasText: /Ln 20, Col 11 \(8 selected\)/ }).waitFor({ timeout: 15_000 });
    assert.match(await textOf(page, '.statusbar-item[id="status.editor.selection"]'), /Ln 20, Col 11 \(8 selected\)/);
    await page.locator('.monaco-editor.focused').waitFor();

    // Keep the pointer on the node so its edges stay lit in the picture.
    await graph.locator('.gnode[data-key="node:invoices"]').hover();
    await takeScreenshot(page, 'graph.png');
  });

  it('fits the drawing to a narrower panel, zooms, pans and fits again', async () => {
    const { page } = workbench;
    const graph = graphFrame(page);
    const wide = await waitForView(graph, 'every box is visible before the resize', allVisible);
    // The side bar shown again makes the panel narrower: the drawing shrinks to fit it.
    await runCommand(page, 'View: Toggle Primary Side Bar Visibility');
    await page.locator('.explorer-viewlet').waitFor();
    const narrow = await waitForView(
      graph,
      'every box is visible in the narrower panel',
      (view) => view.visible.right - view.visible.left < wide.visible.right - wide.visible.left - 100 && allVisible(view),
    );
    assert.ok(narrow.boxWidth < wide.boxWidth, `${narrow.boxWidth} < ${wide.boxWidth}`);
    assert.match(narrow.zoom, /^\d+%$/);

    // Zoomed in past the panel's size, the drawing overflows it...
    for (let i = 0; i < 4; i++) await graph.getByRole('button', { name: 'Zoom in', exact: true }).click();
    const zoomed = await waitForView(graph, 'zoomed in, boxes leave the viewport', (view) => view.cut.length > 0);
    assert.ok(zoomed.boxWidth > narrow.boxWidth * 1.5, `${zoomed.boxWidth} > 1.5 × ${narrow.boxWidth}`);
    assert.notEqual(zoomed.zoom, narrow.zoom);

    // ...and dragging the background moves it.
    const start = zoomed.background;
    assert.ok(start, 'a point of the background to drag');
    const frameBox = await graph.locator('#viewport').boundingBox();
    assert.ok(frameBox);
    const offset = { x: frameBox.x - zoomed.visible.left, y: frameBox.y - zoomed.visible.top };
    const scrollBefore = { left: zoomed.scrollLeft, top: zoomed.scrollTop };
    // Dragging towards the top left shows what is right and below, as far as there is more of it.
    const dragFrom = { x: start.x + offset.x, y: start.y + offset.y };
    await page.mouse.move(dragFrom.x, dragFrom.y);
    await page.mouse.down();
    await page.mouse.move(dragFrom.x - 60, dragFrom.y - 20, { steps: 6 });
    await page.mouse.up();
    const panned = await waitForView(graph, 'the drag scrolled the drawing', (view) => view.scrollLeft > scrollBefore.left + 30);
    assert.equal(panned.zoom, zoomed.zoom);
    // No box was clicked: the drag did not select anything in the YAML.
    assert.equal(await page.locator('.monaco-editor.focused').count(), 0);

    // The user's zoom survives a resize of the panel...
    await runCommand(page, 'View: Toggle Primary Side Bar Visibility');
    await page.locator('.explorer-viewlet').waitFor({ state: 'hidden' });
    await waitForView(
      graph,
      'the panel grew',
      (view) => view.visible.right - view.visible.left > narrow.visible.right - narrow.visible.left + 100,
    );
    assert.equal((await graphView(graph)).zoom, zoomed.zoom);

    // ...until Fit brings the whole drawing back.
    await graph.getByRole('button', { name: 'Fit', exact: true }).click();
    await waitForView(graph, 'after Fit every box is visible', allVisible);

    // The keyboard, on the focused canvas: + zooms in, arrows pan, 0 fits again.
    await graph.locator('#viewport').focus();
    await page.keyboard.press('+');
    await page.keyboard.press('+');
    await page.keyboard.press('+');
    const byKeys = await waitForView(graph, '+ zoomed in', (view) => view.cut.length > 0);
    await page.keyboard.press('ArrowRight');
    await waitForView(graph, 'the right arrow scrolled', (view) => view.scrollLeft > byKeys.scrollLeft);
    await page.keyboard.press('0');
    const fitted = await waitForView(graph, '0 fitted the drawing again', allVisible);

    // Ctrl + wheel (what a pinch on a touchpad sends) zooms around the pointer: the box under it stays under it
    // across (the zoomed drawing is wider than the panel but still lower: it has no room to move up).
    const box = graph.locator('.gnode[data-key="node:summary"]');
    const boxBefore = await box.boundingBox();
    assert.ok(boxBefore);
    const pointer = { x: boxBefore.x + boxBefore.width / 2, y: boxBefore.y + boxBefore.height / 2 };
    await page.mouse.move(pointer.x, pointer.y);
    await page.keyboard.down('Control');
    await page.mouse.wheel(0, -200);
    await page.keyboard.up('Control');
    const wheeled = await waitForView(graph, 'Ctrl + wheel zoomed in', (view) => view.boxWidth > fitted.boxWidth * 1.2);
    assert.notEqual(wheeled.zoom, fitted.zoom);
    const boxAfter = await box.boundingBox();
    assert.ok(boxAfter);
    assert.ok(
      boxAfter.x <= pointer.x && pointer.x <= boxAfter.x + boxAfter.width,
      `the pointer ${JSON.stringify(pointer)} is still on the box ${JSON.stringify(boxAfter)}`,
    );

    // 100% shows the drawing at its real size.
    await graph.getByRole('button', { name: 'Zoom to 100%', exact: true }).click();
    await waitForView(graph, 'the zoom is 100%', (view) => view.zoom === '100%');
  });
});
