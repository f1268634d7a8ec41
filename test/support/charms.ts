// Charm metadata used across the state tests, in the shape of Juju's test charms.
import { parseCharm, type CharmMeta } from '#shared/domain/charm.js';

const meta = (yaml: string, config?: string): CharmMeta => parseCharm(yaml, config);

export const charms = {
  wordpress: meta(
    `name: wordpress
summary: blog
series: [jammy, focal]
provides:
  url: http
  logging-dir: {interface: logging, scope: container}
requires:
  db: {interface: mysql, limit: 1}
  cache: {interface: varnish, limit: 2}
`,
    `options:
  blog-title: {type: string, default: My Title, description: the title}
`,
  ),
  mysql: meta(`name: mysql
series: [jammy, focal]
provides:
  server: mysql
`),
  mariadb: meta(`name: mariadb
series: [jammy]
provides:
  server: mysql
`),
  varnish: meta(`name: varnish
series: [jammy]
provides:
  webcache: varnish
`),
  logging: meta(`name: logging
series: [jammy, focal]
subordinate: true
provides:
  logging-client: logging
requires:
  logging-directory: {interface: logging, scope: container}
  info: {interface: juju-info, scope: container}
`),
  riak: meta(`name: riak
series: [jammy]
provides:
  endpoint: http
peers:
  ring: riak
`),
  /** Required relations (required-relations-proposal.txt): waits for a database. */
  blog: meta(`name: blog
series: [jammy]
requires:
  db: {interface: mysql, required: true}
`),
  /** A principal wanting a logging directory in its container: relating it to wordpress needs a subordinate. */
  'log-collector': meta(`name: log-collector
series: [jammy]
requires:
  logging-directory: {interface: logging, scope: container}
`),
  /** A subordinate that needs a database before any of its units is created (required relations). */
  'metrics-agent': meta(`name: metrics-agent
series: [jammy]
subordinate: true
requires:
  info: {interface: juju-info, scope: container}
  store: {interface: mysql, required: true}
`),
  /** Juju's storage-filesystem test charm's shape: one filesystem store (1 to 3) with a minimum size, an optional block store. */
  storage: meta(`name: storage
series: [jammy]
storage:
  data: {type: filesystem, location: /srv/data, multiple: {range: 1-3}, minimum-size: 100M}
  disks: {type: block, multiple: {range: 0-2}}
`),
};
