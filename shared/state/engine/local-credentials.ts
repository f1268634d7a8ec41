/**
 * What a client of DynamoDB Local signs with. With -sharedDb the key does not partition the data;
 * the local controller's DynamoDB Local refuses every key but its own (`accessKeyId`, a secret of
 * the controller's: embedded/DynamoDbLocalLauncher.java), while the tests' throwaway instances
 * accept any, and `local` is what they are given.
 */
export function localCredentials(accessKeyId = 'local') {
  return { accessKeyId, secretAccessKey: 'local' };
}
