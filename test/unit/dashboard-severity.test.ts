// Status on the dashboard is never colour alone (cli/dashboard/ui/severity.ts, status-badge.tsx):
// every level has its own icon, shown with the status's word, and its colour is dark enough to
// read as text. test/e2e/dashboard-browser.test.ts checks every badge and node on the page shows
// its level's icon and a word.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ICON, levelOf, type Level } from '../../cli/dashboard/ui/severity.js';
import { REPO } from '../support/cli.js';

const LEVELS = Object.keys(ICON) as Level[];
/** The style sheet without its comments. */
const CSS = readFileSync(join(REPO, 'cli', 'dashboard', 'ui', 'styles.css'), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '');

/** The declarations of the rule whose selector is exactly `selector`. */
function rule(selector: string): Record<string, string> {
  const found = new RegExp(`(?:^|\\})\\s*${selector.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*\\{([^}]*)\\}`).exec(CSS);
  if (!found) return {};
  return Object.fromEntries(
    found[1]!
      .split(';')
      .map((d) => d.split(':').map((p) => p.trim()))
      .filter((d) => d.length === 2 && d[0]),
  );
}

/** A colour of the style sheet, through its custom property if it names one. */
function colour(value: string | undefined): string {
  const variable = /^var\((--[a-z]+)\)$/.exec(value ?? '')?.[1];
  return variable ? (rule(':root')[variable] ?? '') : (value ?? '');
}

/** WCAG 2's contrast ratio of two #rrggbb colours (https://www.w3.org/TR/WCAG21/#dfn-contrast-ratio). */
function contrast(a: string, b: string): number {
  const luminance = (hex: string) => {
    const [r, g, bl] = [1, 3, 5].map((i) => {
      const c = parseInt(hex.slice(i, i + 2), 16) / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    }) as [number, number, number];
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

describe("the dashboard's status levels", () => {
  it('each has an icon of its own, so that levels differ without colour', () => {
    expect(LEVELS.sort()).toEqual(['blocked', 'busy', 'error', 'ok', 'unknown', 'waiting']);
    for (const level of LEVELS) expect(ICON[level].trim(), level).not.toBe('');
    expect(new Set(LEVELS.map((l) => ICON[l])).size).toBe(LEVELS.length);
  });

  it("takes Juju's status words to their levels, and any other word to unknown", () => {
    const level = (current: string) => levelOf({ current });
    expect(['error', 'provisioning error', 'down', 'lost'].map(level)).toEqual(['error', 'error', 'error', 'error']);
    expect(['blocked', 'waiting', 'pending', 'allocating'].map(level)).toEqual(['blocked', 'waiting', 'waiting', 'waiting']);
    expect(['maintenance', 'executing', 'active', 'idle', 'started', 'running'].map(level)).toEqual([
      'busy',
      'busy',
      'ok',
      'ok',
      'ok',
      'ok',
    ]);
    expect(level('terminated')).toBe('unknown');
    expect(levelOf(undefined)).toBe('unknown');
  });

  it('each has a badge colour readable as text on the page and in its tables, and a node outline', () => {
    for (const level of LEVELS) {
      const text = colour(rule(`.badge.level-${level}`).color);
      expect(text, level).toMatch(/^#[0-9a-f]{6}$/);
      // WCAG AA for text: 4.5:1, on the tables' and panes' white and on the page's background.
      for (const background of ['#ffffff', colour(rule(':root').background)])
        expect(contrast(text, background), `${level} ${text} on ${background}`).toBeGreaterThanOrEqual(4.5);
      expect(colour(rule(`.level-${level} rect`).stroke), level).toMatch(/^#[0-9a-f]{6}$/);
    }
  });

  it("colours the changes' controls, their refusals and the topology's labels readably (4.5:1)", () => {
    const pairs: Array<[string, string, string]> = [
      ['button.primary', colour(rule('button.primary').color), colour(rule('button.primary').background)],
      ['button.danger', colour(rule('button.danger').color), '#ffffff'],
      ['.refusal', colour(rule('.refusal').color), '#ffffff'],
      ['.confirm', colour(rule(':root').color), colour(rule('.confirm').background)],
      ['.edge-label', colour(rule('.edge-label').fill), colour(rule(':root').background)],
      ['.node .held', colour(rule('.node .held').fill), '#ffebee'],
    ];
    for (const [what, text, background] of pairs) {
      expect(text, what).toMatch(/^#[0-9a-f]{6}$/);
      expect(background, what).toMatch(/^#[0-9a-f]{6}$/);
      expect(contrast(text, background), `${what}: ${text} on ${background}`).toBeGreaterThanOrEqual(4.5);
    }
  });
});
