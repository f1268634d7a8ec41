// The simulator's SQS thread: fauxqs (embedded/sqs-server.ts) on its own thread, as SQS is a
// service of its own on AWS. Its answers to the agents' receives and deletes and to the
// functions' sends are then not counted as the controller's CPU.
import { startSqsServer } from '../../../embedded/sqs-server.js';
import { serve } from './thread-rpc.js';

const server = await startSqsServer();

serve({
  endpoint: () => server.endpoint,
  stop: () => server.stop(),
});
