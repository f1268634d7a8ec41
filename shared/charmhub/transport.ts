// Charmhub's HTTP API as the juju client speaks it: the JSON of /v2/charms/refresh, /info and
// /find, field for field as Juju 3.6's charmhub/transport package declares them
// (https://github.com/juju/juju/tree/3.6/charmhub/transport). Only what drover reads is typed;
// the rest of a response is ignored, as Go's decoder ignores it.

export interface ChBase {
  architecture: string;
  name: string;
  channel: string;
}

export interface ChDownload {
  'hash-sha-256'?: string;
  'hash-sha-384'?: string;
  size: number;
  url: string;
}

export interface ChApiError {
  code: string;
  message: string;
  extra?: { releases?: { base: ChBase; channel: string }[]; 'default-bases'?: ChBase[] };
}

export interface RefreshRequestAction {
  action: 'install' | 'download' | 'refresh';
  'instance-key': string;
  name?: string;
  id?: string;
  channel?: string;
  revision?: number;
  base: ChBase | null;
}

export interface RefreshRequest {
  context: unknown[];
  actions: RefreshRequestAction[];
  fields?: string[];
}

export interface ChResourceRevision {
  download: ChDownload;
  description?: string;
  name: string;
  filename?: string;
  revision: number;
  type: string;
}

export interface RefreshEntity {
  type: 'charm' | 'bundle';
  download: ChDownload;
  id: string;
  name: string;
  publisher?: Record<string, string>;
  resources?: ChResourceRevision[];
  bases?: ChBase[];
  revision: number;
  summary?: string;
  version?: string;
}

export interface RefreshResult {
  charm?: RefreshEntity;
  'effective-channel'?: string;
  error?: ChApiError;
  id?: string;
  'instance-key': string;
  name?: string;
  result: string;
}

export interface RefreshResponses {
  results?: RefreshResult[];
  'error-list'?: ChApiError[];
}

export interface ChChannel {
  name: string;
  base: ChBase;
  'released-at': string;
  risk: string;
  track: string;
}

export interface ChEntity {
  description?: string;
  license?: string;
  publisher?: Record<string, string>;
  summary?: string;
  'store-url'?: string;
}

export interface InfoRevision {
  'config-yaml'?: string;
  'created-at'?: string;
  download?: ChDownload;
  'metadata-yaml'?: string;
  bases?: ChBase[];
  revision: number;
  version?: string;
}

export interface InfoChannelMap {
  channel: ChChannel;
  revision: InfoRevision;
}

export interface InfoResponse {
  type: 'charm' | 'bundle';
  id: string;
  name: string;
  result: ChEntity;
  'channel-map': InfoChannelMap[];
  'default-release'?: InfoChannelMap;
  'error-list'?: ChApiError[];
}

export interface FindResult {
  type: 'charm' | 'bundle';
  id: string;
  name: string;
  result: ChEntity;
  'default-release'?: { channel: ChChannel; revision: InfoRevision };
}

export interface FindResponses {
  results?: FindResult[];
  'error-list'?: ChApiError[];
}
