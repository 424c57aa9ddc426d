// A URL as logs may show it: without the API key a client put in it (query
// apikey, or the last segment of /rpc/<key>). Keys never reach a log in clear.
const QUERY_KEY = /([?&]apikey=)[^&#]*/gi
const RPC_PATH_KEY = /^\/rpc\/[^/?#]+/

export function redactUrl (url: string): string {
  return url.replace(RPC_PATH_KEY, '/rpc/[key]').replace(QUERY_KEY, '$1[key]')
}
