// A dashboard's session as a browser gets it: its one-time link opened once, and the cookie that
// link sets, for tests that call the dashboard's server without a browser.

/** Opens the one-time link and returns the `Cookie` header it admits, failing if it admits none. */
export async function openDashboardSession(oneTimeUrl: string): Promise<string> {
  const res = await fetch(oneTimeUrl, { redirect: 'manual' });
  const cookie = res.headers.get('set-cookie');
  if (res.status !== 303 || !cookie) throw new Error(`${oneTimeUrl} answered ${res.status} without a cookie`);
  return cookie.split(';')[0]!;
}
