/**
 * The Content-Security-Policy of the lab's pages, in the desktop window and in web mode alike:
 * the page may load only its own code and talk only to its own engine (no inline code, no
 * network beyond its origin).
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');
