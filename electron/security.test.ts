import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { APP_URL, CONTENT_SECURITY_POLICY, WEB_PREFERENCES, appFile, contentType, isAppUrl } from './security';

describe('desktop window security', () => {
  it('isolates and sandboxes the page without Node', () => {
    expect(WEB_PREFERENCES).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false, webviewTag: false });
  });

  it('allows only the app protocol to be navigated to', () => {
    expect(isAppUrl(APP_URL)).toBe(true);
    expect(isAppUrl('sparring://app/index.html#/transcripts')).toBe(true);
    for (const url of ['https://example.com/', 'file:///etc/passwd', 'sparring://other/index.html', 'javascript:alert(1)', 'not a url']) {
      expect(isAppUrl(url), url).toBe(false);
    }
  });

  it('serves files only from inside the renderer build', () => {
    const root = path.resolve('/srv/dist/renderer');
    expect(appFile(root, 'sparring://app/')).toBe(path.join(root, 'index.html'));
    expect(appFile(root, 'sparring://app/assets/index-x.js')).toBe(path.join(root, 'assets', 'index-x.js'));
    expect(appFile(root, 'sparring://app/../../etc/passwd')).toBe(path.join(root, 'etc', 'passwd'));
    expect(appFile(root, 'sparring://app/%2e%2e/%2e%2e/secret')).toBe(path.join(root, 'secret'));
    expect(appFile(root, 'https://app/index.html')).toBeNull();
    expect(contentType('a.js')).toMatch(/javascript/);
  });

  it('has a CSP without inline scripts or remote origins', () => {
    expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self'");
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-inline|unsafe-eval|https?:/);
  });
});
