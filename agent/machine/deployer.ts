// Deploying a unit on this machine: its directory `<machine dir>/units/<app>-<n>/`, the charm
// unpacked into `charm/` ("A charm is deployed into a directory that is entirely owned and
// controlled by juju"), a `deployed.json` record written last (so a crash mid-deploy leaves an
// undeployed unit to deploy again), and its unit agent started. Recalling stops the agent and
// removes the directory. One operation at a time per unit.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { unpackCharmArchiveFile } from '#shared/charmstore/charm-unpack.js';
import type { Application, Unit } from '#shared/domain/entities.js';
import type { AgentApi } from '../api-client.js';
import { charmCache, type CharmCacheOptions, type CharmFetcher } from '../charm-cache.js';
import { isoNow, systemClock, type Clock } from '../clock.js';
import type { AgentLog } from '../log/agent-log.js';

export const DEPLOYED_FILE = 'deployed.json';

export interface DeployedRecord {
  unit: string;
  /** Set on subordinates: the principal whose agent deployed it. */
  principal?: string;
  charmArchive?: string;
  /** The charm URL of the archive deployed: the unit agent's starting point for upgrades. */
  charmUrl?: string;
  deployedAt: string;
}

export interface UniterControl {
  start(unit: string): void;
  stop(unit: string): Promise<void>;
}

export const unitDirName = (unit: string) => unit.replace('/', '-');

export class Deployer {
  private readonly queues = new Map<string, Promise<unknown>>();
  readonly charmArchive: CharmFetcher;

  constructor(
    private readonly machineDir: string,
    api: AgentApi,
    private readonly log: AgentLog,
    private readonly uniters: UniterControl,
    downloads: CharmCacheOptions = {},
    private readonly clock: Clock = systemClock,
  ) {
    this.charmArchive = charmCache(api, join(machineDir, 'charms'), downloads);
  }

  get unitsDir(): string {
    return join(this.machineDir, 'units');
  }

  unitDir(unit: string): string {
    return join(this.unitsDir, unitDirName(unit));
  }

  /** The unit's deployment record, if it is (fully) deployed. */
  record(unit: string): DeployedRecord | undefined {
    try {
      return JSON.parse(readFileSync(join(this.unitDir(unit), DEPLOYED_FILE), 'utf8')) as DeployedRecord;
    } catch {
      return undefined;
    }
  }

  /** Every unit deployed on this machine, read from disk: the record survives agent restarts. */
  list(): DeployedRecord[] {
    let names: string[];
    try {
      names = readdirSync(this.unitsDir);
    } catch {
      return [];
    }
    const records: DeployedRecord[] = [];
    for (const name of names) {
      try {
        records.push(JSON.parse(readFileSync(join(this.unitsDir, name, DEPLOYED_FILE), 'utf8')) as DeployedRecord);
      } catch {
        // not (fully) deployed
      }
    }
    return records;
  }

  deploy(unit: Unit, application: Application | undefined): Promise<void> {
    return this.serially(unit.name, () => this.deployNow(unit, application));
  }

  recall(unit: string): Promise<void> {
    return this.serially(unit, async () => {
      await this.uniters.stop(unit);
      rmSync(this.unitDir(unit), { recursive: true, force: true });
      this.log.log(undefined, 'INFO', 'juju.worker.deployer', `recalled unit "${unit}"`);
    });
  }

  private async deployNow(unit: Unit, application: Application | undefined): Promise<void> {
    const dir = this.unitDir(unit.name);
    if (existsSync(join(dir, DEPLOYED_FILE))) return;
    rmSync(dir, { recursive: true, force: true }); // half a deployment from before a crash
    mkdirSync(dir, { recursive: true, mode: 0o750 });
    const charmDir = join(dir, 'charm');
    const archive = application?.charmArchive;
    if (archive) {
      const path = await this.charmArchive(unit.name, archive);
      const staging = `${charmDir}.tmp`;
      await unpackCharmArchiveFile(path, staging);
      renameSync(staging, charmDir);
    } else {
      // Deployed from metadata alone (no archive): a charm without hooks.
      mkdirSync(charmDir);
      this.log.log(
        unit.name,
        'WARNING',
        'juju.worker.deployer',
        `application "${unit.application}" has no charm archive: no hooks will run`,
      );
    }
    const record: DeployedRecord = {
      unit: unit.name,
      ...(unit.principal !== undefined ? { principal: unit.principal } : {}),
      ...(archive ? { charmArchive: archive } : {}),
      ...(application ? { charmUrl: application.charmUrl } : {}),
      deployedAt: isoNow(this.clock),
    };
    writeFileSync(join(dir, `${DEPLOYED_FILE}.tmp`), JSON.stringify(record, null, 2));
    renameSync(join(dir, `${DEPLOYED_FILE}.tmp`), join(dir, DEPLOYED_FILE));
    this.log.log(undefined, 'INFO', 'juju.worker.deployer', `deployed unit "${unit.name}"`);
    this.uniters.start(unit.name);
  }

  private serially<T>(unit: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(unit) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(fn);
    this.queues.set(unit, next);
    void next
      .finally(() => {
        if (this.queues.get(unit) === next) this.queues.delete(unit);
      })
      .catch(() => undefined);
    return next;
  }
}
