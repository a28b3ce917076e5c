/** oidc-provider ships no types; the tests use a handful of its calls (test/support/oauth-server.ts). */
declare module 'oidc-provider';
