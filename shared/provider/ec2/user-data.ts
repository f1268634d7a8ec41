// The user data that turns a fresh Ubuntu instance into a drover machine: install the pinned
// Node.js (node-release.ts) and the machine agent bundle, then run the agent as a systemd
// service: the provisioner's job is that non-Dead machines have agents running on live
// instances.
//
// No secrets: user data is readable by anyone allowed ec2:DescribeInstanceAttribute (AWS's
// ReadOnlyAccess among them) and by every process on the instance through the metadata service.
// The agent's identity is the instance role (functions/api/agent-identity.ts), so the script
// carries only ids and addresses.
import { DEFAULT_MODEL_KEY } from '../../domain/models.js';
import { ProviderError } from '../provider.js';
import { nodeTarball } from './node-release.js';
import { S3_GET_PROGRAM } from './s3-get-script.js';

/**
 * Where the instance downloads the agent bundle (a gzip tarball with machine-agent.js at its
 * root): a private S3 object it reads with its instance role (what the stack gives it), or a URL.
 * Neither changes between retries of one launch, so neither does the user data.
 */
export type AgentBundleSource = { bucket: string; key: string } | { url: string };

export interface MachineAgentUserData {
  controllerId: string;
  /** The key of the machine's model (DROVER_MODEL, agent/config.ts). */
  model: string;
  machineId: string;
  region: string;
  arch: 'amd64' | 'arm64';
  apiUrl: string;
  queueUrl: string;
  agentBundle: AgentBundleSource;
  /** If given, the download is verified against it (hex SHA-256). */
  agentBundleSha256?: string;
}

// RunInstances rejects user data over 16 KiB (before base64).
const MAX_USER_DATA_BYTES = 16 * 1024;

// Env-file values: URL-safe characters only, so neither systemd's EnvironmentFile parser
// (quotes, backslashes, `$`) nor the quoted heredoc below can change their meaning.
const SAFE_VALUE = /^[A-Za-z0-9._~:/?#[\]@!&()*+,;=%-]+$/;

/** Single-quotes a word for bash: 'it'\''s'. */
export const shellQuote = (s: string): string => `'${s.replaceAll("'", `'\\''`)}'`;

function envLine(name: string, value: string): string {
  if (!SAFE_VALUE.test(value)) {
    throw new ProviderError(`cannot start machine agent: ${name} has characters an env file cannot carry`, false);
  }
  return `${name}=${value}`;
}

/** The bash script cloud-init runs once at first boot. */
export function renderUserDataScript(d: MachineAgentUserData): string {
  const env = [
    envLine('DROVER_CONTROLLER_ID', d.controllerId),
    // Only for another model than `default`, which the agent assumes without it: a `default`
    // machine's user data stays what it was before there were many models, so a retried start
    // replays its launch (ec2-provider.ts, clientToken) with the same parameters.
    ...(d.model === DEFAULT_MODEL_KEY ? [] : [envLine('DROVER_MODEL', d.model)]),
    envLine('DROVER_MACHINE_ID', d.machineId),
    envLine('DROVER_API_URL', d.apiUrl),
    envLine('DROVER_QUEUE_URL', d.queueUrl),
    envLine('AWS_REGION', d.region),
  ];
  if (d.agentBundleSha256 !== undefined && !/^[0-9a-f]{64}$/i.test(d.agentBundleSha256)) {
    throw new ProviderError('cannot start machine agent: agentBundleSha256 is not a hex SHA-256', false);
  }
  const node = nodeTarball(d.arch);
  const verifyBundle = d.agentBundleSha256
    ? `echo ${shellQuote(`${d.agentBundleSha256.toLowerCase()}  agent.tgz`)} | (cd "$work" && sha256sum -c --quiet -)`
    : '# (no agent bundle checksum configured)';
  return `#!/bin/bash
# drover machine agent bootstrap.
set -euo pipefail
umask 077
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fetch() { curl -fsS --retry 10 --retry-connrefused --retry-delay 3 -o "$2" "$1"; }

# The agent's settings: root-only, read by systemd. Its identity is the instance role.
install -d -m 0700 /etc/drover
cat > /etc/drover/machine-agent.env <<'DROVER_ENV_END'
${env.join('\n')}
DROVER_ENV_END
chmod 0600 /etc/drover/machine-agent.env

# Node.js, the release pinned in shared/provider/ec2/node-release.ts, refused unless its SHA-256
# is the one pinned there.
fetch ${shellQuote(node.url)} "$work/node.tar.xz"
echo ${shellQuote(`${node.sha256}  node.tar.xz`)} | (cd "$work" && sha256sum -c --quiet -)
install -d -m 0755 /opt/drover /opt/drover/node
tar -xJf "$work/node.tar.xz" -C /opt/drover/node --strip-components=1 --no-same-owner

# The machine agent bundle.
${fetchBundle(d.agentBundle, d.region)}
${verifyBundle}
install -d -m 0700 /opt/drover/agent
tar -xzf "$work/agent.tgz" -C /opt/drover/agent --no-same-owner

cat > /etc/systemd/system/drover-machine-agent.service <<'DROVER_UNIT_END'
[Unit]
Description=drover machine agent
Wants=network-online.target
After=network-online.target

[Service]
EnvironmentFile=/etc/drover/machine-agent.env
ExecStart=/opt/drover/node/bin/node /opt/drover/agent/machine-agent.js
# A machine agent whose machine is Dead exits 0 and "refuses to run again" (death-and-destruction.txt).
Restart=on-failure
RestartSec=5

[Install]
WantedBy=multi-user.target
DROVER_UNIT_END
chmod 0644 /etc/systemd/system/drover-machine-agent.service
systemctl daemon-reload
systemctl enable --now drover-machine-agent.service
`;
}

/** Tries a signed GET of the bundle with the instance role ten times (its credentials may lag the boot). */
function fetchBundle(source: AgentBundleSource, region: string): string {
  if ('url' in source) return `fetch ${shellQuote(source.url)} "$work/agent.tgz"`;
  return `s3_get() {
  python3 - "$@" <<'DROVER_S3_GET_END'
${S3_GET_PROGRAM}DROVER_S3_GET_END
}
for try in $(seq 10); do
  s3_get ${shellQuote(source.bucket)} ${shellQuote(source.key)} ${shellQuote(region)} "$work/agent.tgz" && break
  [ "$try" -lt 10 ] || exit 1
  sleep 3
done`;
}

/** The script, base64-encoded as RunInstances expects. */
export function renderUserData(d: MachineAgentUserData): string {
  const script = renderUserDataScript(d);
  if (Buffer.byteLength(script, 'utf8') > MAX_USER_DATA_BYTES) {
    throw new ProviderError(`cannot start machine agent: user data exceeds ${MAX_USER_DATA_BYTES} bytes`, false);
  }
  return Buffer.from(script, 'utf8').toString('base64');
}
