// Where a Charmhub charm came from (Juju's charm origin, core/charm/origin.go,
// https://github.com/juju/juju/blob/3.6/core/charm/origin.go): kept on the application, so
// `refresh` asks Charmhub for the next revision of the same channel, and status shows
// `charm-origin: charmhub`, the revision and the channel. A local charm has none.
export interface CharmhubOrigin {
  source: 'charmhub';
  /** Charmhub's id of the charm (stable across revisions and renames). */
  id: string;
  /** The sha256 of the revision's .charm, as Charmhub announced it and the download matched. */
  hash: string;
  revision: number;
  /** The channel it tracks, with its track: `latest/stable`, `14/edge`. */
  channel: string;
  architecture: string;
}
