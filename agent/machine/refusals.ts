import { AgentApiError } from '../api-client.js';

/** True when the API refused the request with this error code. */
export const isDroverErrorCode = (e: unknown, code: string) => e instanceof AgentApiError && e.code === code;
