// The header that carries the session key on the page's API calls: read by the server
// (cli/dashboard/server.ts), sent by the page (api.ts). Here, where both can import it: the page's
// bundle takes no Node module.
export const KEY_HEADER = 'x-drover-dashboard-key';
