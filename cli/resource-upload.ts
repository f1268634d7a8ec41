// Resource files on their way to the controller (`deploy --resource`, `attach-resource`): each
// `name=path` is checked against the charm's declarations before anything is read, then the file
// is hashed as it streams and PUT straight to the charm store with the URL `charm-upload` hands
// out, as a charm archive is (cli/charm-upload.ts): a file of any size up to MAX_RESOURCE_BYTES is
// streamed, never held in memory, and travels outside the API's requests. The request then names
// each by its sha256; an empty file is named, not uploaded (an upload has a byte at least).
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import type { UploadTarget } from '#shared/charmstore/charm-store.js';
import type { CharmResource } from '#shared/domain/resources.js';
import { checkUploadable, MAX_RESOURCE_BYTES, parseResourceArgument } from '#shared/domain/resources.js';
import type { ApiClient } from './client.js';
import { CliError } from './errors.js';
import { errorMessage } from '#shared/domain/errors.js';

interface ResourceFile {
  name: string;
  path: string;
  size: number;
}

/**
 * `name=path` arguments, checked (declared, a file resource, a readable file within the bound)
 * before any upload. `null`: the charm is not on this machine (one from Charmhub), so the
 * controller checks the names against it instead.
 */
export async function resourceFiles(declared: Record<string, CharmResource> | undefined | null, args: string[]): Promise<ResourceFile[]> {
  const parsed = args.map((arg) => {
    try {
      return parseResourceArgument(arg);
    } catch (e) {
      throw new CliError(errorMessage(e));
    }
  });
  const names = parsed.map((p) => p.name);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice !== undefined) throw new CliError(`resource "${twice}" given more than once`);
  try {
    if (declared !== null) checkUploadable(declared, names);
  } catch (e) {
    throw new CliError(errorMessage(e));
  }
  const files: ResourceFile[] = [];
  for (const { name, path } of parsed) {
    const info = await stat(path).catch((e: NodeJS.ErrnoException) => {
      throw new CliError(`resource "${name}": ${e.code === 'ENOENT' ? `file "${path}" not found` : e.message}`);
    });
    if (!info.isFile()) throw new CliError(`resource "${name}": "${path}" is not a file`);
    if (info.size > MAX_RESOURCE_BYTES)
      throw new CliError(`resource "${name}": "${path}" is ${info.size} bytes, more than the ${MAX_RESOURCE_BYTES} a resource may be`);
    files.push({ name, path, size: info.size });
  }
  return files;
}

async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Uploads each file; returns resource name → sha256, for the request. */
export async function uploadResources(client: ApiClient, files: ResourceFile[], signal?: AbortSignal): Promise<Record<string, string>> {
  const uploads: Record<string, string> = {};
  for (const file of files) {
    const sha256 = await sha256Of(file.path);
    uploads[file.name] = sha256;
    if (file.size === 0) continue;
    const target = await client.post<'charm-upload', UploadTarget>('charm-upload', { sha256, size: file.size });
    const url = new URL(target.url, client.selected.controller.apiUrl);
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'PUT',
        headers: target.headers,
        body: Readable.toWeb(createReadStream(file.path)) as ReadableStream<Uint8Array>,
        duplex: 'half',
        ...(signal ? { signal } : {}),
      } as RequestInit);
    } catch (e) {
      if (signal?.aborted) throw new CliError('interrupted');
      const cause = (e as { cause?: { message?: string } }).cause?.message ?? errorMessage(e);
      throw new CliError(`cannot upload resource "${file.name}" to ${url.host}: ${cause}`);
    }
    if (!response.ok) {
      const text = (await response.text().catch(() => '')).slice(0, 500);
      throw new CliError(`cannot upload resource "${file.name}" to ${url.host}: HTTP ${response.status} ${text}`);
    }
  }
  return uploads;
}
