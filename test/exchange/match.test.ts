/** Which requests an override answers (src/exchange/match.ts): exact URLs, `*` patterns, and the patterns refused with why. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { patternError, requestMatches, urlMatches } from '../../src/exchange/index.ts';

describe('an override\'s URL: exact, or a pattern with * wildcards', () => {
  it('a URL without * matches itself only, compared without user-info', () => {
    const u = 'http://127.0.0.1:8000/agent?x=1';
    assert.equal(urlMatches(u, u), true);
    assert.equal(urlMatches(u, 'http://user:pw@127.0.0.1:8000/agent?x=1'), true);
    for (const other of ['http://127.0.0.1:8000/agent', 'http://127.0.0.1:8000/agent?x=12', 'https://127.0.0.1:8000/agent?x=1', 'http://127.0.0.1:8000/agent?x=1#f']) {
      assert.equal(urlMatches(u, other), false, other);
    }
  });

  it('each * stands for any run of characters, none included, / and ? included', () => {
    const p = 'http://127.0.0.1:*/agent*';
    for (const yes of ['http://127.0.0.1:8000/agent', 'http://127.0.0.1:1/agent/chat?thread=t', 'http://127.0.0.1:8000/agentx']) assert.equal(urlMatches(p, yes), true, yes);
    for (const no of ['http://127.0.0.1/agent', 'http://127.0.0.1:8000/agen', 'http://localhost:8000/agent', 'https://127.0.0.1:8000/agent']) assert.equal(urlMatches(p, no), false, no);
    assert.equal(urlMatches('http://h/*/run/*', 'http://h/a/run/b/run/c'), true, 'the middle piece found at its leftmost place still leaves the rest its match');
    assert.equal(urlMatches('http://h/a*a', 'http://h/a'), false, 'prefix and suffix may not overlap');
    assert.equal(urlMatches('http://h/a*a', 'http://h/aa'), true);
    assert.equal(urlMatches('http://h/*x*y', 'http://h/yx'), false, 'pieces in order');
    assert.equal(urlMatches('http://*', 'https://h/'), false);
  });

  it('a request matches on its method, case-folded, and its URL', () => {
    const m = { method: 'POST', url: 'http://h/agent/*' };
    assert.equal(requestMatches(m, 'post', 'http://h/agent/chat'), true);
    assert.equal(requestMatches(m, 'GET', 'http://h/agent/chat'), false);
    assert.equal(requestMatches(m, 'POST', 'http://h/other'), false);
  });

  it('refuses what no request URL can be, saying why; takes absolute http(s) URLs and patterns', () => {
    for (const ok of ['http://127.0.0.1:8000/agent', 'https://*.example.com/agent', 'http://*', 'HTTP://h/a*b*c']) assert.equal(patternError(ok), null, ok);
    assert.match(patternError('/agent')!, /not an absolute http\(s\) URL/);
    assert.match(patternError('*agent')!, /not an absolute http\(s\) URL/);
    assert.match(patternError('ws://h/agent')!, /not an absolute http\(s\) URL/);
    assert.match(patternError('http:///agent')!, /not an absolute http\(s\) URL/);
    assert.match(patternError('http://h/a b')!, /whitespace/);
    assert.match(patternError('http://me:pw@h/agent')!, /user-info/);
  });
});
