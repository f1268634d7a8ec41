#!/usr/bin/env node
// Every hook tool (juju-log, relation-get, ...): forwards its name, arguments and working
// directory to the unit agent over the agent's unix socket and prints what the agent answers,
// exiting with its code. All parsing and formatting happens in the agent, which holds the hook's
// context (as Juju's jujuc does). Plain JavaScript on purpose: hooks call many tools, so each
// must start fast, without a TypeScript loader.
//
// Invoked as `hook-tool.mjs <tool> [args...]` (the wrappers in the tools directory do this), or
// through a symlink named after the tool.
import { connect } from 'node:net';
import { basename } from 'node:path';

const self = basename(process.argv[1] ?? '');
const [command = '', ...args] = self === 'hook-tool.mjs' ? process.argv.slice(2) : [self, ...process.argv.slice(2)];

function fail(message) {
  process.stderr.write(`ERROR ${message}\n`);
  process.exit(1);
}

const contextId = process.env.JUJU_CONTEXT_ID;
const socketPath = process.env.JUJU_AGENT_SOCKET_ADDRESS || process.env.JUJU_AGENT_SOCKET;
if (!contextId) fail('JUJU_CONTEXT_ID not set');
if (!socketPath) fail('JUJU_AGENT_SOCKET not set');

async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

// Only `relation-set --file -` and `state-set --file -` (ops's only way to call state-set) read
// standard input; any other tool must not wait on it.
const wantsStdin =
  (command === 'relation-set' || command === 'state-set') &&
  args.some((a, i) => a === '--file=-' || (a === '--file' && args[i + 1] === '-'));
const request = { contextId, command, args, cwd: process.cwd(), ...(wantsStdin ? { stdin: await readStdin() } : {}) };

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
  process.stdout.write(answer.stdout ?? '', () => {
    process.stderr.write(answer.stderr ?? '', () => process.exit(answer.code ?? 1));
  });
});
socket.end(`${JSON.stringify(request)}\n`);
