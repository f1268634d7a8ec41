// What signs a request to the API: a bearer token locally (cli/client.ts), SigV4 on AWS
// (cli/sigv4.ts, loaded only when needed).

/** What a request looks like to a signer: it returns the headers to add. */
export interface OutgoingRequest {
  method: 'GET' | 'POST';
  url: URL;
  headers: Record<string, string>;
  body?: string;
}
export type RequestSigner = (request: OutgoingRequest) => Promise<Record<string, string>>;
