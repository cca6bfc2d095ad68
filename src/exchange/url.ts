/**
 * A URL without its user-info (`user:password@`): credentials the page put in a URL are never
 * captured, imported or written. Textual, so it works on any string a page or a file supplies and
 * leaves every other character as it was; `\` ends the authority as it does for http(s) URLs.
 */
export function withoutUserInfo(url: string): string {
  return url.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/)[^/?#\\]*@/, '$1');
}
