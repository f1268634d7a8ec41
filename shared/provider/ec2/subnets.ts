// Which subnet (and so which availability zone) a machine is launched in, and what to say when
// none of them has room.
//
// The stack gives the provisioner one public subnet per availability zone. A machine is tried
// first in a subnet chosen from its id — stable, so a retry of the same attempt goes back to the
// zone it was tried in first, and consecutive machines land in different zones. When EC2 answers
// that a zone cannot take the launch (no capacity for the type there, or the type is not offered
// there), the next subnet is tried with the SAME ClientToken. EC2 binds a token only to a
// request that succeeded, so the zones that refused leave nothing behind; once one launch
// succeeded, any later call with that token, in whichever zone, replays it (EC2 ignores a changed
// zone in a replay) or fails with IdempotentParameterMismatch, and the provider then finds the
// instance by its token. Whatever order retries take, there is at most one instance per token; a
// new token per zone could start one instance in each.
// https://docs.aws.amazon.com/ec2/latest/devguide/ec2-api-idempotency.html
import { createHash } from 'node:crypto';
import { DescribeSubnetsCommand, type EC2Client } from '@aws-sdk/client-ec2';
import { awsErrorCode } from './errors.js';

// Errors about one zone, not the launch: another zone may well take the same request.
// InsufficientInstanceCapacity: no room for the type in that zone now (it comes back by itself).
// Unsupported: the type is not offered in that zone (it may be in another; in none, the user
// must choose another type).
const ZONAL_CODES = new Set(['InsufficientInstanceCapacity', 'Unsupported']);

export const isZonalLaunchError = (e: unknown): boolean => ZONAL_CODES.has(awsErrorCode(e) ?? '');

/** Only capacity comes back by itself; a type offered in none of the zones tried does not. */
export const isCapacityError = (e: unknown): boolean => awsErrorCode(e) === 'InsufficientInstanceCapacity';

/**
 * The subnets in the order a machine tries them: all of them, starting at one picked from the
 * machine id (a number mod the count, so machines 0, 1, 2 ... take turns; a hash for any other
 * id), so the same machine always starts in the same zone.
 */
export function subnetOrder(subnetIds: readonly string[], machineId: string): string[] {
  const n = subnetIds.length;
  if (n === 0) return [];
  const first = Number(startIndex(machineId) % BigInt(n));
  return [...subnetIds.slice(first), ...subnetIds.slice(0, first)];
}

function startIndex(machineId: string): bigint {
  if (/^\d+$/.test(machineId)) return BigInt(machineId);
  return BigInt(`0x${createHash('sha256').update(machineId).digest('hex').slice(0, 12)}`);
}

/**
 * "us-east-1a (subnet-0abc)" for each subnet, for messages. Only asked when every zone refused a
 * launch; if EC2 cannot say (permissions, throttling), the subnet ids alone still tell the user
 * where it was tried.
 */
export async function describeZones(client: EC2Client, subnetIds: readonly string[]): Promise<Map<string, string>> {
  const zones = new Map<string, string>();
  try {
    const page = await client.send(new DescribeSubnetsCommand({ SubnetIds: [...subnetIds] }));
    for (const subnet of page?.Subnets ?? []) {
      if (subnet.SubnetId && subnet.AvailabilityZone) zones.set(subnet.SubnetId, `${subnet.AvailabilityZone} (${subnet.SubnetId})`);
    }
  } catch {
    // The message falls back to subnet ids.
  }
  return zones;
}
