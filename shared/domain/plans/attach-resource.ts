// attach-resource: the application takes new revisions of some of its charm's resources, in one
// transaction on the application alone. Each resource whose content changed gets the next
// revision and the application's charmModifiedVersion moves, so every unit runs upgrade-charm
// (Juju's SetResource bumps CharmModifiedVersion:
// https://github.com/juju/juju/blob/3.6/state/resources.go). Content already in use changes
// nothing, so the request sent again after a lost answer adds no revision.
import type { Application } from '../entities.js';
import { notAlive, notFound } from '../errors.js';
import { done, refs, type Plan } from '../plan.js';
import { checkUploadable, nextResources, type ApplicationResource } from '../resources.js';

export interface AttachResourceIntent {
  application: string;
  /** Resource name → its upload, checked and kept in the charm store. */
  uploads: Record<string, Omit<ApplicationResource, 'revision'>>;
}

export interface AttachResourceResult {
  application: string;
  /** The resources that took a new revision (none when every upload was the content in use). */
  changed: string[];
}

export function planAttachResource(application: Application | undefined, intent: AttachResourceIntent): Plan<AttachResourceResult> {
  const { application: name } = intent;
  if (!application) throw notFound(`application "${name}" not found`);
  if (application.life !== 'alive') throw notAlive(`application "${name}" is not alive`);
  checkUploadable(application.charm.resources, Object.keys(intent.uploads));
  const { resources, changed } = nextResources(application.resources, intent.uploads);
  if (!changed.length) return done({ application: name, changed });
  const version = application.charmModifiedVersion;
  return {
    changes: [
      {
        op: 'update',
        ref: refs.application(name),
        set: { resources, charmModifiedVersion: (version ?? 0) + 1 },
        // The revisions it counted from and the charm that declares the resources.
        expect: {
          life: 'alive',
          equals: { charmUrl: application.charmUrl, ...(version !== undefined ? { charmModifiedVersion: version } : {}) },
          ...(version === undefined ? { absent: ['charmModifiedVersion'] } : {}),
        },
      },
    ],
    result: { application: name, changed },
  };
}
