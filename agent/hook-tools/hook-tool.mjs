#!/usr/bin/env node
// Every hook tool (juju-log, relation-get, ...): forwards its name, arguments and working
// directory to the unit agent over the agent's unix socket and prints what the agent answers,
// exiting with its code. All parsing and formatting happens in the agent, which holds the hook's
// context (as Juju's jujuc does). Plain JavaScript on purpose: hooks call many tools, so each
// must start fast, without a TypeScript loader.
//
// Files are this process's business, never the agent's: it reads the file `--file <path>` names
// and sends what it holds, and writes the answer of `-o <path>` itself, so a hook can make the
// agent read or write nothing the hook could not (agent/hook-tools/tool-context.ts).
//
// Invoked as `hook-tool.mjs <tool> [args...]` (the wrappers in the tools directory do this), or
// through a symlink named after the tool.
import { readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { basename, resolve } from 'node:path';

const self = basename(process.argv[1] ?? '');
const [command = '', ...args] = self === 'hook-tool.mjs' ? process.argv.slice(2) : [self, ...process.argv.slice(2)];

function fail(message) {
  process.stderr.write(`ERROR ${message}\n`);
  process.exit(1);
}

const contextId = process.env.JUJU_CONTEXT_ID;
const secret = process.env.DROVER_HOOK_SECRET;
const socketPath = process.env.JUJU_AGENT_SOCKET_ADDRESS || process.env.JUJU_AGENT_SOCKET;
if (!contextId) fail('JUJU_CONTEXT_ID not set');
if (!secret) fail('DROVER_HOOK_SECRET not set');
if (!socketPath) fail('JUJU_AGENT_SOCKET not set');

async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

// Only relation-set and state-set take `--file`; with `-` (ops's only way to call state-set) they
// read standard input, and any other tool must not wait on it.
function fileFlag() {
  if (command !== 'relation-set' && command !== 'state-set') return undefined;
  let file;
  args.forEach((a, i) => {
    if (a.startsWith('--file=')) file = a.slice('--file='.length);
    else if (a === '--file' && i + 1 < args.length) file = args[i + 1];
  });
  return file;
}

function readNamedFile(path) {
  try {
    return readFileSync(resolve(path), 'utf8');
  } catch (e) {
    fail(`cannot read ${path}: ${e.message}`);
  }
}

const file = fileFlag();
const request = {
  contextId,
  secret,
  command,
  args,
  cwd: process.cwd(),
  ...(file === '-' ? { stdin: await readStdin() } : {}),
  ...(file !== undefined && file !== '-' && file !== '' ? { fileContent: readNamedFile(file) } : {}),
};

function writeOutputFile(file) {
  try {
    writeFileSync(resolve(file.path), file.content);
    return true;
  } catch (e) {
    process.stderr.write(`ERROR cannot write ${file.path}: ${e.message}\n`);
    return false;
  }
}

const socket = connect(socketPath);
const chunks = [];
socket.on('error', (e) => fail(`cannot reach the unit agent at ${socketPath}: ${e.message}`));
socket.on('data', (chunk) => chunks.push(chunk));
socket.on('end', () => {
  let answer;
  try {
    answer = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    fail('the unit agent sent an unreadable answer');
  }
  const written = answer.file === undefined || writeOutputFile(answer.file);
  process.stdout.write(answer.stdout ?? '', () => {
    process.stderr.write(answer.stderr ?? '', () => process.exit(written ? (answer.code ?? 1) : 1));
  });
});
socket.end(`${JSON.stringify(request)}\n`);
