// A simulator thread's entry (thread-rpc.ts): a worker thread does not inherit the tsx loader
// the bench runs under, so this registers it here and then imports the thread's own module.
import { workerData } from 'node:worker_threads';
import { tsImport } from 'tsx/esm/api';

await tsImport(workerData.module, import.meta.url);
