// The charm-archive fuzzer: hostile tar.gz archives (absolute and `../` names, links out of the
// root, link chains such as `s1 -> .` then `up -> s1/..`, entries beneath links or named like
// them, hard links, devices, fifos, odd modes) go through the controller's upload check and the
// agent's unpack into a unit's directory inside a sandbox. Properties: the upload check either
// accepts or refuses with a 4xx DroverError (never anything else); the unpack ends within a
// bound; and nothing is written outside the unit's directory, no special file is made, and no
// link under it leads out of it. DROVER_FUZZ_RUNS sets the number of archives (DROVER_SOAK=1:
// 10,000); DROVER_FUZZ_SEED replays a run.
import fc from 'fast-check';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { receiveCharm } from '../../functions/api/charm-upload.js';
import { unpackCharmArchive } from '#shared/charmstore/charm-unpack.js';
import { localCharmStore } from '#shared/charmstore/local-charm-store.js';
import { isDroverError, errorStack } from '#shared/domain/errors.js';
import { hostileTarGz, listTree, rawEntries, sandboxViolations, type RawEntry } from '../support/fuzz-archives.js';
import { fuzzRuns, fuzzSeed, withinMs } from '../support/fuzz-run.js';

const RUNS = fuzzRuns(300);
const SEED = fuzzSeed();
/** An unpack of a few small entries takes milliseconds; this much means it hangs. */
const UNPACK_BOUND_MS = 5_000;
/** The unit's directory lies this deep in its sandbox, so a link chain climbing out of it still lands inside the sandbox, where the scan sees it. */
const DEPTH = 16;
const METADATA = 'name: fuzz\nsummary: s\ndescription: d\n';

describe('charm archives, fuzzed', () => {
  it('nothing lands outside the unit, the upload check answers 4xx or accepts, and no unpack hangs', async () => {
    const base = await mkdtemp(join(tmpdir(), 'drover-fuzz-archive-'));
    const outside = join(base, 'outside');
    // The store beside the sandboxes' parent, not in it: it grows with every accepted archive,
    // and is no part of what the scan looks at.
    const storeDir = await mkdtemp(join(tmpdir(), 'drover-fuzz-store-'));
    const charms = localCharmStore(storeDir);
    const counts = { inputs: 0, refusedOnUpload: 0, refusedOnUnpack: 0, escapes: 0, hangs: 0, fiveHundreds: 0 };
    let n = 0;
    const property = fc.asyncProperty(rawEntries(outside), async (entries: RawEntry[]) => {
      counts.inputs++;
      const archive = hostileTarGz(entries);
      const upload = await receiveCharm(charms, { metadata: METADATA, archive: archive.toString('base64') }).then(
        () => undefined,
        (e: unknown) => e,
      );
      if (upload !== undefined) {
        if (!isDroverError(upload, 'invalid-argument')) {
          counts.fiveHundreds++;
          throw new Error(`the upload check failed with something other than a 4xx: ${errorStack(upload)}`);
        }
        counts.refusedOnUpload++;
      }
      // The agent unpacks whatever it is given: the controller's check is not its only guard.
      const sandbox = join(base, `s${n++}`);
      const chain = Array.from({ length: DEPTH }, (_, i) => `d${i}`);
      const dest = join(sandbox, ...chain, 'unit', 'charm');
      await mkdir(dest, { recursive: true });
      await mkdir(outside, { recursive: true });
      const expected = new Set([
        ...chain.map((_, i) => join(...chain.slice(0, i + 1))),
        join(...chain, 'unit'),
        join(...chain, 'unit', 'charm'),
      ]);
      const unpacked = await withinMs(UNPACK_BOUND_MS, unpackCharmArchive(archive, dest)).then(
        () => 'ok' as const,
        (e: Error) => (e.message === 'timeout' ? ('hang' as const) : ('refused' as const)),
      );
      if (unpacked === 'hang') counts.hangs++;
      if (unpacked === 'refused') counts.refusedOnUnpack++;
      // Inside the sandbox, nothing outside the unit's directory; beside it, nothing at all (the
      // `outside` directory is what absolute names and links point at).
      const beside = (await listTree(base)).filter((i) => !/^s\d+(\/|$)/.test(i.path) && i.path !== 'outside');
      const violations = [
        ...(await sandboxViolations(sandbox, dest, expected)),
        ...beside.map((i) => `${i.kind} ${i.path} written beside the sandbox`),
      ];
      if (violations.length) counts.escapes++;
      await rm(sandbox, { recursive: true, force: true });
      expect(unpacked).not.toBe('hang');
      expect(violations).toEqual([]);
    });
    try {
      await fc.assert(property, { numRuns: RUNS, seed: SEED });
    } finally {
      console.info(
        `fuzz archives (seed ${SEED}): ${counts.inputs} inputs, ${counts.fiveHundreds} 5xx, ${counts.escapes} written outside, ${counts.hangs} hangs ` +
          `(${counts.refusedOnUpload} refused on upload, ${counts.refusedOnUnpack} on unpack)`,
      );
      await rm(base, { recursive: true, force: true });
      await rm(storeDir, { recursive: true, force: true });
    }
  }, 600_000);
});
