// network-get <binding> [--bind-address] [--ingress-address] [--egress-subnets] [-r <id>]
// [--primary-address]: "the network config for a given binding name", as juju/juju
// worker/uniter/runner/jujuc/network-get.go. Without a flag: everything, in the shape of Juju's
// params.NetworkInfoResult, which ops parses (ops/model.py Network); one flag: that value; more:
// a map of them. drover has one network per machine, so every binding gets the machine's address.
import { boolFlag, parseFlags } from '../flags.js';
import { formatOf, outputFlags } from '../format.js';
import { output } from '../output.js';
import { relationFlag } from '../relation-flag.js';
import type { NetworkInfo } from '../tool-context.js';
import { checkEmpty, runtimeError, usageError } from '../tool-errors.js';
import type { ToolCommand } from './command.js';

/**
 * Juju's networkInfoResultDisplay: Go prints a struct's fields in declaration order; YAML also
 * carries the older spellings (`address`, `macaddress`, `interfacename`, `json:"-"`) that older
 * charms may expect, JSON does not.
 */
function resultShape(info: NetworkInfo, yaml: boolean) {
  return {
    'bind-addresses': info.bindAddresses.map((b) => ({
      'mac-address': b.macAddress,
      'interface-name': b.interfaceName,
      addresses: b.addresses.map((a) => ({ hostname: a.hostname, value: a.value, cidr: a.cidr, ...(yaml ? { address: a.value } : {}) })),
      ...(yaml ? { macaddress: b.macAddress, interfacename: b.interfaceName } : {}),
    })),
    ...(info.egressSubnets.length > 0 ? { 'egress-subnets': info.egressSubnets } : {}),
    ...(info.ingressAddresses.length > 0 ? { 'ingress-addresses': info.ingressAddresses } : {}),
  };
}

export const networkGet: ToolCommand = {
  name: 'network-get',
  async run(ctx, args, io) {
    const { flags, positional } = parseFlags(args, [
      ...outputFlags,
      boolFlag('primary', 'primary-address'),
      boolFlag('bind', 'bind-address'),
      boolFlag('ingress', 'ingress-address'),
      boolFlag('egress', 'egress-subnets'),
      relationFlag(ctx),
    ]);
    const format = formatOf(flags);
    // The relation only narrows the answer in cross-model relations, which drover does not have;
    // a bad -r is still refused (as it is parsed), as Juju's relation id flag does.
    const [binding, ...rest] = positional;
    if (binding === undefined) throw usageError('no arguments specified');
    if (binding === '') throw usageError('no binding name specified');
    checkEmpty(rest);

    const info = ctx.networkInfo(binding);
    if (!info || info.bindAddresses.length === 0) throw runtimeError(`no network config found for binding "${binding}"`);
    const keys = (['bind', 'ingress', 'egress'] as const).filter((k) => flags[k] === true);
    if (flags.primary !== true && keys.length === 0) return output(resultShape(info, format !== 'json'), flags, io, { ordered: true });

    const first = info.bindAddresses[0]!.addresses[0]?.value;
    if (flags.primary === true) {
      if (keys.length > 0) throw runtimeError('--primary-address must be the only flag specified');
      if (first === undefined) throw runtimeError(`no addresses attached to space for binding "${binding}"`);
      return output(first, flags, io);
    }
    const values: Record<string, unknown> = {};
    if (flags.egress === true) values['egress-subnets'] = info.egressSubnets;
    if (flags.ingress === true) {
      const ingress = info.ingressAddresses[0] ?? first;
      if (ingress === undefined) throw runtimeError(`no addresses attached to space for binding "${binding}"`);
      values['ingress-address'] = ingress;
    }
    if (flags.bind === true) values['bind-address'] = first ?? '';
    const names = { bind: 'bind-address', ingress: 'ingress-address', egress: 'egress-subnets' };
    if (keys.length === 1) return output(values[names[keys[0]!]], flags, io);
    return output(values, flags, io);
  },
};
