// What `charmcraft pack` writes into a .charm for an ops charm whose charmcraft.yaml holds
// everything (metadata, actions, config, `base` and `platforms`), as charmcraft 3 does it
// (https://github.com/canonical/charmcraft/blob/main/charmcraft/services/package.py):
// metadata.yaml from the metadata keys, actions.yaml and config.yaml from `actions`/`config`,
// manifest.yaml with the run-on base, and a `dispatch` that runs src/charm.py with lib/ and venv/
// on PYTHONPATH. Pure: the packer (pack-charm.ts) writes these and adds src/ and venv/.
import { parse, stringify } from 'yaml';

/** charmcraft.yaml keys that charmcraft writes to metadata.yaml. */
const METADATA_KEYS = [
  'name',
  'display-name',
  'summary',
  'description',
  'assumes',
  'charm-user',
  'containers',
  'devices',
  'docs',
  'extra-bindings',
  'issues',
  'maintainers',
  'peers',
  'provides',
  'requires',
  'resources',
  'source',
  'storage',
  'subordinate',
  'terms',
  'website',
] as const;

export interface CharmLayout {
  /** `<name>_<platform>.charm`, as charmcraft names it. */
  fileName: string;
  /** Path in the charm → text; `dispatch` is the one executable. */
  files: Record<string, string>;
}

export interface LayoutOptions {
  /** The interpreter dispatch runs src/charm.py with (charmcraft's dispatch runs the script by its shebang). */
  python: string;
  startedAt: Date;
}

/** The .charm's generated files for a unified charmcraft.yaml. */
export function charmLayout(charmcraftYaml: string, options: LayoutOptions): CharmLayout {
  const project = parse(charmcraftYaml) as Record<string, unknown> | null;
  if (!project || typeof project !== 'object') throw new Error('charmcraft.yaml is not a mapping');
  if (project.type !== 'charm') throw new Error(`charmcraft.yaml: type "${String(project.type)}", not "charm"`);
  const name = project.name;
  if (typeof name !== 'string' || !name) throw new Error('charmcraft.yaml has no name');
  const base = project.base;
  if (typeof base !== 'string' || !/^[a-z]+@[\d.]+$/.test(base))
    throw new Error(`charmcraft.yaml: base "${String(base)}" is not <os>@<channel>`);
  const [os, channel] = base.split('@') as [string, string];
  const platforms = Object.keys((project.platforms as Record<string, unknown> | undefined) ?? {});
  if (platforms.length !== 1) throw new Error(`charmcraft.yaml: ${platforms.length} platforms; this packer packs charms with one`);
  const platform = platforms[0]!;

  const metadata = Object.fromEntries(METADATA_KEYS.filter((k) => project[k] !== undefined).map((k) => [k, project[k]]));
  const files: Record<string, string> = {
    'metadata.yaml': stringify(metadata),
    'manifest.yaml': stringify({
      analysis: {
        attributes: [
          { name: 'language', result: 'python' },
          { name: 'framework', result: 'operator' },
        ],
      },
      bases: [{ architectures: [platform], channel, name: os }],
      'charmcraft-started-at': options.startedAt.toISOString(),
      // Juju reads only the bases; this says honestly who packed the charm.
      'charmcraft-version': 'drover compat:jubilant (charmcraft pack emulated)',
    }),
    dispatch: `#!/bin/sh\n\nJUJU_DISPATCH_PATH="\${JUJU_DISPATCH_PATH:-$0}" PYTHONPATH=lib:venv \\\n  exec ${options.python} ./src/charm.py\n`,
  };
  if (project.actions) files['actions.yaml'] = stringify(project.actions);
  if (project.config) files['config.yaml'] = stringify(project.config);
  return { fileName: `${name}_${platform}.charm`, files };
}

/** The version of `ops` a charm's uv.lock pins (charmcraft's uv plugin installs what the lock says). */
export function lockedOpsVersion(uvLock: string): string {
  const match = /\[\[package\]\]\s*\nname = "ops"\s*\nversion = "([^"]+)"/.exec(uvLock);
  if (!match) throw new Error('uv.lock pins no ops version');
  return match[1]!;
}

/** Import names of an ops release's runtime dependencies, from its pyproject.toml `dependencies`. */
export function opsRuntimeImports(pyprojectToml: string): string[] {
  const list = /^dependencies = \[([^\]]*)\]/m.exec(pyprojectToml);
  if (!list) throw new Error("ops's pyproject.toml has no dependencies list");
  const names = [...list[1]!.matchAll(/^\s*"([A-Za-z0-9_.-]+)/gm)].map((m) => m[1]!.toLowerCase());
  return names.map((dist) => {
    const module = IMPORT_NAMES[dist];
    if (!module) throw new Error(`ops needs ${dist}, which this packer cannot put in the venv`);
    return module;
  });
}

/** Distribution name → the package it installs, for what ops has depended on. */
const IMPORT_NAMES: Record<string, string> = {
  pyyaml: 'yaml',
  'websocket-client': 'websocket',
  'opentelemetry-api': 'opentelemetry',
};
