// How a charm archive's symlinks may lead out of the charm: followed through the archive's own
// links as the kernel would. The rules that use them are ./charm-archive-rules.ts.
import type { Entry } from './archive-entry.js';

type Linked = Pick<Entry, 'path' | 'type' | 'linkTarget'>;

/** Links followed within one resolution at most (the kernel's own bound is 40): more is a loop. */
const MAX_LINK_HOPS = 40;

/**
 * Where a link leads, as root-relative components, following it as the kernel does; undefined
 * when it leaves the charm (absolute, or a `..` above the root) or loops. The text alone says too
 * little: with `s1 -> .`, the target `s1/../X` normalises to `X` but really is `../X`, since
 * `s1` is resolved before the `..` that follows it. So each component is looked up among the
 * archive's own links and followed.
 */
function resolveLink(links: Map<string, string>, path: string, hops = { left: MAX_LINK_HOPS }): string[] | undefined {
  const target = links.get(path) ?? '';
  if (target === '' || target.startsWith('/') || --hops.left < 0) return undefined;
  let at = path.split('/').slice(0, -1);
  for (const part of target.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (at.length === 0) return undefined;
      at.pop();
      continue;
    }
    at.push(part);
    if (links.has(at.join('/'))) {
      const via = resolveLink(links, at.join('/'), hops);
      if (via === undefined) return undefined;
      at = via;
    }
  }
  return at;
}

/** The first symlink whose target, followed through the archive's other links, is absolute or leaves the charm. */
export function unsafeLink<E extends Linked>(entries: readonly E[]): E | undefined {
  const links = new Map(entries.filter((e) => e.type === 'symlink').map((e) => [e.path, e.linkTarget ?? '']));
  return entries.find((e) => e.type === 'symlink' && resolveLink(links, e.path) === undefined);
}

/** The first entry whose path another entry already has: written second, it would go through a link of that name. */
export function duplicateEntry<E extends Linked>(entries: readonly E[]): E | undefined {
  const seen = new Set<string>();
  return entries.find((e) => {
    if (seen.has(e.path)) return true;
    seen.add(e.path);
    return false;
  });
}

/**
 * The first entry that lies beneath a symlink of the same archive, if any. Each link is checked
 * to stay inside the charm where it sits, but a link's own location may be reached through
 * another link (`d -> .`, then `d/up -> ../x` is really `up -> ../x` at the root), and a file
 * written beneath a link lands wherever it points: so nothing may be packed beneath a link.
 */
export function entryBeneathSymlink<E extends Linked>(entries: readonly E[]): E | undefined {
  const links = new Set(entries.filter((e) => e.type === 'symlink').map((e) => e.path));
  if (links.size === 0) return undefined;
  return entries.find((e) => {
    const parts = e.path.split('/');
    for (let i = 1; i < parts.length; i++) if (links.has(parts.slice(0, i).join('/'))) return true;
    return false;
  });
}
