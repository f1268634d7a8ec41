// The dashboard acts on the local controller (npm start's: DynamoDB Local, the stream functions,
// agents as processes running charm hooks), driven in headless Chromium as a user would: a config
// value changed and the agent's config-changed seen in the log pane, an action run on a unit and
// its result read, a unit in hook error resolved, a relation removed, and a refusal shown in the
// controller's words. Every change is confirmed before it is sent, and one is made from the
// keyboard alone. Screenshots go to test-output/dashboard/ (or $DROVER_TEST_OUTPUT).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODEL_HEADER } from '#shared/api/model-header.js';
import type { StatusDoc } from '#shared/domain/status-document.js';
import { ApiClient } from '../../cli/client.js';
import { dashboardAssets } from '../../cli/dashboard/bundle.js';
import { startDashboardServer, type DashboardServer } from '../../cli/dashboard/server.js';
import { startController, type RunningController } from '../../embedded/controller.js';
import { browserMissing, distinctColours, launchBrowser, type Browser } from '../support/browser.js';
import { charmDir, REPO, runCli } from '../support/cli.js';
import { silentLogger } from '../support/silent-logger.js';
import { waitFor } from '../support/wait-for.js';

const OUTPUT = join(process.env.DROVER_TEST_OUTPUT ?? join(REPO, 'test-output'), 'dashboard');
const missing = browserMissing();
if (missing) console.warn(`dashboard acting browser tests skipped: ${missing}`);

let dataDir: string;
let home: string;
let controller: RunningController;
let dashboard: DashboardServer;
let browser: Browser;
let page: Page;

const cli = async (...args: string[]) => {
  const res = await runCli(args, { DROVER_HOME: home });
  expect(res.code, `${args.join(' ')}: ${res.stderr}`).toBe(0);
  return res.stdout;
};
const status = async () => JSON.parse(await cli('status', '--format', 'json')) as StatusDoc;

async function screenshot(name: string): Promise<void> {
  const png = await page.screenshot({ fullPage: true });
  await writeFile(join(OUTPUT, `${name}.png`), png);
  expect(await distinctColours(browser.context, png), `${name}.png looks blank`).toBeGreaterThan(20);
}

async function showView(view: string): Promise<void> {
  await page.click(`#tab-${view}`);
  await page.waitForSelector(`main[data-view="${view}"]`);
}

/** Confirms the change the page asks about, after checking it names the command the CLI would run. */
async function confirm(command: string): Promise<void> {
  const dialog = page.locator('[role="alertdialog"]');
  await dialog.waitFor();
  expect(await dialog.locator('code').textContent()).toBe(command);
  await dialog.locator('button', { hasText: 'Confirm' }).click();
}

beforeAll(async () => {
  if (missing) return;
  await mkdir(OUTPUT, { recursive: true });
  dataDir = mkdtempSync(join(tmpdir(), 'drover-e2e-dashboard-acting-'));
  home = mkdtempSync(join(tmpdir(), 'drover-e2e-dashboard-acting-home-'));
  controller = await startController({ dataDir, logger: silentLogger, timers: { reconcileMs: 2_000 } });
  await cli('register-local', dataDir);
  // One machine for all: one agent process, on a machine the CI shares.
  await cli('deploy', charmDir('action-box'));
  for (const charm of ['flaky', 'database', 'client']) await cli('deploy', charmDir(charm), '--to', '0');
  await cli('relate', 'client', 'database');
  await cli('add-secret', 'dashboard-pass', 'password=s3cret-value');
  await cli('grant-secret', 'dashboard-pass', 'action-box');
  await waitFor(
    'action-box/0 idle, flaky/0 in error, and client related to database',
    () => status(),
    (doc) =>
      doc.applications['action-box']?.units?.['action-box/0']?.['juju-status'].current === 'idle' &&
      doc.applications.flaky?.units?.['flaky/0']?.['workload-status'].current === 'error' &&
      (doc.relations ?? []).some((r) => r.key.includes('client:db')) &&
      doc.applications.client?.units?.['client/0']?.['juju-status'].current === 'idle',
    180_000,
  );
  const client = new ApiClient(
    { name: 'local', controller: { type: 'local', apiUrl: controller.apiUrl, token: controller.token } },
    { headers: { [MODEL_HEADER]: 'default' } },
  );
  dashboard = await startDashboardServer({
    client,
    assets: await dashboardAssets(),
    port: 0,
    title: 'drover local:default',
    revisionPollMs: 500,
  });
  browser = await launchBrowser();
  page = await browser.context.newPage();
  await page.goto(`${dashboard.url}#poll=500`);
  await page.waitForSelector('g.node[data-application="action-box"]');
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await dashboard?.close();
  await controller?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('the dashboard acting on the local controller', () => {
  it(
    "changes an application's config, confirmed first, and the log pane shows the agent's config-changed",
    { timeout: 120_000 },
    async (context) => {
      if (missing) return context.skip(missing);
      // The log pane, following action-box/0 only.
      await showView('Log');
      await page.fill('.log-filters input[name="include"]', 'action-box/0');
      await page.click('.log-filters button[type="submit"]');
      await page.waitForSelector('pre.log-pane:has-text("config-changed")');
      const configChanged = async () => ((await page.textContent('pre.log-pane')) ?? '').split('config-changed').length - 1;
      const before = await configChanged();

      await showView('Topology');
      await page.click('g.node[data-application="action-box"]');
      const form = page.locator('form.config-form');
      await form.locator('#config-colour').waitFor();
      expect(await form.locator('#config-colour').inputValue()).toBe('blue');
      await form.locator('#config-colour').fill('green');
      await form.locator('button[type="submit"]').click();
      // Nothing is sent before it is confirmed: cancelled, the setting stays.
      await page.locator('[role="alertdialog"] button', { hasText: 'Cancel' }).click();
      expect((await cli('config', 'action-box', 'colour')).trim()).toBe('blue');
      await form.locator('button[type="submit"]').click();
      await confirm('drover config action-box colour=green');
      await form.locator('[role="status"]:has-text("✔ Sent")').waitFor();
      expect((await cli('config', 'action-box', 'colour')).trim()).toBe('green');
      await form.locator('tr[data-key="colour"]:has-text("user")').waitFor();

      await showView('Log');
      await waitFor('config-changed in the log pane', configChanged, (n) => n > before, 60_000);
      expect(await page.inputValue('.log-filters input[name="include"]')).toBe('action-box/0');
      expect(await page.textContent('pre.log-pane')).not.toContain('unit-flaky-0');
      await screenshot('acting-log');
    },
  );

  it(
    'runs an action on a chosen unit from a form built from its parameters, and shows its result',
    { timeout: 120_000 },
    async (context) => {
      if (missing) return context.skip(missing);
      await showView('Units');
      await page.locator('table[data-table="Units"] button.link', { hasText: 'action-box/0' }).click();
      const form = page.locator('form.action-form');
      await form.locator('select[name="action"]').selectOption('greet');
      // Fields from the action's schema: a string with its default, an integer.
      expect(await form.locator('input[name="name"]').getAttribute('placeholder')).toBe('default "world"');
      expect(await form.locator('input[name="times"]').getAttribute('type')).toBe('number');
      await form.locator('input[name="name"]').fill('drover');
      await form.locator('input[name="times"]').fill('2');
      await form.locator('button[type="submit"]').click();
      await confirm('drover run action-box/0 greet name=drover times=2');
      const task = form.locator('li[data-task][data-status="completed"]');
      await task.waitFor({ timeout: 60_000 });
      const result = await task.locator('pre.results').textContent();
      expect(result).toContain('"greeting": "hello drover"');
      expect(result).toContain('"times": "2"');
      expect(result).toContain('"colour": "green"');
      await screenshot('acting-action');
    },
  );

  it('resolves a unit in hook error, from the keyboard, and the page shows it out of error', { timeout: 120_000 }, async (context) => {
    if (missing) return context.skip(missing);
    // What the hook lacked: its retry succeeds.
    writeFileSync(join(dataDir, 'machines', '0', 'units', 'flaky-0', 'allow-install'), '');
    await showView('Units');
    await page.locator('table[data-table="Units"] button.link', { hasText: 'flaky/0' }).click();
    await page.locator('.unit-actions button', { hasText: 'Resolve' }).focus();
    await page.keyboard.press('Enter');
    // The confirmation takes the focus: Enter sends it.
    await page.locator('[role="alertdialog"]').waitFor();
    // The focus moves once the dialog has rendered: waited for, as a user's next key would be.
    await waitFor(
      'the focus on Confirm',
      () => page.evaluate<string>('document.activeElement.textContent'),
      (t) => t === 'Confirm',
      10_000,
    );
    expect(await page.evaluate<string>('document.activeElement.textContent')).toBe('Confirm');
    expect(await page.textContent('[role="alertdialog"] code')).toBe('drover resolved flaky/0');
    await page.keyboard.press('Enter');
    await page.locator('.unit-actions [role="status"]:has-text("✔ Sent")').waitFor();
    await waitFor(
      'flaky/0 out of error in the page',
      () => page.textContent('table[data-table="Units"] tr:has-text("flaky/0")'),
      (row) => !(row ?? '').includes('error'),
      90_000,
    );
    await screenshot('acting-resolved');
  });

  it('shows a refusal in the controller’s words, changing nothing', { timeout: 60_000 }, async (context) => {
    if (missing) return context.skip(missing);
    const relations = async () => ((await status()).relations ?? []).map((r) => r.key);
    const before = await relations();
    await showView('Relations');
    await page.fill('form.relate input[name="first"]', 'nope');
    await page.fill('form.relate input[name="second"]', 'database');
    await page.click('form.relate button[type="submit"]');
    await confirm('drover relate nope database');
    const refusal = page.locator('form.relate [role="alert"]');
    await refusal.waitFor();
    expect(await refusal.textContent()).toContain('application "nope" not found');
    expect(await relations()).toEqual(before);
    await screenshot('acting-refused');
  });

  it(
    "shows a secret's owner, revisions and grants, and its content only when asked, by a call of its own",
    { timeout: 60_000 },
    async (context) => {
      if (missing) return context.skip(missing);
      const calls: string[] = [];
      const onRequest = (r: { url(): string; method(): string }) => void calls.push(`${r.method()} ${new URL(r.url()).pathname}`);
      page.on('request', onRequest);
      try {
        await showView('Secrets');
        const row = page.locator('table[data-table="Secrets"] tr', { hasText: 'dashboard-pass' });
        expect(await row.textContent()).toContain('<model>');
        await row.locator('button.link').click();
        const detail = page.locator('.secret');
        await detail.locator('ul.grants').waitFor();
        expect(await detail.locator('ul.grants').textContent()).toContain('action-box');
        expect(await page.textContent('main')).not.toContain('s3cret-value');
        expect(calls).not.toContain('POST /api/reveal-secret');
        await detail.locator('button', { hasText: 'Reveal content' }).click();
        await detail.locator('dl.content dd', { hasText: 's3cret-value' }).waitFor();
        expect(await detail.locator('dl.content dt').textContent()).toBe('password');
        expect(calls).toContain('POST /api/reveal-secret');
        await screenshot('acting-secret');
      } finally {
        page.off('request', onRequest);
      }
    },
  );

  it('removes a relation chosen on the topology, and it goes from the picture', { timeout: 120_000 }, async (context) => {
    if (missing) return context.skip(missing);
    await showView('Topology');
    const relation = page.locator('g.relation', { has: page.locator('polyline[data-relation*="client:db"]') });
    const key = await relation.getAttribute('data-relation');
    expect(await relation.locator('text.edge-label').textContent()).toContain('dbtest');
    await relation.click();
    await page.locator(`aside.detail[aria-label="relation ${key}"]`).waitFor();
    await page.locator('.relation-actions button', { hasText: 'Remove relation' }).click();
    await confirm(`drover remove-relation ${key}`);
    await page.waitForSelector(`g.relation[data-relation="${key}"]`, { state: 'detached', timeout: 90_000 });
    expect((await status()).relations ?? []).toEqual([]);
    await screenshot('acting-relation-removed');
  });
});
