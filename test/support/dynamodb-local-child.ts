// A process that starts an in-memory DynamoDB Local, prints `{"pid":…,"port":…}` on one line and
// waits to be killed: the tests kill it to show DynamoDB Local does not outlive its parent.
import { startDynamoDbLocal } from '../../embedded/dynamodb-local.js';

const db = await startDynamoDbLocal();
console.log(JSON.stringify({ pid: db.pid, port: db.port }));
setInterval(() => undefined, 60_000);
