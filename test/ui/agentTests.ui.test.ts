// A person's run of agent tests: the packaged extension in VS Code, the fixture's test file
// (agent-tests/greeter.agent.test.yaml: one case passes, one fails) opened, the Test Explorer
// shown, Run All Tests from the command palette, the cases with their passed and failed icons and
// the failed expectation in the editor's peek. Takes the README's screenshot (out/screenshots/;
// `npm run screenshots` copies it to docs/images/).
import assert from 'node:assert/strict';
import { openWorkbench, runCommand, screenshotIfFailed, takeScreenshot, textOf } from './workbench';
import type { Workbench } from './workbench';

describe('UI: agent tests in the Test Explorer', function () {
  this.timeout(180_000);
  let workbench: Workbench;

  before(async () => {
    // A clean picture: no sticky lines over the cases, no highlights where the click lands.
    workbench = await openWorkbench({ settings: { 'editor.stickyScroll.enabled': false, 'editor.occurrencesHighlight': 'off' } });
  });
  after(async () => {
    await workbench?.close();
  });
  afterEach(async function () {
    await screenshotIfFailed(this.currentTest, workbench);
  });

  it('runs a test file from the Test Explorer: a case passes, the other fails with its expectation', async () => {
    const { page } = workbench;
    // The extension starts with an agent or test file: open the test file, as a person would.
    await page.locator('.explorer-viewlet .monaco-list-row', { hasText: 'agent-tests' }).first().click();
    await page.locator('.explorer-viewlet .monaco-list-row', { hasText: 'greeter.agent.test.yaml' }).first().click({ timeout: 15_000 });
    await page.locator('.tab.active', { hasText: 'greeter.agent.test.yaml' }).waitFor({ timeout: 15_000 });

    // The Testing view, from its icon in the activity bar.
    await page.locator('.activitybar .action-item a[aria-label^="Testing"]').click();
    const rows = page.locator('.test-explorer .monaco-list-row');
    await rows.filter({ hasText: 'greeter.agent.test.yaml' }).first().waitFor({ timeout: 30_000 });
    await runCommand(page, 'Test: Run All Tests');

    // The file's row shows the failure; its cases are shown once it is expanded.
    const fileRow = rows.filter({ hasText: 'greeter.agent.test.yaml' }).first();
    await fileRow.locator('.codicon-testing-failed-icon').waitFor({ timeout: 30_000 });
    const passedRow = rows.filter({ hasText: 'known person' }).first();
    const failedRow = rows.filter({ hasText: 'wrong title' }).first();
    if (!(await failedRow.isVisible())) await fileRow.locator('.monaco-tl-twistie').click();
    await passedRow.locator('.codicon-testing-passed-icon').waitFor({ timeout: 15_000 });
    await failedRow.locator('.codicon-testing-failed-icon').waitFor({ timeout: 15_000 });
    assert.equal(await passedRow.locator('.codicon-testing-failed-icon').count(), 0);
    // The run's summary: one of two passed.
    assert.match(await textOf(page, '.test-explorer .result-summary'), /^1\/2\b/);
    // The run's output for the failed case, shown beside its line in the editor (the Test Results
    // panel opens on a failure only on some runs, so it is not relied on).
    await page
      .locator('.monaco-editor .view-lines', { hasText: 'outputs.greeting: expected "Hello Dr Alan", got' })
      .first()
      .waitFor({ timeout: 15_000 });

    // The failed expectation at its line in the editor, in the test's peek (the panel closed to give it room).
    // (The command exists only while the panel shows: VS Code opens it on a failure in some runs.)
    if (await page.locator('.part.panel').first().isVisible()) await runCommand(page, 'View: Hide Panel');
    // A click on the failure shown beside the expectation (actual != expected) opens the peek.
    const inline = page.locator('.monaco-editor .test-error-content-widget', { hasText: 'Hello Mr Alan != Hello Dr Alan' }).first();
    await inline.click({ timeout: 15_000 });
    const peek = page.locator('.test-output-peek').first();
    await peek.waitFor({ timeout: 15_000 });
    await peek.filter({ hasText: 'outputs.greeting: expected "Hello Dr Alan", got "Hello Mr Alan"' }).waitFor({ timeout: 15_000 });
    // With the expected and actual values side by side.
    assert.match(await textOf(page, '.test-output-peek .editor.original .view-lines'), /^Hello Dr Alan\s*$/);
    assert.match(await textOf(page, '.test-output-peek .editor.modified .view-lines'), /^Hello Mr Alan\s*$/);

    // A clean picture for the README: no toasts, no hover.
    await runCommand(page, 'Notifications: Clear All Notifications');
    await page.locator('.notification-toast').first().waitFor({ state: 'hidden', timeout: 15_000 });
    await page.mouse.move(0, 0);
    await takeScreenshot(page, 'tests.png');
  });
});
