// The plan a bundle deploy prints before it acts (and all `--dry-run` prints), a line per change
// in the words of Juju's bundle deploy ("Changes to deploy bundle:", "- add new machine 0", ...).
import type { Change, Target } from './changes.js';

function where(target: Target): string {
  switch (target.kind) {
    case 'new':
      return 'new machine';
    case 'model-machine':
      return `machine ${target.machine}`;
    case 'bundle-machine':
      return `new machine ${target.machine}`;
    case 'unit':
      return `${target.application}/${target.index}`;
  }
}

export function describeChange(change: Change): string {
  switch (change.kind) {
    case 'deploy': {
      const options = Object.keys(change.options).length ? ' with its options' : '';
      const from = change.charmhub
        ? `charm-hub charm ${change.charmName}${change.charmhub.channel !== undefined ? ` in channel ${change.charmhub.channel}` : ''}`
        : `local charm ${change.charmName}`;
      const deploy = `deploy application ${change.application} from ${from} on ${change.series}${options}`;
      const units = Array.from({ length: change.units }, (_, i) => `add unit ${change.application}/${i} to new machine`);
      return [deploy, ...units].join('\n- ');
    }
    case 'add-machine':
      return `add new machine ${change.machine}${change.constraints ? ` (${change.constraints})` : ''}`;
    case 'add-unit':
      return `add unit ${change.application}/${change.index} to ${where(change.target)}`;
    case 'set-options':
      return `set application options for ${change.application}: ${Object.keys(change.options).sort().join(', ')}`;
    case 'set-constraints':
      return `set constraints for ${change.application} to "${change.constraints}"`;
    case 'expose':
      return `expose all endpoints of ${change.application} and allow access from CIDRs 0.0.0.0/0 and ::/0`;
    case 'relate':
      return `add relation ${change.endpoints[0]} - ${change.endpoints[1]}`;
  }
}
