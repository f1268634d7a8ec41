// The token of one page load, which every write of the page carries (cli/dashboard/session.ts):
// the server puts it in the page's <meta>, the page sends it back in this header. Here, where both
// can import it: the page's bundle takes no Node module.
export const PAGE_TOKEN_HEADER = 'x-drover-page-token';
export const PAGE_TOKEN_META = 'drover-page-token';
