// Ubuntu images (AMIs) per series and arch. Charms for series X only run on series X
// (what-we-run-and-why.txt, "Series"), so the image must be exactly the machine's series.
//
// Canonical publishes the current AMIs as SSM public parameters
// (/aws/service/canonical/ubuntu/server/<version>/stable/current/<arch>/hvm/ebs-gp3/ami-id;
// ebs-gp2 for 20.04). @aws-sdk/client-ssm is not a dependency, so the default lookup asks EC2
// DescribeImages for Canonical's newest matching image instead; an SSM-backed ImageFinder can
// be injected wherever that client is available.
import { DescribeImagesCommand, type EC2Client, type Image } from '@aws-sdk/client-ec2';
import { ProviderError } from '../provider.js';
import { toProviderError } from './errors.js';

/** Returns the AMI id for a series and arch, or throws ProviderError. */
export type ImageFinder = (series: string, arch: string) => Promise<string>;

const UBUNTU_VERSIONS: Readonly<Record<string, string>> = {
  focal: '20.04',
  jammy: '22.04',
  noble: '24.04',
};

/** Canonical's AWS account: only its images are trusted as "Ubuntu". */
export const CANONICAL_OWNER_ID = '099720109477';

// EC2's names for the two arches it runs.
const EC2_ARCHITECTURES: Readonly<Record<string, string>> = { amd64: 'x86_64', arm64: 'arm64' };

export const ubuntuVersion = (series: string): string | undefined =>
  Object.hasOwn(UBUNTU_VERSIONS, series) ? UBUNTU_VERSIONS[series] : undefined;

/** Juju's message when there is no image (Juju's EC2 provider: https://github.com/juju/juju/tree/3.6/internal/provider/ec2); not transient: the series is fixed. */
export const noImageError = (series: string, region: string, arch: string): ProviderError =>
  new ProviderError(`no metadata for "${series}" images in ${region} with arch ${arch}`, false);

/** The SSM parameter Canonical keeps pointing at the current image (for an SSM-backed finder). */
export function canonicalSsmParameter(series: string, arch: string): string | undefined {
  const version = ubuntuVersion(series);
  if (!version || !Object.hasOwn(EC2_ARCHITECTURES, arch)) return undefined;
  const volume = series === 'focal' ? 'ebs-gp2' : 'ebs-gp3';
  return `/aws/service/canonical/ubuntu/server/${version}/stable/current/${arch}/hvm/${volume}/ami-id`;
}

const CACHE_MS = 60 * 60 * 1000; // Canonical publishes new images every few days at most

/**
 * The default finder: Canonical's newest available HVM EBS image of the series and arch.
 * Results are cached for an hour so a provisioner starting many machines asks once.
 */
export function describeImagesFinder(client: EC2Client, region: string, now: () => number = Date.now): ImageFinder {
  const cache = new Map<string, { imageId: string; at: number }>();
  return async (series, arch) => {
    const version = ubuntuVersion(series);
    const ec2Arch = EC2_ARCHITECTURES[arch];
    if (!version || !ec2Arch) throw noImageError(series, region, arch);
    const key = `${series}/${arch}`;
    const hit = cache.get(key);
    if (hit && now() - hit.at < CACHE_MS) return hit.imageId;

    const images: Image[] = [];
    let nextToken: string | undefined;
    try {
      do {
        const page = await client.send(
          new DescribeImagesCommand({
            Owners: [CANONICAL_OWNER_ID],
            Filters: [
              // hvm-ssd* matches both hvm-ssd (gp2) and hvm-ssd-gp3 image names.
              { Name: 'name', Values: [`ubuntu/images/hvm-ssd*/ubuntu-${series}-${version}-${arch}-server-*`] },
              { Name: 'architecture', Values: [ec2Arch] },
              { Name: 'state', Values: ['available'] },
              { Name: 'root-device-type', Values: ['ebs'] },
              { Name: 'virtualization-type', Values: ['hvm'] },
            ],
            ...(nextToken ? { NextToken: nextToken } : {}),
          }),
        );
        images.push(...(page.Images ?? []));
        nextToken = page.NextToken;
      } while (nextToken);
    } catch (e) {
      throw toProviderError(e, 'cannot find an image');
    }

    // ISO-8601 creation dates order as strings.
    let newest: Image | undefined;
    for (const image of images) {
      if (image.ImageId && (!newest || (image.CreationDate ?? '') > (newest.CreationDate ?? ''))) {
        newest = image;
      }
    }
    if (!newest?.ImageId) throw noImageError(series, region, arch);
    cache.set(key, { imageId: newest.ImageId, at: now() });
    return newest.ImageId;
  };
}
