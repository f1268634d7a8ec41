// A real browser for the dashboard's tests: Debian's headless Chromium (.ci/run installs it),
// driven by playwright-core, offline (the machine's network is closed) with a fresh profile.
// Where no Chromium is installed the test says so and is skipped, except in CI, where its absence
// is a failure: .ci/run installs it, so a missing browser there is a broken install step.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

export const CHROMIUM = process.env.DROVER_CHROMIUM ?? '/usr/bin/chromium';

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Why no browser can run here, or undefined. In CI a missing browser throws instead. */
export function browserMissing(): string | undefined {
  if (existsSync(CHROMIUM)) return undefined;
  const reason = `no Chromium at ${CHROMIUM} (apt-get install -y chromium, as .ci/run does; or set DROVER_CHROMIUM)`;
  if (process.env.CI) throw new Error(reason);
  return reason;
}

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

export async function launchBrowser(viewport = { width: 1280, height: 800 }): Promise<Browser> {
  const profile = await mkdtemp(join(tmpdir(), 'drover-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport,
  });
  return {
    context,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Counts the distinct colours of a base64 PNG in the page. Written as page source (this project's
 * TypeScript has no DOM types): the browser decodes the PNG onto a canvas.
 */
const COUNT_COLOURS = `async (data) => {
  const image = new Image();
  image.src = 'data:image/png;base64,' + data;
  await image.decode();
  const canvas = document.createElement('canvas');
  canvas.width = image.width;
  canvas.height = image.height;
  const context = canvas.getContext('2d');
  context.drawImage(image, 0, 0);
  const pixels = context.getImageData(0, 0, image.width, image.height).data;
  const seen = new Set();
  for (let i = 0; i < pixels.length; i += 4) seen.add((pixels[i] << 16) | (pixels[i + 1] << 8) | pixels[i + 2]);
  return seen.size;
}`;

/** How many distinct colours a PNG shows: a blank or one-colour screenshot has one or two. */
export async function distinctColours(context: BrowserContext, png: Buffer): Promise<number> {
  const page = await context.newPage();
  try {
    return await page.evaluate<number>(`(${COUNT_COLOURS})(${JSON.stringify(png.toString('base64'))})`);
  } finally {
    await page.close();
  }
}
