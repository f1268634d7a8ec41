// network-get's answer: the unit's address as bind, ingress and egress address, and the device,
// MAC and subnet of the interface that holds it when this host has it.
import { describe, expect, it } from 'vitest';
import { networkInfoFor, subnetOf } from '../../../agent/uniter/network-info.js';

describe('network info', () => {
  it('names the interface holding the address, with its MAC and subnet', () => {
    const interfaces = {
      lo: [{ address: '127.0.0.1', netmask: '255.0.0.0', family: 'IPv4', mac: '00:00:00:00:00:00', internal: true, cidr: '127.0.0.1/8' }],
      ens5: [
        {
          address: '172.31.7.20',
          netmask: '255.255.240.0',
          family: 'IPv4',
          mac: '0a:1b:2c:3d:4e:5f',
          internal: false,
          cidr: '172.31.7.20/20',
        },
      ],
    } as const;
    expect(networkInfoFor('172.31.7.20', interfaces as never)).toEqual({
      bindAddresses: [
        {
          macAddress: '0a:1b:2c:3d:4e:5f',
          interfaceName: 'ens5',
          addresses: [{ hostname: '', value: '172.31.7.20', cidr: '172.31.0.0/20' }],
        },
      ],
      egressSubnets: ['172.31.7.20/32'],
      ingressAddresses: ['172.31.7.20'],
    });
  });

  it('still answers for an address no local interface holds (a public or NATed one)', () => {
    expect(networkInfoFor('54.1.2.3', {})).toEqual({
      bindAddresses: [{ macAddress: '', interfaceName: '', addresses: [{ hostname: '', value: '54.1.2.3', cidr: '' }] }],
      egressSubnets: ['54.1.2.3/32'],
      ingressAddresses: ['54.1.2.3'],
    });
  });

  it('computes IPv4 subnets', () => {
    expect(subnetOf('10.0.3.17/24')).toBe('10.0.3.0/24');
    expect(subnetOf('192.168.1.130/26')).toBe('192.168.1.128/26');
    expect(subnetOf('10.1.2.3/0')).toBe('0.0.0.0/0');
  });
});
