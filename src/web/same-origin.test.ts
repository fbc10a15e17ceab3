import { describe, expect, it } from 'vitest';
import { isSameOriginRequest } from './same-origin.js';

const site = 'https://onair.example';

describe('isSameOriginRequest', () => {
  it('accepts a form posted from this site', () => {
    expect(isSameOriginRequest({ 'sec-fetch-site': 'same-origin', origin: site }, site)).toBe(true);
    expect(isSameOriginRequest({ origin: site }, site)).toBe(true);
    expect(isSameOriginRequest({ 'sec-fetch-site': 'same-origin' }, site)).toBe(true);
  });

  it('refuses other sites, sibling subdomains, and requests that say nothing', () => {
    expect(isSameOriginRequest({}, site)).toBe(false);
    expect(isSameOriginRequest({ origin: 'https://evil.example' }, site)).toBe(false);
    expect(isSameOriginRequest({ origin: 'null' }, site)).toBe(false);
    expect(isSameOriginRequest({ origin: 'http://onair.example' }, site)).toBe(false);
    expect(isSameOriginRequest({ 'sec-fetch-site': 'same-site', origin: site }, site)).toBe(false);
    expect(isSameOriginRequest({ 'sec-fetch-site': 'cross-site' }, site)).toBe(false);
    expect(isSameOriginRequest({ 'sec-fetch-site': 'none', origin: site }, site)).toBe(false);
  });
});
