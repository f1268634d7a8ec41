// `drover dashboard` in a real browser (headless Chromium) against a real API over DynamoDB
// Local: the topology shows every application and relation, a unit in hook error is red with its
// message, a removed application goes dying and then away without a reload, the stuck view gives
// the command that frees a unit, the model switcher shows another model without a reload, and
// every view fits 1280x800 and a phone's 390x844 and is reached from the keyboard. Agent-side facts
// (statuses, a unit's death) are written as the agents would, as in test/e2e/cli-status.test.ts.
// Screenshots of every view are kept under test-output/dashboard/ (or $DROVER_TEST_OUTPUT) and
// must show more than a blank page.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setMachineAgentStatus, setUnitStatus } from '#shared/state/operations/agent-status.js';
import { recordPresence } from '#shared/state/operations/presence.js';
import { recordInstance } from '#shared/state/operations/provisioning.js';
import { storeOfModel } from '#shared/state/queries/models.js';
import { ICON, type Level } from '../../cli/dashboard/ui/severity.js';
import { browserMissing, distinctColours, launchBrowser, type Browser } from '../support/browser.js';
import { charmDir, expectOk, REPO, startCliController, type CliHarness, type CliResult } from '../support/cli.js';
import { waitFor } from '../support/wait-for.js';
import { agentsTurn } from '../support/model-agents.js';

const OUTPUT = join(process.env.DROVER_TEST_OUTPUT ?? join(REPO, 'test-output'), 'dashboard');
const missing = browserMissing();
if (missing) console.warn(`dashboard browser tests skipped: ${missing}`);

/** Page source (no DOM types here): how wide the page is laid out, scrolled sideways or not. */
const PAGE_WIDTH = 'document.documentElement.scrollWidth';
/** Page source: whether the focused element matches a selector. */
const focusedIs = (selector: string) => `document.activeElement?.matches(${JSON.stringify(selector)}) ?? false`;
const VIEWS = ['Topology', 'Applications', 'Units', 'Machines', 'Relations', 'Stuck', 'Log', 'Secrets'];
/** The views that are not a table. */
const NOT_TABLES = ['Topology', 'Stuck', 'Log'];
/** The viewports the dashboard is made for (docs/dashboard.md): a 1280x800 screen and a phone's. */
const VIEWPORTS = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
];
/** The one DOM function the checks call inside the page. */
interface WithStyles {
  getComputedStyle(element: unknown): { stroke: string };
}

const HARDWARE = 'arch=amd64 cores=2 mem=4096M root-disk=8192M availability-zone=local-a';

let ctl: CliHarness;
let browser: Browser;
let page: Page;
/** The one-time link the command printed. */
let url: string;
/** The page once the browser holds the session (its cookie): every further page of this browser opens it. */
let home: string;
const interrupt = new AbortController();
let dashboard: Promise<CliResult>;

/** Saves a screenshot of the page and checks it is not blank. */
async function screenshot(target: Page, name: string): Promise<void> {
  const png = await target.screenshot({ fullPage: true });
  await writeFile(join(OUTPUT, `${name}.png`), png);
  expect(await distinctColours(browser.context, png), `${name}.png looks blank`).toBeGreaterThan(20);
}

async function showView(view: string, on: Page = page): Promise<void> {
  await on.click(`#tab-${view}`);
  await on.waitForSelector(`main[data-view="${view}"]`);
}

/** The page is laid out no wider than its window: nothing scrolls the document sideways. */
async function expectNoOverflow(on: Page, what: string): Promise<void> {
  const [scrolled, inner] = await Promise.all([on.evaluate<number>(PAGE_WIDTH), on.evaluate<number>('innerWidth')]);
  expect(scrolled, `${what} is wider than the window`).toBeLessThanOrEqual(inner);
}

/** Presses Tab (or Shift+Tab) until the focus is on what the selector names; fails after 40 presses. */
async function tabTo(on: Page, selector: string, key = 'Tab'): Promise<void> {
  for (let presses = 0; presses < 40; presses++) {
    await on.keyboard.press(key);
    if (await on.evaluate<boolean>(focusedIs(selector))) return;
  }
  throw new Error(`${key} never reached ${selector}`);
}

/** Every status badge and node on the page shows its level's icon and a word beside its colour. */
async function expectIconAndWord(on: Page): Promise<number> {
  const shown = await on.$$eval('.badge[data-level], g.node[data-level]', (elements) =>
    elements.map((e) => ({ level: e.getAttribute('data-level') ?? '', text: e.textContent ?? '' })),
  );
  for (const { level, text } of shown) {
    expect(Object.keys(ICON), text).toContain(level);
    expect(text, `level ${level}`).toContain(`${ICON[level as Level]} `);
    expect(text.replaceAll(ICON[level as Level], '').trim().length, `level ${level}`).toBeGreaterThan(0);
  }
  return shown.length;
}

beforeAll(async () => {
  if (missing) return;
  await mkdir(OUTPUT, { recursive: true });
  // The changes function on the stream moves the model's revision, which the dashboard follows.
  ctl = await startCliController({ changes: true });
  for (const charm of ['cli-wordpress', 'cli-mysql', 'cli-logging', 'peer']) await expectOk(ctl, ['deploy', charmDir(charm)]);
  await expectOk(ctl, ['relate', 'wordpress', 'mysql']);
  await expectOk(ctl, ['relate', 'wordpress', 'logging']);
  // Machines 0-2 (wordpress, mysql, peer) started, their agents talking, as the provider and agents would record.
  for (const machine of ['0', '1', '2']) {
    await recordInstance(ctl.store, machine, {
      instanceId: `local-${machine}`,
      attempt: 0,
      hardware: HARDWARE,
      addresses: [`10.0.0.1${machine}`],
    });
    await setMachineAgentStatus(ctl.store, machine, { current: 'started' });
    await recordPresence(ctl.store, machine, 0);
  }
  await setUnitStatus(ctl.store, 'wordpress/0', { agent: { current: 'idle' }, workload: { current: 'active', message: 'Ready' } });
  await setUnitStatus(ctl.store, 'peer/0', { agent: { current: 'idle' }, workload: { current: 'active' } });
  await setUnitStatus(ctl.store, 'mysql/0', { agent: { current: 'error', message: 'hook failed: "install"' } });
  // A second model with an application of its own; `default` stays the current one.
  await expectOk(ctl, ['add-model', 'staging', '--no-switch']);
  await expectOk(ctl, ['-m', 'staging', 'deploy', charmDir('database')]);
  await setUnitStatus(await storeOfModel(ctl.store, 'staging'), 'database/0', {
    workload: { current: 'blocked', message: 'only in staging' },
  });

  let announced: (text: string) => void = () => undefined;
  const printed = new Promise<string>((resolve) => (announced = resolve));
  let stdout = '';
  dashboard = ctl.run(['dashboard', '--port', '0', '--no-browser'], {
    signal: interrupt.signal,
    onStdout: (text) => {
      stdout += text;
      const found = /http:\/\/127\.0\.0\.1:\d+\/open\?token=\S+/.exec(stdout);
      if (found) announced(found[0]);
    },
  });
  void dashboard.then((res) => announced(`exited ${res.code}: ${res.stderr}`));
  url = await printed;
  expect(url).toMatch(/^http/);
  browser = await launchBrowser();
  page = await browser.context.newPage();
  // Poll twice a second if polling, and read at most that often when told of changes: the test
  // waits for changes, not for the 5 s a person would.
  await page.goto(`${url}#poll=500`);
  // The link is spent, and the page no longer shows it: the browser holds the session as a cookie.
  expect(new URL(page.url()).pathname).toBe('/');
  home = `${new URL(url).origin}/#poll=500`;
}, 120_000);

afterAll(async () => {
  await browser?.close();
  interrupt.abort();
  await dashboard;
  await ctl?.close();
});

describe('drover dashboard in a browser', () => {
  it('draws every application and relation, each relation labelled; a peer relation is a loop, a subordinate one dashed', async (context) => {
    if (missing) return context.skip(missing);
    for (const application of ['wordpress', 'mysql', 'logging', 'peer'])
      await page.waitForSelector(`g.node[data-application="${application}"]`);
    const edges = await page.$$eval('polyline.edge', (lines) =>
      lines.map((l) => `${l.getAttribute('data-relation')} ${l.getAttribute('class')}`),
    );
    expect(edges.sort()).toEqual([
      'logging:logging-directory wordpress:logging-dir edge container',
      'wordpress:db mysql:server edge regular',
    ]);
    expect(await page.textContent('g.peer[data-relation="peer:ring"]')).toContain('⟲ ring');
    expect(await page.locator('g.peer[data-relation="peer:ring"] path.peer-loop').count()).toBe(1);
    // Each edge says its endpoints and its interface; a subordinate one says so.
    const labelOf = (key: string) => page.textContent(`g.relation[data-relation="${key}"] text.edge-label`);
    expect(await labelOf('wordpress:db mysql:server')).toBe('wordpress:db ⟷ mysql:servermysql');
    expect(await labelOf('logging:logging-directory wordpress:logging-dir')).toBe(
      'logging:logging-directory ⟷ wordpress:logging-dirlogging · subordinate',
    );
    expect(await page.textContent('g.node[data-application="wordpress"]')).toContain('1 unit · ok');
    // Each node counts its units at each level.
    expect(await page.textContent('g.node[data-application="wordpress"] text.counts')).toBe('✔ 1 ok');
    expect(await page.textContent('g.node[data-application="mysql"] text.counts')).toBe('✖ 1 error');
    expect(await page.textContent('p.updated')).toMatch(/Last updated \d/);
    await screenshot(page, 'topology');
  });

  it('shows a unit in hook error red, with its message, as icon and word too', async (context) => {
    if (missing) return context.skip(missing);
    const mysql = page.locator('g.node[data-application="mysql"]');
    expect(await mysql.getAttribute('data-level')).toBe('error');
    expect(await mysql.locator('rect').evaluate((rect) => (globalThis as unknown as WithStyles).getComputedStyle(rect).stroke)).toBe(
      'rgb(198, 40, 40)',
    );
    const text = await mysql.textContent();
    expect(text).toContain('✖ mysql');
    expect(text).toContain('hook failed: "install"');
    await showView('Units');
    const row = page.locator('table[data-table="Units"] tr', { hasText: 'mysql/0' });
    expect(await row.textContent()).toContain('hook failed: "install"');
    expect(await row.locator('.badge[data-level="error"]').first().textContent()).toContain('error');
    await screenshot(page, 'units');
  });

  it('has sortable, filterable tables of applications, machines and relations', async (context) => {
    if (missing) return context.skip(missing);
    await showView('Applications');
    const names = () => page.$$eval('table[data-table="Applications"] tbody tr td:first-child', (cells) => cells.map((c) => c.textContent));
    expect(await names()).toEqual(['logging', 'mysql', 'peer', 'wordpress']);
    await page.click('table[data-table="Applications"] th:first-child button');
    expect(await names()).toEqual(['wordpress', 'peer', 'mysql', 'logging']);
    await page.fill('section[aria-label="Applications"] input[type="search"]', 'sql');
    expect(await names()).toEqual(['mysql']);
    await screenshot(page, 'applications');
    await showView('Machines');
    expect(await page.$$eval('table[data-table="Machines"] tbody tr', (rows) => rows.length)).toBe(3);
    await screenshot(page, 'machines');
    await showView('Relations');
    expect(await page.textContent('table[data-table="Relations"]')).toContain('peer:ring');
    await screenshot(page, 'relations');
  });

  it('opens a unit’s status history and log from the keyboard', async (context) => {
    if (missing) return context.skip(missing);
    await page.focus('#tab-Relations');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    await page.waitForSelector('main[data-view="Units"]');
    await page.locator('table[data-table="Units"] button.link', { hasText: 'mysql/0' }).focus();
    await page.keyboard.press('Enter');
    const detail = page.locator('aside.detail');
    await detail.locator('ol.history li').first().waitFor();
    expect(await detail.textContent()).toContain('hook failed: "install"');
    await screenshot(page, 'unit-detail');
  });

  it("shows an application's config and constraints when its node is chosen", async (context) => {
    if (missing) return context.skip(missing);
    await expectOk(ctl, ['set-constraints', 'mysql', 'mem=2G']);
    await showView('Topology');
    await page.click('g.node[data-application="mysql"]');
    const detail = page.locator('aside.detail');
    await detail.locator('table.config').waitFor();
    expect(await detail.locator('h2').textContent()).toBe('application mysql');
    expect(await detail.locator('#config-max-connections').inputValue()).toBe('100');
    expect(await detail.locator('table.config tr[data-key="max-connections"]').textContent()).toContain('int · default');
    expect(await detail.locator('p.constraints').textContent()).toBe('arch=amd64 mem=2048M');
    await screenshot(page, 'application-detail');
    // Click through to one of its units.
    await detail.locator('dd button.link', { hasText: 'mysql/0' }).click();
    await page.locator('aside.detail[aria-label="unit mysql/0"] ol.history li').first().waitFor();
  });

  it('shows a change without a reload when the server tells it the model changed, reading nothing while it is idle', async (context) => {
    if (missing) return context.skip(missing);
    await showView('Topology');
    await page.evaluate(() => ((globalThis as { notReloaded?: boolean }).notReloaded = true));
    const updated = page.locator('p.updated');
    expect(await updated.getAttribute('data-live')).toBe('pushed');
    const reads: string[] = [];
    const onRequest = (request: { url(): string }) => {
      if (new URL(request.url()).pathname === '/api/status') reads.push(request.url());
    };
    page.on('request', onRequest);
    try {
      // Idle: polling (every 500 ms here) would read the status about 6 times; told of nothing,
      // the page reads at most its once-a-minute safety read.
      await page.waitForTimeout(3_000);
      expect(reads.length).toBeLessThanOrEqual(1);
      const before = Number(await updated.getAttribute('data-revision'));
      await setUnitStatus(ctl.store, 'wordpress/0', { workload: { current: 'active', message: 'Serving 42 requests' } });
      await page.waitForSelector('g.node[data-application="wordpress"]:has-text("Serving 42 requests")');
      // The read that showed it was made for a revision the server told after the change.
      expect(Number(await updated.getAttribute('data-revision'))).not.toBe(before);
      expect(await page.evaluate(() => (globalThis as { notReloaded?: boolean }).notReloaded)).toBe(true);
      expect(await updated.textContent()).toMatch(/Last updated \d/);
    } finally {
      page.off('request', onRequest);
    }
  });

  it(
    'a removed application goes dying, its unit in error is stuck with the command that frees it, then it goes, all without a reload',
    { timeout: 90_000 },
    async (context) => {
      if (missing) return context.skip(missing);
      await showView('Topology');
      // Set on this document: a reload would lose it.
      await page.evaluate(() => ((globalThis as { notReloaded?: boolean }).notReloaded = true));
      // The unit first, so that it is Dying and held by its error (a Dying application's units are
      // set Dying by their agents, which an agent in error does not do).
      await expectOk(ctl, ['remove-unit', 'mysql/0']);
      await expectOk(ctl, ['remove-application', 'mysql']);
      await page.waitForSelector('g.node.dying[data-application="mysql"]');
      expect(await page.textContent('g.node[data-application="mysql"]')).toContain('dying');
      await screenshot(page, 'topology-dying');

      await showView('Stuck');
      const stuck = page.locator('li[data-entity="unit mysql/0"]');
      await stuck.waitFor();
      expect(await stuck.locator('code').first().textContent()).toBe('drover resolved mysql/0');
      expect(await stuck.textContent()).toContain('hook failed: "install"');
      await screenshot(page, 'stuck');
      // On the topology, what holds the application is marked on it, in words too.
      await showView('Topology');
      const held = page.locator('g.node.held[data-application="mysql"]');
      await held.waitFor();
      expect(await held.locator('text.held').textContent()).toMatch(/^⚠ unit mysql\/0: /);
      expect(await held.getAttribute('aria-label')).toContain('stuck: unit mysql/0: ');
      await screenshot(page, 'topology-held');

      await showView('Topology');
      await expectOk(ctl, ['resolved', 'mysql/0']);
      // Its agent sees the resolve and leaves the error, as a real one does (agent/uniter/decide.ts).
      await setUnitStatus(ctl.store, 'mysql/0', { agent: { current: 'idle' }, workload: { current: 'maintenance', message: 'stopping' } });
      await waitFor(
        'mysql to be removed',
        async () => {
          await agentsTurn(ctl.store);
          return JSON.parse((await expectOk(ctl, ['status', '--format', 'json'])).stdout).applications as Record<string, unknown>;
        },
        (applications) => !('mysql' in applications),
      );
      await page.waitForSelector('g.node[data-application="mysql"]', { state: 'detached' });
      expect(await page.$$eval('polyline.edge', (lines) => lines.length)).toBe(1);
      expect(await page.evaluate(() => (globalThis as { notReloaded?: boolean }).notReloaded)).toBe(true);
    },
  );

  it(
    'switches to another model without a reload, keeps it in the fragment, and refuses one that is not there',
    { timeout: 120_000 },
    async (context) => {
      if (missing) return context.skip(missing);
      const other = await browser.context.newPage();
      try {
        await other.goto(home);
        await other.waitForSelector('g.node[data-application="wordpress"]');
        expect(await other.inputValue('#model')).toBe('default');
        await other.evaluate(() => ((globalThis as { notReloaded?: boolean }).notReloaded = true));
        await other.selectOption('#model', 'staging');
        await other.waitForSelector('g.node[data-application="database"]');
        expect(await other.$$eval('g.node', (nodes) => nodes.map((n) => n.getAttribute('data-application')))).toEqual(['database']);
        expect(await other.textContent('h1')).toBe('test:staging');
        expect(await other.evaluate(() => (globalThis as { notReloaded?: boolean }).notReloaded)).toBe(true);
        // The model is in the fragment, beside what else was there, and nowhere else in the URL.
        const shown = new URL(other.url());
        expect(shown.search).toBe('');
        expect(new URLSearchParams(shown.hash.slice(1)).get('model')).toBe('staging');
        expect(new URLSearchParams(shown.hash.slice(1)).get('poll')).toBe('500');
        // Its unit's history is read from staging too.
        await showView('Units', other);
        await other.locator('table[data-table="Units"] button.link', { hasText: 'database/0' }).click();
        await other.locator('aside.detail ol.history li').first().waitFor();
        expect(await other.textContent('aside.detail')).toContain('only in staging');
        await screenshot(other, 'staging-units');

        // A model the controller does not have, or a name no model can have: said, and nothing changes.
        for (const [wanted, refusal] of [
          ['nope', 'model "nope" not found; see "drover models"'],
          ['No_Such', '"No_Such" is not a valid name: model names may only contain lowercase letters, digits and hyphens'],
        ] as const) {
          await other.evaluate(`location.hash = location.hash.replace('model=staging', 'model=${wanted}')`);
          await other.waitForSelector(`[role="alert"]:has-text(${JSON.stringify(refusal)})`);
          expect(new URLSearchParams(new URL(other.url()).hash.slice(1)).get('model')).toBe('staging');
          expect(await other.inputValue('#model')).toBe('staging');
          expect(await other.textContent('table[data-table="Units"]')).toContain('database/0');
        }

        // A reload (or the link) shows the same model.
        await other.reload();
        await other.waitForSelector('g.node[data-application="database"]');
        expect(await other.inputValue('#model')).toBe('staging');
        await other.selectOption('#model', 'default');
        await other.waitForSelector('g.node[data-application="wordpress"]');
        expect(await other.$$eval('g.node[data-application="database"]', (nodes) => nodes.length)).toBe(0);
        expect(await other.locator('[role="alert"]').count()).toBe(0);
      } finally {
        await other.close();
      }
    },
  );

  for (const viewport of VIEWPORTS) {
    it(
      `fits ${viewport.width}x${viewport.height}: every view and a detail pane, nothing wider than the window`,
      { timeout: 90_000 },
      async (context) => {
        if (missing) return context.skip(missing);
        const sized = await browser.context.newPage();
        try {
          await sized.setViewportSize(viewport);
          await sized.goto(home);
          await sized.waitForSelector('g.node[data-application="wordpress"]');
          for (const view of VIEWS) {
            await showView(view, sized);
            if (!NOT_TABLES.includes(view)) await sized.waitForSelector(`table[data-table="${view}"]`);
            await expectNoOverflow(sized, `${view} at ${viewport.name} width`);
            await screenshot(sized, `${viewport.name}-${view.toLowerCase()}`);
          }
          await showView('Units', sized);
          expect(await expectIconAndWord(sized)).toBeGreaterThan(0);
          await sized.locator('table[data-table="Units"] button.link', { hasText: 'wordpress/0' }).click();
          await sized.locator('aside.detail ol.history').waitFor();
          await expectNoOverflow(sized, `a unit's pane at ${viewport.name} width`);
          await screenshot(sized, `${viewport.name}-unit-detail`);
          await showView('Topology', sized);
          expect(await expectIconAndWord(sized)).toBeGreaterThan(0);
        } finally {
          await sized.close();
        }
      },
    );

    it(
      `is used from the keyboard at ${viewport.width}x${viewport.height}: Tab to the tabs, arrows between them, Tab and Enter to a detail pane`,
      { timeout: 90_000 },
      async (context) => {
        if (missing) return context.skip(missing);
        const keys = await browser.context.newPage();
        try {
          await keys.setViewportSize(viewport);
          await keys.goto(home);
          await keys.waitForSelector('g.node[data-application="wordpress"]');
          await tabTo(keys, '[role="tab"]');
          expect(await keys.evaluate<boolean>(focusedIs('#tab-Topology[aria-selected="true"]'))).toBe(true);
          await keys.keyboard.press('ArrowRight');
          await keys.waitForSelector('main[data-view="Applications"]');
          expect(await keys.evaluate<boolean>(focusedIs('#tab-Applications[aria-selected="true"]'))).toBe(true);
          await keys.keyboard.press('ArrowLeft');
          await keys.keyboard.press('ArrowLeft');
          await keys.waitForSelector('main[data-view="Secrets"]');
          await keys.keyboard.press('ArrowRight');
          await keys.waitForSelector('main[data-view="Topology"]');
          // A node of the topology, and Enter opens its application's pane.
          await tabTo(keys, 'g.node');
          const application = await keys.evaluate<string>('document.activeElement.getAttribute("data-application")');
          await keys.keyboard.press('Enter');
          expect(await keys.locator('aside.detail h2').textContent()).toBe(`application ${application}`);
          // Back to the tabs, on to Units, and a unit's name opens its pane.
          await tabTo(keys, '[role="tab"]', 'Shift+Tab');
          await keys.keyboard.press('ArrowRight');
          await keys.keyboard.press('ArrowRight');
          await keys.waitForSelector('main[data-view="Units"]');
          await tabTo(keys, 'table[data-table="Units"] button.link');
          const unit = (await keys.evaluate<string>('document.activeElement.textContent')).replace(/\*$/, '');
          await keys.keyboard.press('Enter');
          await keys.waitForSelector(`aside.detail[aria-label="unit ${unit}"]`);
          await keys.locator('aside.detail ol.history').waitFor();
          await screenshot(keys, `${viewport.name}-keyboard-unit-detail`);
        } finally {
          await keys.close();
        }
      },
    );
  }
});
