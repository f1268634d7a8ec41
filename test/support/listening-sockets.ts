// The addresses a TCP port listens on, read from the kernel's socket tables (/proc/net/tcp and
// tcp6, Linux): what another host could connect to, not what a process says it does.
import { readFileSync } from 'node:fs';

const LISTEN = '0A';

function ipv4(hex: string): string {
  // Four bytes in host (little-endian) order.
  return [6, 4, 2, 0].map((i) => parseInt(hex.slice(i, i + 2), 16)).join('.');
}

function ipv6(hex: string): string {
  // Four 32-bit words, each in host (little-endian) order.
  const bytes: number[] = [];
  for (let w = 0; w < 4; w++) for (const i of [6, 4, 2, 0]) bytes.push(parseInt(hex.slice(w * 8 + i, w * 8 + i + 2), 16));
  const mapped = bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
  if (mapped) return `::ffff:${bytes.slice(12).join('.')}`;
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((bytes[i]! << 8) | bytes[i + 1]!).toString(16));
  return groups.join(':');
}

/** Every local address listening on `port`, e.g. ["127.0.0.1"] or ["0:0:0:0:0:0:0:0"]. */
export function listeningAddresses(port: number): string[] {
  const found: string[] = [];
  for (const [file, decode] of [
    ['/proc/net/tcp', ipv4],
    ['/proc/net/tcp6', ipv6],
  ] as const) {
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 4 || fields[3] !== LISTEN) continue;
      const [address, portHex] = fields[1]!.split(':');
      if (parseInt(portHex!, 16) === port) found.push(decode(address!));
    }
  }
  return found;
}

export const isLoopback = (address: string) => address === '127.0.0.1' || address === '::ffff:127.0.0.1' || address === '0:0:0:0:0:0:0:1';
