/** What every client of DynamoDB Local signs with: it accepts any credentials, and with -sharedDb they do not partition the data. */
export function localCredentials() {
  return { accessKeyId: 'local', secretAccessKey: 'local' };
}
