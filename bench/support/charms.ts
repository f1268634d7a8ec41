// The charms the benchmark deploys: a database and an application that relates to it (a plain,
// global relation, so entering its scope creates no subordinate).
import { parseCharm } from '#shared/domain/charm.js';

export const benchCharms = {
  db: parseCharm(`name: db
series: [jammy]
provides:
  server: mysql
`),
  web: parseCharm(`name: web
series: [jammy]
provides:
  url: http
requires:
  db: {interface: mysql, limit: 1}
`),
};
