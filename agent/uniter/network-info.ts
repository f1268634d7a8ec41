// network-get's answer on a machine with one network (drover has no spaces): every binding gets
// the unit's address as bind, ingress and egress address, in the shape of Juju's
// params.NetworkInfoResult. The interface that holds the address, when this host has it, names
// the device, its MAC and its subnet, as Juju reports them from the machine's network config.
import { networkInterfaces, type NetworkInterfaceInfo } from 'node:os';
import type { NetworkInfo } from '../hook-tools/tool-context.js';

/** The network of a CIDR like `10.0.3.17/24`: `10.0.3.0/24`. */
export function subnetOf(cidr: string): string {
  const [address, bits] = cidr.split('/');
  if (!address || bits === undefined || address.includes(':')) return cidr;
  const prefix = Number(bits);
  const value = address.split('.').reduce((n, octet) => (n << 8) + Number(octet), 0) >>> 0;
  const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
  const network = (value & mask) >>> 0;
  return `${[24, 16, 8, 0].map((s) => (network >>> s) & 255).join('.')}/${prefix}`;
}

export function networkInfoFor(address: string, interfaces: NodeJS.Dict<NetworkInterfaceInfo[]> = networkInterfaces()): NetworkInfo {
  let device: { name: string; info: NetworkInterfaceInfo } | undefined;
  for (const [name, infos] of Object.entries(interfaces)) {
    const info = infos?.find((i) => i.address === address);
    if (info) device = { name, info };
  }
  const isIp = /^[0-9.]+$/.test(address) || address.includes(':');
  return {
    bindAddresses: [
      {
        macAddress: device?.info.mac ?? '',
        interfaceName: device?.name ?? '',
        addresses: [{ hostname: isIp ? '' : address, value: address, cidr: device?.info.cidr ? subnetOf(device.info.cidr) : '' }],
      },
    ],
    // Juju's default egress subnet for a machine is its ingress address alone.
    egressSubnets: isIp ? [`${address}/${address.includes(':') ? 128 : 32}`] : [],
    ingressAddresses: [address],
  };
}
