// How `drover ssh` and `drover scp` read their command lines, as Juju 3.6's do
// (https://github.com/juju/juju/blob/3.6/cmd/juju/ssh/ssh.go, scp.go, ssh_machine.go): Juju's own
// flags come before the target; everything after it is OpenSSH's (its options, then the remote
// command), never drover's, so `drover ssh 0 grep -m 1 x` runs grep with `-m 1`. The words are
// read from the raw command line rather than from commander's parse, which would take such an
// option for drover's own `-m`.
import { isValidApplicationName, isValidMachineId, isValidUnitName } from '#shared/domain/names.js';
import { UsageError } from '../errors.js';

export interface SshFlags {
  /** `--proxy`: Juju proxies through its controller; drover always goes through AWS's own channel, so it changes nothing. */
  proxy: boolean;
  /** `--pty[=true|false]`; absent: a pty exactly when stdin is a terminal. */
  pty?: boolean;
  noHostKeyChecks: boolean;
  /** `-m`/`--model` given among the command's own flags. */
  model?: string;
}

export interface SshCommandLine {
  /** `-h`/`--help` among the command's own flags: commander's help is off, since `df -h` is the remote command's. */
  help?: true;
  flags: SshFlags;
  /** The words after Juju's flags: ssh's target and what follows it, scp's options and paths. */
  words: string[];
}

const parseBool = (flag: string, value: string): boolean => {
  if (['1', 't', 'T', 'true', 'TRUE', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'false', 'FALSE', 'False'].includes(value)) return false;
  throw new UsageError(`invalid value "${value}" for flag --${flag}: parse error`);
};

/**
 * The flags of `drover [-m model] ssh|scp [flags] <target|--> ...` and the words after them: the
 * raw arguments after the command's name. A flag Juju does not know before the target is a usage
 * error, as gnuflag makes it.
 */
export function readSshCommandLine(argv: string[], command: 'ssh' | 'scp'): SshCommandLine {
  const flags: SshFlags = { proxy: false, noHostKeyChecks: false };
  let i = 0;
  // The global options before the command's name (`drover -m staging ssh 0`).
  for (; i < argv.length && argv[i] !== command; i++) {
    const arg = argv[i]!;
    if (arg === '-m' || arg === '--model') flags.model = argv[++i];
    else if (arg.startsWith('--model=')) flags.model = arg.slice('--model='.length);
    else if (arg.startsWith('-m') && arg.length > 2) flags.model = arg.slice(2);
  }
  for (i++; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') return { flags, words: argv.slice(i + 1) };
    if (!arg.startsWith('-') || arg === '-') break;
    const [name, value] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    switch (name) {
      case '-h':
      case '--help':
        return { help: true, flags, words: [] };
      case '--proxy':
        flags.proxy = value === undefined ? true : parseBool('proxy', value);
        break;
      case '--pty':
        flags.pty = value === undefined ? true : parseBool('pty', value);
        break;
      case '--no-host-key-checks':
        flags.noHostKeyChecks = value === undefined ? true : parseBool('no-host-key-checks', value);
        break;
      case '-m':
      case '--model':
        flags.model = value ?? argv[++i];
        if (flags.model === undefined) throw new UsageError(`flag needs an argument: ${name}`);
        break;
      case '--container':
      case '--remote':
        throw new UsageError(`${name} applies to Kubernetes models only: drover runs machine models`);
      default:
        if (/^-m./.test(arg)) {
          flags.model = arg.slice(2);
          break;
        }
        throw new UsageError(`option provided but not defined: ${name}`);
    }
  }
  return { flags, words: argv.slice(i) };
}

// OpenSSH's options that take a value (ssh(1)'s synopsis; scp(1)'s for scp).
const SSH_VALUE_OPTIONS = new Set('BbcDEeFIiJLlmOoPpQRSWw');
const SCP_VALUE_OPTIONS = new Set('cDFiJlOoPSX');

/**
 * Options first, then operands, as getopt reads them: `-i key -p22 -tt uname -a` is options
 * `-i key -p22 -tt` and operands `uname -a`. `--` ends the options.
 */
function splitOptions(words: string[], valueOptions: Set<string>): { options: string[]; operands: string[] } {
  let i = 0;
  for (; i < words.length; i++) {
    const word = words[i]!;
    if (word === '--') return { options: words.slice(0, i), operands: words.slice(i + 1) };
    if (!word.startsWith('-') || word === '-') break;
    // A cluster of letters; the first that takes a value takes the rest of the word, or the next word.
    for (let j = 1; j < word.length; j++) {
      if (valueOptions.has(word[j]!)) {
        if (j === word.length - 1) i++;
        break;
      }
    }
  }
  if (i > words.length) throw new UsageError(`option requires an argument: ${words[words.length - 1]}`);
  return { options: words.slice(0, i), operands: words.slice(i) };
}

/** `<target> [ssh options] [command...]`. */
export function splitSshWords(words: string[]): { target: string; options: string[]; command: string[] } {
  const [target, ...rest] = words;
  if (target === undefined) throw new UsageError('no target name specified');
  const { options, operands } = splitOptions(rest, SSH_VALUE_OPTIONS);
  return { target, options, command: operands };
}

/** `[scp options] <source>... <destination>`. */
export function splitScpWords(words: string[]): { options: string[]; paths: string[] } {
  const { options, operands } = splitOptions(words, SCP_VALUE_OPTIONS);
  if (operands.length < 2) throw new UsageError('at least two arguments required');
  return { options, paths: operands };
}

export type TargetEntity = { kind: 'machine'; id: string } | { kind: 'unit'; name: string } | { kind: 'leader'; application: string };

export interface Target {
  /** `bob@0`: the account to reach; absent, Juju's `ubuntu`. */
  user?: string;
  entity: TargetEntity;
  /** As the user wrote it, without the user. */
  text: string;
}

/**
 * `[user@]<machine|unit|app/leader>`. Juju would hand anything else to ssh as a host name;
 * drover reaches only the model's machines, so anything else is refused.
 */
export function parseTarget(text: string): Target {
  const at = text.indexOf('@');
  const user = at >= 0 ? text.slice(0, at) : undefined;
  const name = at >= 0 ? text.slice(at + 1) : text;
  const leader = /^(.+)\/leader$/.exec(name);
  const entity: TargetEntity | undefined = isValidMachineId(name)
    ? { kind: 'machine', id: name }
    : isValidUnitName(name)
      ? { kind: 'unit', name }
      : leader && isValidApplicationName(leader[1]!)
        ? { kind: 'leader', application: leader[1]! }
        : undefined;
  if (!entity) throw new UsageError(`"${name}" is not a machine, a unit or <application>/leader of the model`);
  if (user === '') throw new UsageError(`no user name before "@" in "${text}"`);
  return { ...(user !== undefined ? { user } : {}), entity, text: name };
}

export interface ScpPath {
  /** Absent: a path on this host. */
  target?: Target;
  path: string;
}

/** Juju's expandSCPArgs: `<target>:<path>` is remote (any word with a colon that is no option); the rest local. */
export function parseScpPath(word: string): ScpPath {
  const colon = word.indexOf(':');
  if (colon < 0 || word.startsWith('-')) return { path: word };
  return { target: parseTarget(word.slice(0, colon)), path: word.slice(colon + 1) };
}
