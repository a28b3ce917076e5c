import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';
import { startTestServer, type TestServer } from '../helpers/http-server.ts';

/**
 * A tiny OAuth 2.0 authorization server / OIDC issuer on loopback, for tests only: discovery
 * (RFC 8414 and OIDC), a JWKS of keys generated here, and a client_credentials token endpoint
 * issuing JWT access tokens. `sign` mints tokens directly, with any claim or header changed.
 */
export interface LocalIssuer {
  /** The issuer identifier, also its base URL: `http://127.0.0.1:<port>`. */
  issuer: string;
  jwksUri: string;
  server: TestServer;
  /** How many times the JWKS was fetched. */
  readonly jwksFetches: number;
  /** The `resource` parameter of each token request (RFC 8707), in order. */
  resources: string[];
  sign(claims: JWTPayload, options?: SignOptions): Promise<string>;
  /** A new signing key, published in the JWKS next to the old ones (rotation). */
  rotate(): Promise<void>;
  /** Registers a client for the token endpoint, with the scopes it is granted. */
  client(id: string, secret: string, scopes: string[], principal?: string): void;
  close(): Promise<void>;
}

export interface SignOptions {
  /** Omit a default claim by setting it to undefined. */
  expiresInSeconds?: number;
  kid?: string;
  /** Sign with a key not in the JWKS (a forged signature under a published kid). */
  foreignKey?: boolean;
}

interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

async function newKey(kid: string): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  return { kid, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' } };
}

export async function startLocalIssuer(options: { audience: string }): Promise<LocalIssuer> {
  const keys: SigningKey[] = [await newKey('key-1')];
  const foreign = await newKey('key-1');
  const clients = new Map<string, { secret: string; scopes: string[]; principal: string }>();
  const resources: string[] = [];
  let jwksFetches = 0;
  let issuer = '';

  const sign = async (claims: JWTPayload, signOptions: SignOptions = {}) => {
    const key = signOptions.foreignKey ? foreign : keys[keys.length - 1];
    const now = Math.floor(Date.now() / 1000);
    const payload: JWTPayload = { iss: issuer, aud: options.audience, iat: now, exp: now + (signOptions.expiresInSeconds ?? 300), ...claims };
    for (const [name, value] of Object.entries(payload)) if (value === undefined) delete payload[name];
    return new SignJWT(payload).setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: signOptions.kid ?? key.kid }).sign(key.privateKey);
  };

  const server = await startTestServer(async (request, response) => {
    const json = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    const path = new URL(request.url, issuer).pathname;
    if (path === '/.well-known/oauth-authorization-server' || path === '/.well-known/openid-configuration') {
      return json(200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        response_types_supported: ['code'],
        grant_types_supported: ['client_credentials'],
        token_endpoint_auth_methods_supported: ['client_secret_basic'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
      });
    }
    if (path === '/jwks') {
      jwksFetches++;
      return json(200, { keys: keys.map((key) => key.publicJwk) });
    }
    if (path === '/token' && request.method === 'POST') {
      const [id, secret] = Buffer.from((request.headers.authorization ?? '').replace(/^Basic /, ''), 'base64').toString().split(':').map(decodeURIComponent);
      const client = clients.get(id);
      if (!client || client.secret !== secret) return json(401, { error: 'invalid_client' });
      const form = new URLSearchParams(request.body);
      if (form.get('grant_type') !== 'client_credentials') return json(400, { error: 'unsupported_grant_type' });
      // Grants what the client asked for of what it is allowed (all it is allowed when it asks for nothing).
      const asked = form.get('scope')?.split(' ').filter(Boolean);
      const scope = (asked ? client.scopes.filter((s) => asked.includes(s)) : client.scopes).join(' ');
      // The audience is the configured API identifier (as Auth0's is); the resource indicator the client sent is kept for tests.
      resources.push(form.get('resource') ?? '');
      const token = await sign({ sub: client.principal, scope, client_id: id });
      return json(200, { access_token: token, token_type: 'Bearer', expires_in: 300, scope });
    }
    json(404, { error: 'not_found' });
  });
  issuer = server.url;

  return {
    issuer,
    jwksUri: `${issuer}/jwks`,
    server,
    resources,
    get jwksFetches() {
      return jwksFetches;
    },
    sign,
    async rotate() {
      keys.push(await newKey(`key-${keys.length + 1}`));
    },
    client(id, secret, scopes, principal = id) {
      clients.set(id, { secret, scopes, principal });
    },
    close: () => server.close(),
  };
}
